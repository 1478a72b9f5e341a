"""The arguments stage: the call's private copy of its arguments, the version check, the input
schema and model, and INVALID_ARGUMENT explained in full or from a mistake seen before."""

from __future__ import annotations

import contextlib
import copy
import functools
from collections.abc import Callable
from typing import Any

from .argument_errors import argument_error
from .calls import _CALL, _NEVER_SWALLOWED, _stage
from .jsonvalue import (
    CLEAN_BUDGET,
    MISSING,
    TooDeep,
    big_integral_floats_as_ints,
    clean_json,
    exact_json,
    larger_than,
    members_up_to,
    oversized_int_in,
    plain_copy,
    sendable_text,
    thaw,
)
from .observe import logger
from .pointer import pointer, pointer_parts, resolve_pointer
from .redaction import REDACTED
from .schema_check import (
    ITEM_CAP,
    integer_too_long,
    nested_too_deep,
    too_many_members,
    unreadable_arguments,
    value_key,
)
from .schema_walk import (
    child_nodes,
    expand,
)
from .scrub import (
    NO_SECRETS,
    echoed_secrets,
    may_hold_secrets,
    secrets_sent,
)
from .stage_run import RunStage
from .stage_settle import BIG_VALUE
from .wording import Violation, describe, field_label

#: ``_private_copy``'s problems that are no violation: arguments that raised when read, and a copy
#: made with care of arguments that are not clean JSON (NaN, a tuple, a str subclass...)
_UNREADABLE = object()


_NOT_CLEAN = object()


def _private_copy(arguments: Any) -> tuple[Any, Any]:
    """(the call's own copy of its arguments, None) where they are clean JSON (``clean_json``:
    one pass in C); else a copy read through base types (``exact_json``) and ``_NOT_CLEAN``, or the
    arguments as they came and the problem that kept them from being copied (nested too deep, too
    many members, unreadable). The guard checks, builds and answers from this one copy: a dict
    subclass whose ``items`` and ``__getitem__`` disagree, or a thread changing the caller's dict
    meanwhile, cannot make the value checked differ from the value used."""
    own = clean_json(arguments, CLEAN_BUDGET, True, MISSING)
    if own is not MISSING:
        return own, None
    try:
        if members_up_to(arguments, CLEAN_BUDGET) > CLEAN_BUDGET:
            return arguments, too_many_members(CLEAN_BUDGET)
        own = exact_json(arguments)
        if own is arguments:  # plain but not clean (a NaN): copied all the same
            own = plain_copy(own)
        return own, _NOT_CLEAN
    except TooDeep as deep:
        return arguments, nested_too_deep(deep.path)
    except _NEVER_SWALLOWED:
        raise
    except BaseException as exc:  # noqa: BLE001 - the caller's object raised: its mistake, not the guard's
        # the exception's text is the caller's object's: it may hold anything, so only its type
        logger.info("arguments could not be read (%s)", type(exc).__name__)
        return arguments, _UNREADABLE


def _model_builder(model: Any) -> Callable[[Any], Any]:
    """The fastest way to build ``model`` from JSON arguments (pydantic's validator directly); a
    generated model's deferred validator is built here, on the tool's first call (``codegen/model_config.py``)."""
    if model is None:
        return lambda arguments: arguments
    validator = model.__dict__.get("__pydantic_validator__") if isinstance(model, type) else None
    if validator is not None and type(validator).__name__ == "MockValSer":  # deferred: build it now
        with contextlib.suppress(Exception):  # a model that cannot be built yet: model_validate says why
            model.model_rebuild()
        validator = model.__dict__.get("__pydantic_validator__")
    if validator is not None and type(validator).__name__ == "SchemaValidator":
        return validator.validate_python  # type: ignore[no-any-return] # model_validate minus its wrapper
    return model.model_validate  # type: ignore[no-any-return]


def _built_exactly(build: Callable[[Any], Any], value: Any) -> Any:
    """``build(value)``; when the model refuses it and ``value`` holds a whole float too big for
    pydantic's ``int`` (1e20, an integer to JSON Schema), built again with those floats as the ints
    they are. The first attempt's error is the one raised when that fails too."""
    try:
        return build(value)
    except Exception:
        widened = big_integral_floats_as_ints(value)
        if widened is value:
            raise
        with contextlib.suppress(Exception):  # the first attempt's problem is the one explained
            return build(widened)
        raise


def _fresh_copy(envelope: dict[str, Any]) -> dict[str, Any]:
    """A copy of a kept error envelope that the caller may change without changing the kept one."""
    error = dict(envelope["error"])
    if "violations" in error:
        error["violations"] = [dict(v) for v in error["violations"]]
    for holder in (error, *error.get("violations", ())):
        if isinstance(holder.get("attempted"), (dict, list)):
            holder["attempted"] = copy.deepcopy(holder["attempted"])
    return {**envelope, "error": error}


def _schema_node(schema: Any, loc: list[Any]) -> Any:
    nodes = [schema]
    for part in loc:
        nodes = [c for n in nodes for e in expand(n, schema) for c in child_nodes(e, str(part))]
        if not nodes:
            return None
    return nodes[0]


class ArgumentsStage(RunStage):
    """The first stages of a call: its arguments copied, checked against version, schema and model,
    and gated (preconditions, confirmation), or explained."""

    @functools.cached_property
    def _build_input(self) -> Callable[[Any], Any]:
        """The input model's builder, made on the first call that needs it (``_model_builder``)."""
        return _model_builder(self.input_model)

    # -- the steps --------------------------------------------------------------------------
    def _prepare(self, arguments: Any, problem: Any, contract_version: str | None) -> tuple[dict[str, Any] | None, Any]:
        """(an early envelope, or None and the implementation's input), from the call's private
        copy of its arguments (``_private_copy``: the one value checked, built and used), or the
        ``problem`` that kept it from being made."""
        if problem is _UNREADABLE:
            return self._invalid_arguments([unreadable_arguments()]), None
        if problem is not None and problem is not _NOT_CLEAN:
            return self._invalid_arguments([problem]), None
        if contract_version is not None or (self._old_keys and type(arguments) is dict
                                            and not self._old_keys.isdisjoint(arguments)):
            mismatch = self._compiled.versions.check(arguments, contract_version)
            if mismatch is not None:
                return self._from_tool_error(mismatch), None
        try:
            # clean JSON (``clean_json``) is read right by the fast validator: no depth past
            # MAX_DEPTH, no integer too long for it, no lone surrogate
            valid = self._input_is_valid(arguments)
        except ValueError:  # NaN, a lone surrogate: the careful validator decides
            valid = self._compiled.input.is_valid(arguments)
        if valid:
            # the fast validator reads an integer too long for it as 0
            huge = None if problem is None else oversized_int_in(arguments, self._compiled.input.number_names)
            if huge is not None:
                return self._invalid_arguments([integer_too_long(huge)]), None
        return self._judged(arguments, valid)

    def _judged(self, arguments: Any, valid: bool) -> tuple[dict[str, Any] | None, Any]:
        """(an early envelope, or None and the implementation's input) for arguments the input
        schema judged: explained, refused by the model, or built and gated."""
        if not valid:
            return self._explained(arguments), None
        try:
            value = _built_exactly(self._build_input, arguments)
        except Exception as exc:  # noqa: BLE001 - the model is stricter than the schema (e.g. format)
            violations = self._model_violations(exc, arguments)
            if violations is None:
                return self._internal(exc, "input model"), None
            return self._invalid_arguments(violations), None
        _stage("input", "passed")
        if self._gate is not None:  # refused, or held for a human's confirmation, before the tool runs
            return self._gate(arguments), value
        return None, value

    def _read_off_loop(self, arguments: Any) -> bool:
        """Whether an async caller's arguments are checked (and a bad call explained) on a worker
        thread, never stalling the event loop: big arguments, and a heavy schema's bad call."""
        try:
            # (the call's own copy: clean JSON of at most BIG_VALUE members, one pass in C, is small)
            return (clean_json(arguments, BIG_VALUE, False, MISSING) is MISSING and larger_than(arguments, BIG_VALUE)) or (
                # a heavy schema's explanation costs up to ~100 ms even for small arguments: only a
                # bad call pays it, and it pays on a worker thread
                self._compiled.input.member_cap < ITEM_CAP and not self._compiled.input.is_valid(arguments))
        except Exception:  # noqa: BLE001 - arguments that raise when read: _prepare answers for them
            return False

    def _explained(self, arguments: Any) -> dict[str, Any]:
        """INVALID_ARGUMENT for arguments the validator refused. A flat call of a mistake seen
        before is answered from what was learnt of it (only its echoes are new); others are
        explained in full (``SchemaCheck.explain``)."""
        exact = value_key(arguments)  # (None unless a flat dict of exact scalars) the memo key
        check = self._compiled.input
        mistake = None if exact is None else check.mistake(arguments, exact)
        if mistake is not None:
            plan = check.plan(mistake.signature)
            if plan is not None:
                known = self._shaped_errors.known(
                    mistake.signature, lambda: check.echoes(plan, arguments, mistake.unknown))
                if known is not None:
                    return known
        violations, omitted = check.explain(arguments, key=exact, mistake=mistake)
        envelope = self._invalid_arguments(violations, omitted, exact=exact)
        # learnt only where no secret can be echoed: the names say so (the signature holds every
        # name that could: only an unknown name not named like a secret is a placeholder there)
        followed = None if mistake is None else check.plan(mistake.signature)
        if mistake is not None and followed is not None \
                and not may_hold_secrets(arguments, check.schema, self._resources):
            self._shaped_errors.learn(mistake.signature, violations, omitted, check.made_anew(followed))
        return envelope

    # -- envelopes --------------------------------------------------------------------------
    def _invalid_arguments(self, violations: list[Violation], omitted: int = 0, *,
                           exact: Any = MISSING) -> dict[str, Any]:
        """INVALID_ARGUMENT naming the violations; a repeated mistake gets a copy of the envelope
        kept for it (``SchemaCheck.explain`` hands back the very list it kept). The envelope also
        depends on the call's secrets, scrubbed where they show up again, so it is kept under the
        arguments themselves when they make a memo key (small and flat: the same call again), else
        under the explanation, and then only when nothing needed scrubbing."""
        _stage("input", "failed")
        arguments = _CALL.get((None, MISSING))[1]
        if exact is MISSING:  # (``value_key(arguments)``, when the caller has it already)
            exact = None if arguments is MISSING else value_key(arguments)
        key: Any = None if exact is None else ("call", exact)
        kept = self._kept_argument_error(key, violations, omitted)
        if kept is not None:
            return kept
        scrub = NO_SECRETS if arguments is MISSING else echoed_secrets(
            arguments, violations, self._compiled.input.schema, self._resources)
        if scrub:
            envelope = argument_error(self.contract, [scrub.violation(v) for v in violations], omitted)
            if key is None:
                return envelope
        else:
            if key is None:
                key = id(violations)
                kept = self._kept_argument_error(key, violations, omitted)
                if kept is not None:
                    return kept
            envelope = self._shaped_errors.envelope(violations, omitted)
        if len(self._argument_errors) >= 256:
            self._argument_errors.clear()
        # holding the list keeps its id from being reused while it is a key here
        self._argument_errors[key] = (violations, omitted, envelope)
        return _fresh_copy(envelope)

    def _kept_argument_error(self, key: Any, violations: list[Violation], omitted: int) -> dict[str, Any] | None:
        """A copy of the envelope kept under ``key`` for this very explanation, or None."""
        kept = None if key is None else self._argument_errors.get(key)
        if kept is not None and kept[0] is violations and kept[1] == omitted:
            return _fresh_copy(kept[2])
        return None

    def _model_violations(self, exc: BaseException, arguments: Any) -> list[Violation] | None:
        errors = getattr(exc, "errors", None)
        if not callable(errors):
            return None
        check = self._compiled.input
        found = []
        try:
            items = errors(include_url=False)
        except Exception:  # noqa: BLE001
            return None
        for item in items:
            loc = [p for p in item.get("loc", ()) if not (isinstance(p, str) and p.startswith("function-"))]
            here = pointer(loc)
            # read through base types: a caller's str subclass was echoed as itself in attempted
            sent = thaw(resolve_pointer(arguments, here))
            node = _schema_node(check.schema, loc)
            kind = str(item.get("type", "value_error"))
            constraint = "format" if isinstance(node, dict) and "format" in node else kind
            hidden = check.is_sensitive(here)
            attempted = REDACTED if hidden else (
                MISSING if sent is MISSING else check.echo(sent, pointer_parts(here)))
            label = field_label(here)
            expected = describe(node, check.schema, hidden=hidden)
            what = f"a valid {node['format']}" if constraint == "format" else expected
            found.append(check.masked(Violation(here, constraint, f"{label} must be {what or 'valid'}"[:200],
                                                expected=expected, attempted=attempted)))
        return found or None

    def _with_notices(self, envelope: dict[str, Any], arguments: Any) -> dict[str, Any]:
        """An ok envelope on an open input schema gains ``notices`` for near-miss argument names."""
        if self._open_names is None or envelope.get("status") != "ok" or not isinstance(arguments, dict) \
                or self._open_names.issuperset(arguments):
            return envelope
        notices = self._compiled.input.notices(arguments)
        if notices:
            scrub = secrets_sent(arguments, self._compiled.input.schema, self._resources)
            # their values only: the keys are the envelope's own (a withheld text is a long one)
            notices = [{key: scrub.value(text) for key, text in notice.items()} for notice in notices] \
                if scrub else notices
            envelope["notices"] = sendable_text(notices)  # they quote the caller's key names
        return envelope
