"""Checks users run in their own test suites to prove a contract's envelopes are right.

``assert_valid_envelope(envelope, contract)`` checks one envelope; ``check_contract(tool)`` drives a
guarded tool (or a ToolStub) through every declared error, a bad call, an unexpected crash, old
argument names and the failure budget, and checks each envelope. Imports only the runtime.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from .runtime import ACTIONS, CODES, Contract, GuardedTool, InMemoryBudgetStore, ToolError, ToolStub
from .runtime.envelope import (
    ERROR_SIZE_CAP,
    MESSAGE_CAP,
    OPTIONAL_ERROR_KEYS,
    REQUIRED_ERROR_KEYS,
    cap_text,
    error_size,
)
from .runtime.guard import compiled_for
from .runtime.internals import internals_in
from .runtime.pointer import unescape_token
from .runtime.visible import hidden_in

__all__ = [
    "ContractReport",
    "assert_valid_envelope",
    "check_contract",
    "envelope_problems",
]

_OK_KEYS = {"status", "tool", "version", "output", "empty", "empty_meaning", "attempted", "notices",
            "deprecation"}
_DEPRECATION_KEYS = {"message", "replacement", "sunset", "migration"}
_NOTICE_KEYS = {"field", "message", "did_you_mean"}
_ERROR_TOP_KEYS = {"status", "tool", "version", "error"}
_REF = re.compile(r"^[0-9a-f]{6,16}\Z")


def _caller_tokens(error: Mapping[str, Any]) -> list[str]:
    """What the caller itself sent that messages may name: its argument names (the segments of
    every reported pointer, also as clipped in messages) and a declared version."""
    pointers = [error.get("field")] + [v.get("field") for v in error.get("violations") or ()
                                       if isinstance(v, Mapping)]
    tokens = {str(error.get("received_version") or "")}
    for ptr in pointers:
        if isinstance(ptr, str):
            for part in ptr.lstrip("/").split("/"):
                segment = unescape_token(part)
                tokens.update({segment, segment[:59] + "…"})
            tokens.update({ptr.lstrip("/"), ptr.lstrip("/")[:59] + "…"})
    return sorted((t for t in tokens if t), key=len, reverse=True)


#: a JSON string in a bad call's message or violation: a value of the schema the guard quotes (an
#: enum member, a pattern, a const), which the model already reads in the tool's schema
_SCHEMA_VALUE = re.compile(r'"(?:[^"\\]|\\.)*"')


def _model_facing_text(error: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Texts the runtime or the author wrote for the model, with what the caller sent (its own
    argument names, echoed back) and the schema's own values taken out: that is data, not a leak."""
    texts = [("message", str(error.get("message", "")))]
    texts += [("migration", str(s)) for s in error.get("migration") or ()]
    for i, v in enumerate(error.get("violations") or ()):
        if isinstance(v, Mapping):
            texts.append((f"violations[{i}].message", str(v.get("message", ""))))
    if error.get("code") in ("INVALID_ARGUMENT", "VERSION_MISMATCH"):
        tokens = _caller_tokens(error)
        cleaned = []
        for where, text in texts:
            for token in tokens:
                text = text.replace(f"'{token}'", "''")
            cleaned.append((where, _SCHEMA_VALUE.sub('""', text)))
        texts = cleaned
    return texts


def envelope_problems(envelope: Any, contract: Contract | None = None) -> list[str]:
    """Every way ``envelope`` breaks the envelope rules (empty list when it is valid)."""
    problems: list[str] = []
    if not isinstance(envelope, Mapping):
        return [f"envelope must be a mapping (got {type(envelope).__name__})"]
    try:
        json.dumps(envelope, allow_nan=False)
    except (TypeError, ValueError) as exc:
        problems.append(f"envelope is not JSON-serialisable ({exc})")
    status = envelope.get("status")
    for key in ("tool", "version"):
        if not isinstance(envelope.get(key), str):
            problems.append(f"'{key}' must be a string")
    if contract is not None:
        if envelope.get("tool") != contract.name:
            problems.append(f"'tool' is {envelope.get('tool')!r}, expected {contract.name!r}")
        if envelope.get("version") != contract.version:
            problems.append(f"'version' is {envelope.get('version')!r}, expected {contract.version!r}")
    if status == "ok":
        problems += _ok_problems(envelope, contract)
    elif status == "error":
        problems += _error_problems(envelope)
    else:
        problems.append(f"'status' must be 'ok' or 'error' (got {status!r})")
    return problems


def _ok_problems(envelope: Mapping[str, Any], contract: Contract | None) -> list[str]:
    problems = [f"unexpected key '{k}' in an ok envelope" for k in envelope if k not in _OK_KEYS]
    if "output" not in envelope:
        problems.append("ok envelope has no 'output'")
    if not isinstance(envelope.get("empty"), bool):
        problems.append("'empty' must be a boolean")
    if ("empty_meaning" in envelope) != (envelope.get("empty") is True):
        problems.append("'empty_meaning' must be present exactly when 'empty' is true")
    if "attempted" in envelope and envelope.get("empty") is not True:
        problems.append("'attempted' may only be present when 'empty' is true")
    if "notices" in envelope:
        notices = envelope["notices"]
        if not isinstance(notices, list) or not notices or not all(
                isinstance(n, Mapping) and set(n) == _NOTICE_KEYS and all(isinstance(v, str) for v in n.values())
                for n in notices):
            problems.append("'notices' must be a non-empty list of {field, message, did_you_mean} strings")
    if "deprecation" in envelope:
        notice = envelope["deprecation"]
        if not isinstance(notice, Mapping) or not isinstance(notice.get("message"), str) \
                or not set(notice) <= _DEPRECATION_KEYS \
                or not all(isinstance(notice[k], str) for k in ("replacement", "sunset") if k in notice) \
                or not all(isinstance(s, str) for s in notice.get("migration", ())):
            problems.append("'deprecation' must be {message[, replacement][, sunset][, migration]} strings")
        if contract is not None and contract.deprecation is None:
            problems.append("'deprecation' is present but the contract is not deprecated")
    if contract is not None and "output" in envelope:
        check = compiled_for(contract).output
        if not check.is_valid(envelope["output"]):
            first = check.violations(envelope["output"])[:1]
            problems.append("'output' does not match the output schema"
                            + (f": {first[0].field} {first[0].message}" if first else ""))
        if envelope.get("empty") and contract.empty_result is None:
            problems.append("'empty' is true but the contract declares no empty_result")
    return problems


def _error_problems(envelope: Mapping[str, Any]) -> list[str]:
    problems = [f"unexpected key '{k}' in an error envelope" for k in envelope if k not in _ERROR_TOP_KEYS]
    error = envelope.get("error")
    if not isinstance(error, Mapping):
        return problems + ["error envelope has no 'error' object"]
    for key in REQUIRED_ERROR_KEYS:
        if key not in error:
            problems.append(f"error has no '{key}'")
    problems += [f"unexpected error key '{k}'" for k in error
                 if k not in REQUIRED_ERROR_KEYS and k not in OPTIONAL_ERROR_KEYS]
    code = error.get("code")
    if not isinstance(code, str) or code not in CODES:
        problems.append(f"code {code!r} is not in the closed set")
    elif error.get("category") != CODES[code].category:
        problems.append(f"category {error.get('category')!r} does not belong to code {code}")
    if error.get("action") not in ACTIONS:
        problems.append(f"action {error.get('action')!r} is not one of {sorted(ACTIONS)}")
    if not isinstance(error.get("retryable"), bool):
        problems.append("'retryable' must be a boolean")
    message = error.get("message")
    if not isinstance(message, str) or not message.strip():
        problems.append("'message' must be a non-empty string")
    elif len(message) > MESSAGE_CAP:
        problems.append(f"'message' is {len(message)} characters (cap {MESSAGE_CAP})")
    size = error_size(error)
    if size > ERROR_SIZE_CAP:
        problems.append(f"error object is {size} bytes of JSON (cap {ERROR_SIZE_CAP})")
    if error.get("action") == "stop_and_tell_user" and error.get("retryable") is True:
        problems.append("action stop_and_tell_user with retryable true")
    if error.get("action") == "retry_later" and error.get("retryable") is False:
        problems.append("action retry_later with retryable false")
    if "field" in error and not (isinstance(error["field"], str) and
                                 (error["field"] == "" or error["field"].startswith("/"))):
        problems.append(f"'field' must be a JSON pointer (got {error['field']!r})")
    if "retry_after" in error and not (isinstance(error["retry_after"], (int, float))
                                       and not isinstance(error["retry_after"], bool)
                                       and error["retry_after"] >= 0):
        problems.append("'retry_after' must be a non-negative number of seconds")
    if "retry_after" in error and error.get("retryable") is False:
        problems.append("'retry_after' on an error the caller must not retry")
    if "ref" in error and not (isinstance(error["ref"], str) and _REF.match(error["ref"])):
        problems.append("'ref' must be a short hex id")
    if code == "INTERNAL" and "ref" not in error and "upstream" not in error:
        pass  # a declared INTERNAL error raised by the author may legitimately carry no ref
    if code == "VERSION_MISMATCH" and "expected_version" not in error:
        problems.append("VERSION_MISMATCH without 'expected_version'")
    if code == "INVALID_ARGUMENT" and "violations" in error:
        for i, v in enumerate(error["violations"]):
            if not (isinstance(v, Mapping) and {"field", "constraint", "message"} <= set(v)):
                problems.append(f"violations[{i}] needs field, constraint and message")
    upstream = error.get("upstream")
    if upstream is not None and not (isinstance(upstream, Mapping) and upstream.get("untrusted") is True):
        problems.append("'upstream' must be marked untrusted")
    budget = error.get("budget")
    if budget is not None:
        uncounted = isinstance(budget, Mapping) and budget.get("store") == "unreachable"
        if not (isinstance(budget, Mapping) and (uncounted or isinstance(budget.get("consecutive_failures"), int))):
            problems.append("'budget' must carry consecutive_failures (or store: unreachable)")
        elif budget.get("exhausted") and (error.get("retryable") or error.get("action") != "stop_and_tell_user"):
            problems.append("an exhausted budget must stop the model (retryable false, stop_and_tell_user)")
    # what must never reach a model is what the guard withholds from a tool's own message
    # (runtime/internals.py): one judgement for the runtime, ``check`` and this oracle
    for where, text in _model_facing_text(error):
        for what in internals_in(text):
            problems.append(f"{where} contains {what}: {text[:80]!r}")
    # nor a character its reader cannot see (runtime/visible.py), in what it quotes either
    quoted = [("upstream.text", str(upstream.get("text", "")))] if isinstance(upstream, Mapping) else []
    for where, text in [("message", str(error.get("message", ""))),
                        *(("migration", str(step)) for step in error.get("migration") or ()), *quoted]:
        hidden = hidden_in(text)
        if hidden is not None:
            problems.append(f"{where} contains a hidden character ({hidden!a}): {text[:80]!r}")
    return problems


def assert_valid_envelope(envelope: Any, contract: Contract | None = None) -> None:
    """Raise AssertionError listing every problem with ``envelope`` (see ``envelope_problems``)."""
    problems = envelope_problems(envelope, contract)
    if problems:
        raise AssertionError("invalid envelope:\n  " + "\n  ".join(problems)
                             + f"\n{json.dumps(envelope, default=str)[:2000]}")


@dataclass
class ContractReport:
    """What ``check_contract`` did: each check's name and its problems (none when it passed)."""

    tool: str
    version: str
    checks: dict[str, list[str]] = field(default_factory=dict)

    @property
    def failures(self) -> dict[str, list[str]]:
        return {name: problems for name, problems in self.checks.items() if problems}

    @property
    def ok(self) -> bool:
        return not self.failures


_PARTIAL_SAMPLE = {"partial": [1, 2]}


def _expect_partial(env: dict[str, Any]) -> list[str]:
    got = env.get("error", {}).get("partial_results")
    return [] if got == _PARTIAL_SAMPLE else [f"partial_results not passed through (got {got!r})"]


def _raiser(exc_factory: Callable[[], BaseException]) -> Callable[[Any], Any]:
    def implementation(_: Any) -> Any:
        raise exc_factory()
    return implementation


def _wrong_type_value(schema: Any) -> Any:
    typ = schema.get("type") if isinstance(schema, Mapping) else None
    types = set(typ) if isinstance(typ, (list, tuple)) else {typ}
    for candidate, names in ((["not", "an", "object"], {"array"}), ("5", {"string"}),
                             ({"unexpected": True}, {"object"})):
        if not names & types:
            return candidate
    return None


def check_contract(tool: GuardedTool[Any, Any] | ToolStub[Any, Any], *, arguments: Mapping[str, Any] | None = None,
                   raise_on_failure: bool = True) -> ContractReport:
    """Prove a tool's contract through the real guard; raise AssertionError on any failure.

    ``arguments`` must be a valid call (defaults to the contract's first example).
    """
    contract = tool.contract
    guarded = (tool.implement(_raiser(lambda: ToolError("unused", code="INTERNAL")))
               if isinstance(tool, ToolStub) else tool)
    report = ContractReport(contract.name, contract.version)
    if arguments is None and contract.examples:
        arguments = dict(contract.examples[0].arguments)
    classes = {(cls.spec.class_name if cls.spec else cls.__name__): cls for cls in guarded.errors}

    def run(name: str, implementation: Callable[[Any], Any], call_args: Any,
            expect: Callable[[dict[str, Any]], list[str]], **call: Any) -> dict[str, Any] | None:
        candidate = guarded.with_implementation(implementation, state=InMemoryBudgetStore())
        try:
            # a plain dict here: the checks below distrust every key the Envelope type promises
            envelope = cast("dict[str, Any]", candidate(call_args, **call))
        except BaseException as exc:  # noqa: BLE001 - the guard must never raise: that is a failure to report
            report.checks[name] = [f"the guarded call raised {type(exc).__name__}"]
            return None
        report.checks[name] = envelope_problems(envelope, contract) + expect(envelope)
        return envelope

    if arguments is None:
        report.checks["valid arguments"] = [
            "no arguments to call with: pass arguments= or add an example to the contract"]
    else:
        input_check = compiled_for(contract).input
        for i, example in enumerate(contract.examples):
            problems = [] if input_check.is_valid(dict(example.arguments)) else [
                f"example {i} does not match the input schema: "
                + "; ".join(v.message for v in input_check.violations(dict(example.arguments))[:3])]
            report.checks[f"example {i} is a valid call"] = problems
        for spec in contract.errors:
            cls = classes.get(spec.class_name) or ToolError.for_spec(spec)
            limit = contract.retry.failure_budget
            stops_at_once = spec.effective_action == "retry_later" and limit is not None and limit <= 1

            def expect_declared(env: dict[str, Any], spec: Any = spec, stops: bool = stops_at_once) -> list[str]:
                err = env.get("error", {})
                out = []
                if env.get("status") != "error" or err.get("code") != spec.code:
                    out.append(f"expected code {spec.code}, got {err.get('code', env.get('status'))}")
                if not stops:
                    if err.get("message") != cap_text(spec.message):
                        out.append("message differs from the declared one")
                    if err.get("action") != spec.effective_action:
                        out.append(f"action {err.get('action')} != declared {spec.effective_action}")
                    if err.get("retryable") != spec.effective_retryable:
                        out.append(f"retryable {err.get('retryable')} != declared {spec.effective_retryable}")
                if spec.field is not None and err.get("field") != spec.field:
                    out.append(f"field {err.get('field')} != declared {spec.field}")
                return out

            run(f"declared error {spec.class_name}", _raiser(cls), arguments, expect_declared)
            if contract.partial_results:
                run(f"declared error {spec.class_name} with partial results",
                    _raiser(functools.partial(cls, partial_results=_PARTIAL_SAMPLE)), arguments,
                    _expect_partial)
        _bad_calls(contract, arguments, run)
        _old_shapes(contract, arguments, run)

        def expect_internal(env: dict[str, Any]) -> list[str]:
            err = env.get("error", {})
            out = [] if err.get("code") == "INTERNAL" else [f"expected INTERNAL, got {err.get('code')}"]
            if "ref" not in err:
                out.append("INTERNAL without a ref")
            if "s3cr3t" in json.dumps(env):
                out.append("the exception text leaked into the envelope")
            return out

        run("unexpected exception", _raiser(lambda: RuntimeError(
            "s3cr3t jdbc:postgresql://db.internal:5432/prod Traceback")), arguments, expect_internal)
        _budget(guarded, contract, arguments, run)
    if raise_on_failure and not report.ok:
        lines = [f"{name}: {'; '.join(problems)}" for name, problems in report.failures.items()]
        raise AssertionError(f"contract {contract.name} {contract.version} failed:\n  " + "\n  ".join(lines))
    return report


def _bad_calls(contract: Contract, arguments: Mapping[str, Any], run: Any) -> None:
    schema = contract.input_schema

    def expect(field_ptr: str, constraint: str | None = None) -> Callable[[dict[str, Any]], list[str]]:
        def check(env: dict[str, Any]) -> list[str]:
            err = env.get("error", {})
            if err.get("code") != "INVALID_ARGUMENT":
                return [f"expected INVALID_ARGUMENT, got {err.get('code', env.get('status'))}"]
            out = [] if err.get("field") == field_ptr else [f"field {err.get('field')} != {field_ptr}"]
            if constraint and err.get("constraint") != constraint:
                out.append(f"constraint {err.get('constraint')} != {constraint}")
            return out
        return check

    unused = _raiser(lambda: AssertionError("a bad call reached the implementation"))
    if schema.get("additionalProperties") is False or schema.get("unevaluatedProperties") is False:
        run("unknown argument", unused, {**arguments, "zz_unknown": 1}, expect("/zz_unknown"))
    for name in list(schema.get("required") or ())[:1]:
        call = {k: v for k, v in arguments.items() if k != name}
        run(f"missing required '{name}'", unused, call, expect(f"/{name}", "required"))
    for name, prop in (schema.get("properties") or {}).items():
        wrong = _wrong_type_value(prop)
        if isinstance(prop, Mapping) and "type" in prop and wrong is not None:
            run(f"wrong type for '{name}'", unused, {**arguments, name: wrong}, expect(f"/{name}", "type"))
            break


def _old_shapes(contract: Contract, arguments: Mapping[str, Any], run: Any) -> None:
    current = set(contract.input_schema.get("properties") or ())
    for migration in contract.migrations:
        for old, new in migration.renamed:
            if old in current:
                continue
            call = {(old if k == new else k): v for k, v in arguments.items()}
            call.setdefault(old, arguments.get(new, "x"))

            def expect(env: dict[str, Any], old: str = old, new: str = new) -> list[str]:
                err = env.get("error", {})
                if err.get("code") != "VERSION_MISMATCH":
                    return [f"expected VERSION_MISMATCH, got {err.get('code', env.get('status'))}"]
                step = f"rename '{old}' to '{new}'"
                return [] if step in (err.get("migration") or ()) else [f"migration lacks {step!r}"]

            run(f"old argument '{old}'", _raiser(lambda: AssertionError("reached")), call, expect)


def _budget(base: GuardedTool[Any, Any], contract: Contract, arguments: Mapping[str, Any], run: Any) -> None:
    limit = contract.retry.failure_budget
    transient = [c for c in contract.retry.retryable_codes if c in CODES and CODES[c].action == "retry_later"]
    if limit is None or not transient:
        return  # nothing may be retried later: there is no budget to exhaust
    code = transient[0]
    tool = base.with_implementation(
        _raiser(lambda: ToolError("The backend is down.", code=code)), state=InMemoryBudgetStore())
    problems: list[str] = []
    for attempt in range(1, limit + 1):
        env = cast("dict[str, Any]", tool(dict(arguments)))
        problems += envelope_problems(env, contract)
        err = env.get("error", {})
        if attempt < limit and (err.get("action") != "retry_later" or err.get("retryable") is not True):
            problems.append(f"attempt {attempt} of {limit} should still say retry_later")
        if attempt == limit:
            if err.get("action") != "stop_and_tell_user" or err.get("retryable") is not False:
                problems.append(f"attempt {limit} should stop the model (stop_and_tell_user, not retryable)")
            if f"{limit} times in a row" not in str(err.get("message")):
                problems.append("the final message should say how many times in a row it failed")
    invalid = cast("dict[str, Any]", tool({**dict(arguments), "zz_unknown": 1})) if contract.input_schema.get(
        "additionalProperties") is False else None
    if invalid is not None and "budget" in invalid.get("error", {}):
        problems.append("a bad call was counted against the failure budget")
    run_problems = problems
    report_name = f"failure budget stops after {limit}"
    run(report_name, _raiser(lambda: ToolError("x", code=code)), arguments, lambda env: run_problems)
