"""Failures into envelopes: a ToolError (typed, declared or not), a mapped foreign exception (the
tool's own mapper, then network and timeout failures), INTERNAL with a reference; the retry policy."""

from __future__ import annotations

import asyncio
import itertools
import json
import math
from collections.abc import Callable, Iterator
from typing import Any

from .attempted import tool_attempted
from .calls import _CALL
from .codes import CODES, retry_withheld
from .deadlines import (
    cancelled_here,
)
from .envelope import cap_text, error_envelope, new_ref, untrusted
from .errors import ToolError, VersionMismatchError
from .internals import withhold_internals
from .interrupts import owner_stop
from .jsonvalue import (
    INT_CEILING,
    INT_FLOOR,
    MISSING,
    exact_json,
    iterator_in,
    thaw,
)
from .observe import loggable, logger
from .scrub import (
    NO_SECRETS,
    Scrubber,
    quotes_arguments,
    secrets_sent,
)
from .stage_state import ToolState
from .visible import visible, visible_json

#: An exception mapper turns a foreign exception into a ToolError, or returns None to pass.
Mapper = Callable[[BaseException], "ToolError | None"]


_CHAIN_LIMIT = 32


def exception_chain(exc: BaseException) -> Iterator[BaseException]:
    """``exc``, then its causes and contexts (and exception-group members), each once."""
    seen: set[int] = set()
    todo = [exc]
    while todo and len(seen) < _CHAIN_LIMIT:
        current = todo.pop(0)
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        todo.extend(getattr(current, "exceptions", None) or ())
        for linked in (current.__cause__, current.__context__):
            if linked is not None:
                todo.append(linked)


#: Migration steps a VersionMismatchError shows (each one line of at most MESSAGE_CAP characters).
MIGRATION_STEPS = 20


def _author_text(value: Any) -> str | None:
    """The text an author's field of a ToolError holds, read through its base type (nothing of
    theirs runs): a str, a finite number as JSON writes it, else None (an object whose ``__str__``
    raised SystemExit escaped the guard; NaN or an object was left in the envelope, no JSON)."""
    value = thaw(value)
    if type(value) is str:
        return value
    if type(value) is int and INT_FLOOR < value < INT_CEILING or type(value) is float and math.isfinite(value):
        return json.dumps(value)
    return None


def _author_prose(value: Any) -> str | None:
    """``_author_text`` as a reader sees it (``visible``), before the call's secrets and the internals
    are looked for in it: a zero-width character inside a key would hide it from both, then vanish
    from the envelope and leave the key whole."""
    text = _author_text(value)
    return None if text is None else visible(text)


def _jsonable(value: Any) -> Any:
    """A JSON copy of a value (datetimes, models, tuples...), or MISSING when there is none (also
    when it holds an iterator: the conversion would run it to its end, forever for an endless one).
    Made of exact JSON types (``exact_json``): subclasses are read through their base types."""
    try:
        value = exact_json(value)  # before anything else reads it with the methods of its classes
        if iterator_in(value) is not None:
            return MISSING
        from pydantic_core import to_jsonable_python

        if hasattr(value, "model_dump") and not isinstance(value, type):  # without the quoting warning
            value = value.model_dump(mode="json", by_alias=True, warnings=False)
        plain = exact_json(to_jsonable_python(value))  # an enum's value may be a str subclass
        json.dumps(plain, allow_nan=False)
        return plain
    except Exception:  # noqa: BLE001
        return MISSING


class FailuresStage(ToolState):
    """What every stage answers a failure with: the envelope of a ToolError, a mapped exception or
    INTERNAL, under the contract's retry policy."""

    def _from_tool_error(self, err: ToolError) -> dict[str, Any]:
        # the author's texts and numbers, read through their base types: a str subclass's own
        # __eq__ and __hash__ would pick the code, and its __str__ the message
        code, retry_after, action = thaw(err.code), thaw(err.retry_after), thaw(err.action)
        # texts that are no str (an object whose __str__ raises or lies, NaN) are dropped: nothing
        # of theirs runs, and the envelope stays JSON
        text, field = _author_prose(err.message), _author_text(err.field)
        if type(code) is not str or code not in CODES:
            return self._internal(err, "undeclared code")
        message = CODES[code].meaning if text is None else text  # no text: what the code means
        partial = MISSING if err.partial_results is None else _jsonable(err.partial_results)
        upstream = MISSING if err.upstream is None else visible_json(_jsonable(  # (as _author_prose)
            err.upstream.decode("utf-8", "replace") if isinstance(err.upstream, bytes) else err.upstream))
        versions: tuple[Any, ...] = ()
        if isinstance(err, VersionMismatchError):
            # at most MIGRATION_STEPS steps, read as text (an endless iterable set as migration hung)
            steps = [_author_prose(step) for step in itertools.islice(iter(err.migration), MIGRATION_STEPS)]
            versions = (_author_prose(err.expected_version), _author_prose(err.received_version),
                        *(step for step in steps if step is not None))
        tried = MISSING if err.attempted is None else _jsonable(err.attempted)
        # the author's text may quote what the call sent: its secrets go before any cap cuts them
        scrub = self._secrets(message, field, partial, upstream, versions, tried)
        optional: dict[str, Any] = {"field": scrub.text(field) if type(field) is str else field,
                                    "retry_after": retry_after}
        if tried is not MISSING:
            optional["attempted"] = tool_attempted(tried, field, self._compiled.input, scrub)
        if partial is not MISSING:
            optional["partial_results"] = scrub.value(partial)
        if err.upstream is not None:
            # its JSON copy, which reads a str subclass's characters, not what its __str__ says
            quoted = err.upstream if upstream is MISSING else scrub.value(upstream) if scrub else upstream
            if isinstance(quoted, dict) and quoted.get("untrusted") is True:  # already quoted once
                status = quoted.get("status")
                optional["upstream"] = untrusted(quoted.get("text", ""),
                                                 status if isinstance(status, int) else None)
            else:
                optional["upstream"] = untrusted(quoted)
        spec = type(err).spec
        if spec is not None and spec.class_name not in self._declared and code != "VERSION_MISMATCH":
            logger.warning("%s %s raised %s, which its contract does not declare", self.name,
                           self.version, spec.class_name)
        # connection strings, credentials, private addresses, paths, stack lines: logged under a ref
        shown, ref = withhold_internals(scrub.text(message), self.name, self.version)
        if versions:
            expected, received, *migration = versions
            steps = []
            for step in migration:  # each one capped line, scrubbed first (a cut never leaves a secret's start)
                step, withheld = withhold_internals(scrub.text(step), self.name, self.version)
                steps.append(cap_text(step))
                ref = ref or withheld
            optional.update(expected_version=scrub.text(expected) if expected is not None else None,
                            received_version=scrub.text(received) if received is not None else None,
                            migration=steps or None)
        if code == "VERSION_MISMATCH" and not optional.get("expected_version"):
            optional["expected_version"] = self.contract.version
        worded, retryable, action = self._retry_policy(code, shown, err.retryable, action)
        return error_envelope(self.contract, code, worded or shown, retryable=retryable, action=action,
                              ref=ref, **optional)

    def _secrets(self, *written: Any) -> Scrubber:
        """What the call in progress sent at sensitive positions, to take out of what the
        implementation wrote (NO_SECRETS outside a call, or when it sent none). Given what was
        written, they are looked for only when it holds a text of the arguments at all (a declared
        error is common; most quote nothing)."""
        arguments = _CALL.get((None, MISSING))[1]
        if arguments is MISSING:
            return NO_SECRETS
        try:
            if written and not quotes_arguments(arguments, written):
                return NO_SECRETS
            return secrets_sent(arguments, self._compiled.input.schema, self._resources)
        except Exception:  # noqa: BLE001 - the answer must still come back (the careful path failed)
            return NO_SECRETS

    def _retry_policy(self, code: str, message: str | None, retryable: bool | None,
                      action: str | None) -> tuple[str | None, bool | None, str | None]:
        """Honour ``retry.retryable_codes``: a transient code the contract does not list (e.g.
        TIMEOUT on a non-idempotent refund) must not invite a retry, unless the error itself says
        so explicitly."""
        if not retry_withheld(code, retryable, action, self._retryable_codes):
            return message, retryable, action
        defaults = CODES[code]
        # (no text of the author's: a message that was no text was dropped, and the code's meaning says it)
        first = (message or defaults.meaning).split(". ")[0].rstrip(".")
        stop = (f"{first}. This tool must not be retried after {code}: do not call it again for "
                "this request; tell the user what happened.")
        return stop, False, "stop_and_tell_user"

    def _from_exception(self, exc: BaseException) -> dict[str, Any]:
        try:
            chain = list(exception_chain(exc))
        except Exception:  # noqa: BLE001 - a link that raises when read (a hostile property)
            chain = [exc]
        for item in chain:
            if isinstance(item, ToolError):
                return self._typed_error(item)
        for mapper in self._mappers:
            for item in chain:
                try:
                    mapped = mapper(item)
                except (KeyboardInterrupt, SystemExit):
                    raise
                except BaseException as failure:  # noqa: BLE001 - a broken mapper leaves the exception unmapped
                    # what it raised may quote the exception it was given, and so the call's secrets
                    logger.error("exception mapper failed for %s", self.name,
                                 exc_info=loggable(failure, self._secrets()))
                    mapped = None
                if mapped is not None:
                    # the model hears the mapped code only; the operator needs what really failed
                    logger.warning("%s %s: %s answered as %s", self.name, self.version,
                                   type(item).__name__, mapped.code,
                                   exc_info=loggable(exc, self._secrets()))
                    return self._typed_error(mapped)
        return self._internal(exc, "implementation")

    def _typed_error(self, err: ToolError) -> dict[str, Any]:
        """A ToolError's envelope; INTERNAL when it cannot be read (a message or field whose text
        raises, a number no float holds): the caller of any path gets an envelope, never that."""
        try:
            # what else the author gave (partial results, upstream text, migration steps) leaves as
            # exact JSON types too: nothing of theirs runs when the envelope is printed or encoded
            envelope: dict[str, Any] = exact_json(self._from_tool_error(err))
            return envelope
        except BaseException as exc:  # reading it ran the author's code (a property, __bool__)
            if isinstance(exc, (KeyboardInterrupt, SystemExit)) and owner_stop(exc):
                raise
            if isinstance(exc, asyncio.CancelledError) and cancelled_here():
                raise
            # (not _tools_failure: a stop raised here has the ToolError as its context, which
            # would be read again)
            return self._internal(exc, "a ToolError that could not be read")

    def _hooks_failed(self, exc: BaseException, arguments: Any) -> dict[str, Any]:
        """INTERNAL for a hook that raised around the call: what it raised may quote the arguments
        it was given, so it is logged with the call's secrets scrubbed, as the tool's own is."""
        token = _CALL.set((self, arguments))
        try:
            return self._internal(exc, "hooks")
        finally:
            _CALL.reset(token)

    def _internal(self, exc: BaseException, where: str) -> dict[str, Any]:
        ref = new_ref()
        logger.error("INTERNAL error in %s %s (%s) ref=%s", self.name, self.version, where, ref,
                     exc_info=loggable(exc, self._secrets()))
        return error_envelope(
            self.contract, "INTERNAL",
            f"{self.name} failed unexpectedly (internal error, reference {ref}). Do not retry; tell "
            "the user the tool failed and give them the reference.", ref=ref)
