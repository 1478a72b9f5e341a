"""The guard every tool call goes through: check, call, check again, and answer with one envelope.

Order of checks: contract version -> input schema (JSON Schema 2020-12) -> input model -> the call
under its deadline -> typed errors / mapped exceptions / INTERNAL -> output schema -> envelope ->
failure budget -> CallRecord. A guarded call never raises, except KeyboardInterrupt, SystemExit and
task cancellation, which are never swallowed.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
import logging
import threading
import time
from typing import Any, Callable, Iterator, MutableMapping, Sequence

from .budget import BudgetStore, as_budget_store, budget_key
from .codes import CODES
from .contract import Contract
from .envelope import error_envelope, new_ref, ok_envelope, untrusted
from .errors import ToolError, VersionMismatchError
from .observe import CallRecord, emit, logger
from .schema_check import (MISSING, REDACTED, SchemaCheck, Violation, cap_pointer, cap_value,
                           describe, first_lines, pointer, redact, resolve_pointer)
from .versions import VersionCheck
from .workers import POOL

#: An exception mapper turns a foreign exception into a ToolError, or returns None to pass.
Mapper = Callable[[BaseException], "ToolError | None"]
_NEVER_SWALLOWED = (KeyboardInterrupt, SystemExit, asyncio.CancelledError)
_CHAIN_LIMIT = 32


class _Compiled:
    """What a contract compiles to once: the schema checks and the version check."""

    def __init__(self, contract: Contract, resources: Any, formats: bool) -> None:
        self.input = SchemaCheck(contract.input_schema, resources=resources, formats=formats)
        self.output = SchemaCheck(contract.output_schema, resources=resources, formats=formats)
        self.versions = VersionCheck(contract)


_CACHE: dict[tuple[int, bool], tuple[Contract, _Compiled]] = {}
_CACHE_LOCK = threading.Lock()


def compiled_for(contract: Contract, *, resources: Any = None, formats: bool = False) -> _Compiled:
    """Compiled checks for a contract, cached per contract object (contracts are frozen)."""
    if resources:
        return _Compiled(contract, resources, formats)
    key = (id(contract), formats)
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is contract:
        return hit[1]
    compiled = _Compiled(contract, None, formats)
    with _CACHE_LOCK:
        _CACHE[key] = (contract, compiled)  # holding the contract keeps its id from being reused
    return compiled


def _is_async(fn: Any) -> bool:
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(
        getattr(fn, "__call__", None))


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


class GuardedTool:
    """A tool implementation behind the guard; call it with JSON arguments, get an envelope."""

    def __init__(self, contract: Contract, implementation: Callable[..., Any], *,
                 input_model: type | None = None, output_model: type | None = None,
                 errors: Sequence[type[ToolError]] = (),
                 state: BudgetStore | MutableMapping[str, Any] | None = None,
                 on_call: Callable[[CallRecord], None] | None = None, description: str = "",
                 mapper: Mapper | None = None, invalid_output_code: str = "INTERNAL",
                 resources: Any = None, formats: bool = False) -> None:
        self.contract = contract
        self.name = contract.name
        self.version = contract.version
        self.description = description or contract.description
        self.implementation = implementation
        self.input_model = input_model
        self.output_model = output_model
        self.errors: tuple[type[ToolError], ...] = tuple(errors)
        self.budget: BudgetStore = as_budget_store(state)
        self.on_call = on_call
        self.mapper = mapper
        self.invalid_output_code = invalid_output_code if invalid_output_code in CODES else "INTERNAL"
        self._formats = formats
        self._resources = resources
        self._compiled = compiled_for(contract, resources=resources, formats=formats)
        self._is_async = _is_async(implementation)
        self._timeout = contract.timeout.seconds
        self._limit = contract.retry.failure_budget
        functools.update_wrapper(self, implementation, assigned=("__module__", "__name__",
                                                                 "__qualname__", "__doc__"),
                                 updated=())

    # -- public surface ---------------------------------------------------------------------
    @property
    def input_schema(self) -> Any:
        return self._compiled.input.schema

    @property
    def output_schema(self) -> Any:
        return self._compiled.output.schema

    def with_implementation(self, implementation: Callable[..., Any], *,
                            state: BudgetStore | MutableMapping[str, Any] | None = None,
                            on_call: Callable[[CallRecord], None] | None = None) -> GuardedTool:
        """The same contract, models, errors and options around another implementation."""
        return type(self)(self.contract, implementation, input_model=self.input_model,
                           output_model=self.output_model, errors=self.errors, state=state,
                           on_call=on_call if on_call is not None else self.on_call,
                           description=self.description, mapper=self.mapper,
                           invalid_output_code=self.invalid_output_code,
                           resources=self._resources, formats=self._formats)

    def __call__(self, arguments: Any, *, contract_version: str | None = None,
                 session: str = "default") -> dict[str, Any]:
        start = time.perf_counter()
        try:
            envelope = self._call_sync(arguments, contract_version)
        except _NEVER_SWALLOWED:
            raise
        except BaseException as exc:  # a defect in the guard itself still answers with an envelope
            envelope = self._internal(exc, "guard")
        return self._finish(envelope, session, start)

    async def acall(self, arguments: Any, *, contract_version: str | None = None,
                    session: str = "default") -> dict[str, Any]:
        start = time.perf_counter()
        try:
            envelope = await self._call_async(arguments, contract_version)
        except _NEVER_SWALLOWED:
            raise
        except BaseException as exc:
            envelope = self._internal(exc, "guard")
        return self._finish(envelope, session, start)

    def __repr__(self) -> str:
        return f"<GuardedTool {self.name} {self.version}>"

    # -- the steps --------------------------------------------------------------------------
    def _prepare(self, arguments: Any, contract_version: str | None) -> tuple[dict[str, Any] | None, Any]:
        compiled = self._compiled
        mismatch = compiled.versions.check(arguments, contract_version)
        if mismatch is not None:
            return self._from_tool_error(mismatch), None
        if not compiled.input.is_valid(arguments):
            return self._invalid_arguments(compiled.input.violations(arguments)), None
        if self.input_model is None:
            return None, arguments
        try:
            return None, self.input_model.model_validate(arguments)  # type: ignore[attr-defined]
        except Exception as exc:  # the model is stricter than the schema (e.g. format)
            violations = self._model_violations(exc, arguments)
            if violations is None:
                return self._internal(exc, "input model"), None
            return self._invalid_arguments(violations), None

    def _call_sync(self, arguments: Any, contract_version: str | None) -> dict[str, Any]:
        early, value = self._prepare(arguments, contract_version)
        if early is not None:
            return early
        try:
            if self._timeout is None and not self._is_async:
                result = self.implementation(value)
            elif self._timeout is None and not _loop_running():
                result = asyncio.run(self.implementation(value))
            else:
                future = POOL.submit(self._run_in_worker, value)
                try:
                    exc = future.exception(timeout=self._timeout)
                except TimeoutError:
                    return self._timed_out(future)
                if exc is not None:
                    raise exc
                result = future.result()
        except _NEVER_SWALLOWED:
            raise
        except BaseException as exc:
            return self._from_exception(exc)
        return self._complete(result)

    def _run_in_worker(self, value: Any) -> Any:
        if not self._is_async:
            return self.implementation(value)

        async def bounded() -> Any:  # in the worker, cancel the coroutine at the deadline too
            if self._timeout is None:
                return await self.implementation(value)
            return await asyncio.wait_for(self.implementation(value), self._timeout)

        return asyncio.run(bounded())

    async def _call_async(self, arguments: Any, contract_version: str | None) -> dict[str, Any]:
        early, value = self._prepare(arguments, contract_version)
        if early is not None:
            return early
        deadline = self._timeout
        try:
            if self._is_async:
                if deadline is None:
                    result = await self.implementation(value)
                else:
                    result, expired = await _with_deadline(self.implementation(value), deadline)
                    if expired:
                        return self._timeout_envelope()
            else:
                # sync code never blocks the event loop: it runs on a worker thread
                future = asyncio.wrap_future(POOL.submit(self.implementation, value))
                if deadline is None:
                    result = await future
                else:
                    result, expired = await _with_deadline(future, deadline)
                    if expired:
                        return self._timeout_envelope()
        except _NEVER_SWALLOWED:
            raise
        except BaseException as exc:
            return self._from_exception(exc)
        return self._complete(result)

    def _complete(self, result: Any) -> dict[str, Any]:
        output = result
        if hasattr(result, "model_dump") and not isinstance(result, type):
            try:
                output = result.model_dump(mode="json", by_alias=True, exclude_unset=True)
            except Exception as exc:
                return self._invalid_output(["the result model could not be serialised"], exc)
        check = self._compiled.output
        if not check.is_valid(output):
            plain = _jsonable(output)
            if plain is MISSING or not check.is_valid(plain):
                problems = [f"{v.field or '/'} {v.constraint}: {v.message}"
                            for v in check.violations(output if plain is MISSING else plain)[:10]]
                return self._invalid_output(problems, None)
            output = plain
        return ok_envelope(self.contract, output)

    # -- envelopes --------------------------------------------------------------------------
    def _invalid_arguments(self, violations: list[Violation]) -> dict[str, Any]:
        first = violations[0] if violations else None
        optional: dict[str, Any] = {}
        if first is not None:
            optional = {"field": cap_pointer(first.field), "constraint": first.constraint,
                        "expected": first.expected, "attempted": first.attempted,
                        "violations": [v.as_dict() for v in violations]}
        if optional.get("attempted") is MISSING:
            del optional["attempted"]
        from .envelope import MESSAGE_CAP

        return error_envelope(self.contract, "INVALID_ARGUMENT", first_lines(violations, MESSAGE_CAP),
                              **optional)

    def _model_violations(self, exc: BaseException, arguments: Any) -> list[Violation] | None:
        errors = getattr(exc, "errors", None)
        if not callable(errors):
            return None
        check = self._compiled.input
        found = []
        try:
            items = errors(include_url=False)
        except Exception:
            return None
        for item in items:
            loc = [p for p in item.get("loc", ()) if not (isinstance(p, str) and p.startswith("function-"))]
            here = pointer(loc)
            sent = resolve_pointer(arguments, here)
            node = _schema_node(check.schema, loc)
            kind = str(item.get("type", "value_error"))
            constraint = "format" if isinstance(node, dict) and "format" in node else kind
            attempted = REDACTED if check.is_sensitive(here) else (
                MISSING if sent is MISSING else cap_value(redact(sent, node, check.schema)))
            label = f"'{here.lstrip('/')}'" if here else "the arguments"
            what = f"a valid {node['format']}" if constraint == "format" else describe(node, check.schema)
            found.append(Violation(here, constraint, f"{label} must be {what or 'valid'}"[:200],
                                   expected=describe(node, check.schema), attempted=attempted))
        return found or None

    def _from_tool_error(self, err: ToolError) -> dict[str, Any]:
        code = err.code if err.code in CODES else "INTERNAL"
        if code != err.code:
            return self._internal(err, "undeclared code")
        optional: dict[str, Any] = {"field": err.field, "retry_after": err.retry_after}
        if err.partial_results is not None:
            partial = _jsonable(err.partial_results)
            if partial is not MISSING:
                optional["partial_results"] = partial
        if err.upstream is not None:
            optional["upstream"] = err.upstream if (
                isinstance(err.upstream, dict) and err.upstream.get("untrusted") is True
            ) else untrusted(err.upstream)
        if isinstance(err, VersionMismatchError):
            optional.update(expected_version=err.expected_version,
                            received_version=err.received_version,
                            migration=list(err.migration) or None)
        if code == "VERSION_MISMATCH" and not optional.get("expected_version"):
            optional["expected_version"] = self.contract.version
        return error_envelope(self.contract, code, err.message, retryable=err.retryable,
                              action=err.action, **optional)

    def _from_exception(self, exc: BaseException) -> dict[str, Any]:
        chain = list(exception_chain(exc))
        for item in chain:
            if isinstance(item, ToolError):
                return self._from_tool_error(item)
        if self.mapper is not None:
            for item in chain:
                try:
                    mapped = self.mapper(item)
                except Exception:
                    logger.exception("exception mapper failed for %s", self.name)
                    mapped = None
                if mapped is not None:
                    return self._from_tool_error(mapped)
        return self._internal(exc, "implementation")

    def _internal(self, exc: BaseException, where: str) -> dict[str, Any]:
        ref = new_ref()
        logger.error("INTERNAL error in %s %s (%s) ref=%s", self.name, self.version, where, ref,
                     exc_info=(type(exc), exc, exc.__traceback__))
        return error_envelope(
            self.contract, "INTERNAL",
            f"{self.name} failed unexpectedly (internal error, reference {ref}). Do not retry; tell "
            "the user the tool failed and give them the reference.", ref=ref)

    def _invalid_output(self, problems: list[str], exc: BaseException | None) -> dict[str, Any]:
        ref = new_ref()
        logger.error("invalid result from %s %s ref=%s: %s", self.name, self.version, ref,
                     "; ".join(problems) or "unknown", exc_info=exc)
        code = self.invalid_output_code
        return error_envelope(
            self.contract, code,
            f"{self.name} produced an invalid result (it does not match its output schema; "
            f"reference {ref}). This is not caused by your arguments."
            + (" Do not retry; tell the user the tool failed." if CODES[code].action != "retry_later"
               else " Wait a moment and call again unchanged."), ref=ref)

    def _timeout_envelope(self) -> dict[str, Any]:
        seconds = self._timeout or 0
        return error_envelope(
            self.contract, "TIMEOUT",
            f"{self.name} did not finish within its {seconds:g} second deadline. Wait a moment, "
            "then call again unchanged.", retry_after=self.contract.retry.backoff.initial)

    def _timed_out(self, future: Any) -> dict[str, Any]:
        envelope = self._timeout_envelope()

        def _abandoned(done: Any) -> None:  # the worker finished after the caller gave up
            logger.debug("abandoned call of %s finished after its deadline", self.name)

        future.add_done_callback(_abandoned)
        return envelope

    def _finish(self, envelope: dict[str, Any], session: str, start: float) -> dict[str, Any]:
        limit = self._limit
        failures: int | None = None
        exhausted = False
        try:
            key = budget_key(self.name, session)
            if envelope["status"] == "ok":
                self.budget.reset(key)
                code, ref = "OK", None
            else:
                error = envelope["error"]
                code, ref = error["code"], error.get("ref")
                if limit is not None and error["action"] == "retry_later":
                    failures = self.budget.record_failure(key)
                    exhausted = failures >= limit
                    error["budget"] = {"consecutive_failures": failures, "limit": limit,
                                       "exhausted": exhausted}
                    if exhausted:
                        error["retryable"] = False
                        error["action"] = "stop_and_tell_user"
                        error.pop("retry_after", None)
                        error["message"] = (
                            f"{self.name} has failed {failures} times in a row ({code}). Do not "
                            "call it again for this request; tell the user it is not working "
                            "right now.")
        except Exception:  # a broken store must not turn into an exception for the model
            logger.exception("failure budget store failed for %s", self.name)
            code = envelope.get("error", {}).get("code", "OK")
            ref = None
        record = CallRecord(self.name, self.version, code, time.perf_counter() - start, session,
                            ref, failures, limit, exhausted)
        emit(record, self.on_call)
        return envelope


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


async def _with_deadline(awaitable: Any, seconds: float) -> tuple[Any, bool]:
    """(result, False), or (None, True) when our deadline (not the tool's own timeout) fired."""
    timeout_cm = getattr(asyncio, "timeout", None)
    if timeout_cm is not None:  # Python 3.11+: no extra task
        cm = timeout_cm(seconds)
        try:
            async with cm:
                return await awaitable, False
        except TimeoutError:
            if cm.expired():
                return None, True
            raise
    task = asyncio.ensure_future(awaitable)  # pragma: no cover - Python 3.10
    done, _ = await asyncio.wait({task}, timeout=seconds)
    if not done:
        task.cancel()
        return None, True
    return task.result(), False


def _jsonable(value: Any) -> Any:
    """A JSON copy of a value (datetimes, models, tuples...), or MISSING when there is none."""
    try:
        from pydantic_core import to_jsonable_python

        plain = to_jsonable_python(value)
        json.dumps(plain, allow_nan=False)
        return plain
    except Exception:
        return MISSING


def _schema_node(schema: Any, loc: list[Any]) -> Any:
    from .schema_check import _children, _expand

    nodes = [schema]
    for part in loc:
        nodes = [c for n in nodes for e in _expand(n, schema) for c in _children(e, str(part))]
        if not nodes:
            return None
    return nodes[0]


def guard(contract: Contract, implementation: Callable[..., Any], *,
          input_model: type | None = None, output_model: type | None = None,
          errors: Sequence[type[ToolError]] = (),
          state: BudgetStore | MutableMapping[str, Any] | None = None,
          on_call: Callable[[CallRecord], None] | None = None, description: str = "",
          mapper: Mapper | None = None, **options: Any) -> GuardedTool:
    """Put ``implementation`` behind the guard for ``contract``."""
    return GuardedTool(contract, implementation, input_model=input_model, output_model=output_model,
                       errors=errors, state=state, on_call=on_call, description=description,
                       mapper=mapper, **options)


class ToolStub:
    """What generated code instantiates per tool version; ``implement`` attaches the code."""

    def __init__(self, contract: Contract, *, input_model: type | None = None,
                 output_model: type | None = None, errors: Sequence[type[ToolError]] = (),
                 description: str = "") -> None:
        self.contract = contract
        self.name = contract.name
        self.version = contract.version
        self.input_model = input_model
        self.output_model = output_model
        self.errors = tuple(errors)
        self.description = description or contract.description

    def implement(self, fn: Callable[..., Any] | None = None, *,
                  state: BudgetStore | MutableMapping[str, Any] | None = None,
                  on_call: Callable[[CallRecord], None] | None = None,
                  mapper: Mapper | None = None, **options: Any) -> Any:
        """Decorator (bare or with options): returns the GuardedTool for ``fn``."""

        def attach(f: Callable[..., Any]) -> GuardedTool:
            return guard(self.contract, f, input_model=self.input_model,
                         output_model=self.output_model, errors=self.errors, state=state,
                         on_call=on_call, description=self.description, mapper=mapper, **options)

        return attach(fn) if fn is not None else attach

    def error(self, class_name: str) -> type[ToolError]:
        for cls in self.errors:
            if cls.__name__ == class_name or (cls.spec is not None and cls.spec.class_name == class_name):
                return cls
        raise KeyError(class_name)

    def __repr__(self) -> str:
        return f"<ToolStub {self.name} {self.version}>"
