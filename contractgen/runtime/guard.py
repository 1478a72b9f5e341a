"""The guard every tool call goes through: check, call, check again, and answer with one envelope.

Order of checks: contract version -> input schema (JSON Schema 2020-12) -> input model -> the call
under its deadline -> typed errors / mapped exceptions / INTERNAL -> output schema -> envelope ->
failure budget -> CallRecord. A guarded call never raises, except the process owner's stop (see
``interrupts.py``) and a real cancellation of the caller, which are never swallowed.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import copy
import functools
import inspect
import itertools
import json
import logging
import math
import sys
import threading
import time
from collections.abc import Callable, Iterator, MutableMapping, Sequence
from concurrent.futures import TimeoutError as FutureTimeout  # builtin TimeoutError from 3.11
from typing import Any, Generic, TypeVar, cast

from .argument_errors import ShapedErrors, argument_error
from .budget import (
    COUNT_HERE,
    BudgetStore,
    InMemoryBudgetStore,
    as_budget_store,
    budget_key,
    count_async,
    note_unreachable,
)
from .capacity import Capacity, Slot
from .codes import CODES, retry_withheld
from .confirmation import compile_gate
from .contract import Contract
from .deadlines import (
    DEADLINE_PASSED,
    NOT_STARTED,
    cancelled_here,
    loop_running,
    run_here,
    settle_here,
    with_deadline,
    within_deadline,
)
from .envelope import cap_text, error_envelope, new_ref, ok_envelope, untrusted
from .envelope_types import (
    Arguments,
    AsyncImplementation,
    Envelope,
    InT,
    OkEnvelope,
    OutT,
    SyncImplementation,
    WireT,
)
from .errors import ToolError, VersionMismatchError
from .internals import withhold_internals
from .interrupts import owner_stop
from .jsonvalue import (
    INT_CEILING,
    INT_DIGITS_CAP,
    INT_FLOOR,
    MISSING,
    TooDeep,
    big_integral_floats_as_ints,
    encodes,
    exact_json,
    iterator_in,
    json_problem,
    larger_than,
    oversized_int,
    oversized_int_in,
    plain_json,
    sendable_text,
    stand_in,
    thaw,
    too_deep,
)
from .observe import STAGES, CallRecord, call_logger, emit, loggable, logger
from .pointer import cap_pointer, pointer, pointer_parts, resolve_pointer
from .progress import listening as progress_listening
from .redaction import REDACTED
from .schema_check import (
    ITEM_CAP,
    SchemaCheck,
    integer_too_long,
    nested_too_deep,
    unreadable_arguments,
    value_key,
)
from .schema_walk import (
    child_nodes,
    expand,
    is_recursive,
    pins_plain_json,
    types_numbers,
)
from .scrub import (
    NO_SECRETS,
    SECRETS_CAP,
    Scrubber,
    SecretsWithheld,
    echoed_secrets,
    may_hold_secrets,
    output_scrub,
    quotes_arguments,
    secrets_sent,
)
from .settle_safety import reads_plainly
from .transport import map_transport_error
from .versions import VersionCheck
from .wording import RESULT, Violation, describe, field_label
from .workers import POOL, PoolBusy, Raised, boxed

#: An exception mapper turns a foreign exception into a ToolError, or returns None to pass.
Mapper = Callable[[BaseException], "ToolError | None"]
_NEVER_SWALLOWED = (KeyboardInterrupt, SystemExit, asyncio.CancelledError)
#: what the fast path answers for invalid arguments: the full path explains them
_INVALID = cast("Envelope[Any]", object())
_CHAIN_LIMIT = 32
#: the per-call log is DEBUG: a framework that sets the root logger to INFO (the MCP SDK's
#: MCPServer does) must not turn on a log line per call in every process
_CALL_LOG_LEVEL = logging.DEBUG
#: bound once: the happy path asks it on every call (a level set later still counts)
_call_log_enabled = call_logger.isEnabledFor
#: logging's own memo of ``call_logger.isEnabledFor`` answers by level, which logging empties in place
#: whenever any level changes: the fast path reads it directly, a third of the cost of asking.
#: A level not in it sends the call down the full path, whose ``isEnabledFor`` fills it in; a
#: logger disabled by ``logging.config`` after a True answer only costs the fast path, since the
#: full path asks again. None where logging keeps no such memo (no fast path then).
_call_log_memo: dict[int, bool] | None = vars(call_logger).get("_cache")
if type(_call_log_memo) is not dict:
    _call_log_memo = None
#: Arguments or results with more members than this are checked on a worker thread under ``acall``.
BIG_VALUE = 2000
_T = TypeVar("_T")
#: Seconds an async implementation may hold the event loop in one step (between two awaits) before
#: its calls move to worker threads (asyncio's debug mode already calls 0.1 s slow).
BLOCKING_STEP = 1.0
#: The guarded tool and the arguments of the call in progress, set around the steps that may turn
#: what the implementation wrote (an exception, a ToolError, a progress message) into a log line, an
#: envelope or a listener's text: the secrets they hold are taken out of it there (``scrub.py``).
#: Set only off the fast path's happy way (which steps aside while a progress listener is set).
_CALL: contextvars.ContextVar[tuple[GuardedTool[Any, Any, Any], Any]] = contextvars.ContextVar("contractgen_call")


def _stage(name: str, outcome: str) -> None:
    stages = STAGES.get()
    if stages is not None:
        stages[name] = outcome


def call_secrets() -> Scrubber:
    """What the call in progress (in this context) sent at sensitive positions, to take out of text
    the implementation writes elsewhere (a progress message); NO_SECRETS outside a call."""
    call = _CALL.get(None)
    return NO_SECRETS if call is None else call[0]._secrets()


class _Compiled:
    """What a contract compiles to once: the schema checks and the version check."""

    def __init__(self, contract: Contract, resources: Any, formats: bool) -> None:
        self.input = SchemaCheck(contract.input_schema, resources=resources, formats=formats)
        self.output = SchemaCheck(contract.output_schema, resources=resources, formats=formats, subject=RESULT)
        self.versions = VersionCheck(contract)
        #: a recursive input schema lets the fast validator walk any depth: bound it first
        self.input_recursive = is_recursive(self.input.schema)
        #: the output schema alone guarantees plain JSON (no NaN, string keys, bounded depth)
        self.output_plain = pins_plain_json(self.output.schema)
        #: where a result the fast validator accepts may hide an integer it cannot read (see
        #: jsonvalue.INT_DIGITS_CAP): () nowhere, or None for anywhere it may hold one, since such an
        #: integer could not be sent either (arguments: ``input.number_names``, where the schema
        #: judges numbers)
        self.output_numbers: tuple[str, ...] | None = (
            () if self.output_plain and not types_numbers(self.output.schema) else None)
        #: the output's yes/no that also refuses a lone surrogate in a string or key (raising
        #: ValueError), where the schema pins plain JSON and jsonschema-rs checks it: an accepted result
        #: then needs no encoding pass; None elsewhere
        self.output_reading_text = self.output.reading_text() if self.output_plain else None


_CACHE: dict[tuple[int, bool], tuple[Contract, _Compiled]] = {}
_CACHE_LOCK = threading.Lock()
_CACHE_LIMIT = 512


def compiled_for(contract: Contract, *, resources: Any = None, formats: bool = True) -> _Compiled:
    """Compiled checks for a contract, cached per contract object (contracts are frozen)."""
    if resources:
        return _Compiled(contract, resources, formats)
    key = (id(contract), formats)
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is contract:
        return hit[1]
    compiled = _Compiled(contract, None, formats)
    with _CACHE_LOCK:
        if len(_CACHE) >= _CACHE_LIMIT:  # contracts made on the fly must not pile up forever
            _CACHE.clear()
        _CACHE[key] = (contract, compiled)  # holding the contract keeps its id from being reused
    return compiled


def _is_async(fn: Any) -> bool:
    # a callable object with ``async def __call__`` is async too
    call = None if inspect.isroutine(fn) else next(
        (k.__dict__["__call__"] for k in type(fn).__mro__ if "__call__" in k.__dict__), None)
    return inspect.iscoroutinefunction(fn) or (call is not None and inspect.iscoroutinefunction(call))


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


class GuardedTool(Generic[InT, OutT, WireT]):
    """A tool implementation behind the guard; call it with JSON arguments, get an envelope.

    Generic in the implementation's input and output models (``Any`` when there are none) and in the
    output's JSON form, the type of ``envelope["output"]`` (types only: the envelope is a plain dict).
    """

    def __init__(self, contract: Contract,
                 implementation: SyncImplementation[InT, OutT] | AsyncImplementation[InT, OutT], *,
                 input_model: type[InT] | None = None, output_model: type[OutT] | None = None,
                 errors: Sequence[type[ToolError]] = (),
                 state: BudgetStore | MutableMapping[str, Any] | None = None,
                 on_call: Callable[[CallRecord], None] | None = None, description: str = "",
                 mapper: Mapper | None = None, invalid_output_code: str = "INTERNAL",
                 resources: Any = None, formats: bool = True, hooks: Any = None,
                 transport_errors: bool = True) -> None:
        self.contract = contract
        #: the happy path of the plainest tools, installed as this tool's own ``__call__`` (_take_fast_path)
        self._fast: Callable[..., Envelope] | None = None
        self._hooks = hooks
        self.name = contract.name
        self.version = contract.version
        self.description = description or contract.description
        # the guard treats results dynamically (a model, a dict, an awaitable): typed at the edges
        self.implementation: Callable[[InT], Any] = implementation
        self.input_model = input_model
        self.output_model = output_model
        self.errors: tuple[type[ToolError], ...] = tuple(errors)
        self.budget: BudgetStore = as_budget_store(state)
        #: the in-memory store's counts, read by the fast path (a success resets nothing when empty)
        self._local_counts = self.budget._counts if type(self.budget) is InMemoryBudgetStore else None
        self._on_call = on_call
        self.mapper = mapper
        #: network and timeout failures (builtin, httpx, requests, urllib3, aiohttp) are transient
        #: upstream failures, mapped after the tool's own ``mapper`` unless the tool opts out
        self.transport_errors = transport_errors
        self._mappers: tuple[Mapper, ...] = tuple(dict.fromkeys(  # wrap_tool passes the transport mapper itself
            m for m in (mapper, map_transport_error if transport_errors else None) if m is not None))
        self.invalid_output_code = invalid_output_code if invalid_output_code in CODES else "INTERNAL"
        self._formats = formats
        self._resources = resources
        self._compiled = compiled_for(contract, resources=resources, formats=formats)
        self._is_async = _is_async(implementation)
        self._timeout = contract.timeout.seconds
        self._inline = self._timeout is None and not self._is_async
        self._limit = contract.retry.failure_budget
        self._retryable_codes = frozenset(contract.retry.retryable_codes)
        self._build_input = _model_builder(input_model)
        self._keys: dict[str, str] = {}
        #: INVALID_ARGUMENT envelopes by the call or the explanation they were built from (see _invalid_arguments)
        self._argument_errors: dict[Any, tuple[list[Violation], int, dict[str, Any]]] = {}
        self._shaped_errors = ShapedErrors(contract)
        # bound once: the happy path calls these directly
        self._input_is_valid = self._compiled.input.bare_is_valid
        self._output_is_valid = self._compiled.output_reading_text or self._compiled.output.bare_is_valid
        #: an accepted result is known to encode as UTF-8 JSON: the check read every string and key
        self._output_text_read = self._compiled.output_reading_text is not None
        self._old_keys = self._compiled.versions.old_key_set
        self._empty_rule = contract.empty_result
        #: preconditions and confirmation (confirmation.py), None when the contract declares neither
        self._gate = compile_gate(contract, resources)
        self._depth_first = self._compiled.input_recursive
        self._output_plain = self._compiled.output_plain
        self._open_names = self._compiled.input.open_names
        self._declared = frozenset(spec.class_name for spec in contract.errors)
        #: takes the call's secrets out of an ok output that echoes them; None where no call can carry one
        self._output_scrub = output_scrub(self._compiled.input.schema, resources, self._compiled.output.schema)
        self._take_fast_path()
        #: worker threads and abandoned calls of this tool: a stuck tool exhausts only its own share
        self.capacity = Capacity(contract.name)
        #: set once an async implementation held the event loop in one step for its deadline (or
        #: BLOCKING_STEP): its calls then run on worker threads with their own event loops
        self.blocks_event_loop = False
        functools.update_wrapper(self, implementation, assigned=("__module__", "__name__",
                                                                 "__qualname__", "__doc__"),
                                 updated=())

    def _take_fast_path(self) -> None:
        """Installs the fast path (or not) as ``__call__`` of a class of this tool's own: Python reads
        ``__call__`` on the type, and a method that calls a closure costs a frame more per call (3%
        of a happy call, bench/guard_overhead.py). The class is the tool's alone (a copy of the tool
        gets one of its own when its path changes), named as its base. A subclass that writes its
        own ``__call__`` keeps it: the fast path would go around it."""
        overridden = _public_class(type(self)).__call__ is not GuardedTool.__call__
        fast = None if overridden else self._fast_path()
        self._fast = fast
        own = type(self)
        if own.__dict__.get("_tool_id") != id(self):  # the class of another tool (this one is its copy), or none
            base = _public_class(own)
            if fast is None:
                self.__class__ = base
                return
            own = type(base.__name__, (base,), {"_tool_id": id(self), "__module__": base.__module__,
                                                "__qualname__": base.__qualname__, "__doc__": base.__doc__})
            self.__class__ = own
        own.__call__ = fast if fast is not None else _public_class(own).__call__  # type: ignore[method-assign]

    # -- public surface ---------------------------------------------------------------------
    @property
    def input_schema(self) -> Any:
        return self._compiled.input.schema

    @property
    def output_schema(self) -> Any:
        return self._compiled.output.schema

    def with_implementation(self, implementation: SyncImplementation[InT, OutT]
                            | AsyncImplementation[InT, OutT], *,
                            state: BudgetStore | MutableMapping[str, Any] | None = None,
                            on_call: Callable[[CallRecord], None] | None = None) -> GuardedTool[InT, OutT, WireT]:
        """The same contract, models, errors and options around another implementation."""
        public = _public_class(type(self))  # not this tool's own class: the new tool gets one of its own
        return public(self.contract, implementation, input_model=self.input_model,
                      output_model=self.output_model, errors=self.errors, state=state,
                      on_call=on_call if on_call is not None else self.on_call,
                      description=self.description, mapper=self.mapper,
                      transport_errors=self.transport_errors,
                      invalid_output_code=self.invalid_output_code,
                      resources=self._resources, formats=self._formats, hooks=self.hooks)

    @property
    def on_call(self) -> Callable[[CallRecord], None] | None:
        """Called with a CallRecord after every call (observed calls take the full path)."""
        return self._on_call

    @on_call.setter
    def on_call(self, value: Callable[[CallRecord], None] | None) -> None:
        self._on_call = value
        self._take_fast_path()

    @property
    def hooks(self) -> Any:
        """Around every call when set: breaker and telemetry (``contractgen.runtime.hooks.CallHooks``)."""
        return self._hooks

    @hooks.setter
    def hooks(self, value: Any) -> None:
        self._hooks = value
        self._take_fast_path()

    # No ``*`` before the options: Python looks up each omitted keyword-only default by name in a
    # dict on every call, 2% of a happy call here (bench/guard_overhead.py). Pass them by keyword.
    def __call__(self, arguments: Arguments, contract_version: str | None = None,
                 session: str = "default", call_id: str | None = None,
                 caller: str | None = None) -> Envelope[WireT]:
        if self._hooks is not None:
            try:
                return self._hooks.call(self, arguments, contract_version, session, call_id, caller)  # type: ignore[no-any-return]
            except _NEVER_SWALLOWED:
                raise
            except BaseException as exc:  # noqa: BLE001 - a failing hook (telemetry, breaker) is INTERNAL
                return self._finish(self._hooks_failed(exc, arguments), session, 0.0, False)
        observed = self._on_call is not None or _call_log_enabled(_CALL_LOG_LEVEL)
        if not observed and contract_version is None and type(arguments) is dict and self._inline \
                and self._gate is None:
            inline = self._inline_call(arguments)
            if inline is not None:
                return self._finish(inline, session, 0.0, False)
        start = time.perf_counter() if observed else 0.0
        return self._finish(self.run_checked(arguments, contract_version), session, start, observed)

    def _refused_call(self, arguments: Any) -> dict[str, Any]:
        """``run_checked`` for arguments the fast path's validator refused: plain JSON arguments are
        explained straight away, without the full path's second look at them (validating and
        reading them again was a tenth of answering a new wrong value);
        tests/test_guard_fast_path.py checks both give the same envelope."""
        exact = value_key(arguments)  # (None unless plain JSON: a dict of exact scalar types)
        if exact is None and not plain_json(arguments):  # subclasses are judged as their base: the full path copies them
            return self.run_checked(arguments, None)
        token = _CALL.set((self, arguments))
        try:
            check = self._compiled.input
            # a flat call not explained before: of a known signature, only its echoes are new
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
        except _NEVER_SWALLOWED:
            raise
        except BaseException as exc:  # noqa: BLE001 - as run_checked: a defect in the guard itself
            return self._internal(exc, "guard")
        finally:
            _CALL.reset(token)

    def _inline_call(self, arguments: dict[str, Any]) -> dict[str, Any] | None:
        """A sync tool without a deadline, in this thread: the same steps as ``_call_sync``.

        None when anything is unusual before the implementation runs (invalid or non-JSON arguments,
        a model error): the full path then explains it. Once the implementation ran, an envelope
        always comes back, so nothing can make it run twice.
        """
        value: Any = NOT_STARTED
        try:
            if (not self._old_keys or self._old_keys.isdisjoint(arguments)) \
                    and (not self._depth_first or too_deep(arguments) is None):
                if not self._input_is_valid(arguments):
                    # explained straight away, as the fast path's refusals are: the full path
                    # validated the whole call again (a contains over a 50-branch anyOf on 300,000
                    # objects: 0.6 s each time)
                    value = _INVALID
                elif oversized_int_in(arguments, self._compiled.input.number_names) is None:
                    value = self._build_input(arguments)
        except _NEVER_SWALLOWED:
            raise
        except BaseException:  # noqa: BLE001 - the full path explains the problem
            return None
        if value is NOT_STARTED:
            return None
        if value is _INVALID:
            return self._refused_call(arguments)
        token = _CALL.set((self, arguments))
        try:
            envelope = self._run_validated(value)
        except _NEVER_SWALLOWED:
            raise
        except BaseException as exc:  # noqa: BLE001 - a defect in the guard itself
            envelope = self._internal(exc, "guard")
        finally:
            _CALL.reset(token)
        if self._open_names is not None and not self._open_names.issuperset(arguments):
            envelope = self._with_notices(envelope, arguments)
        return envelope

    def _fast_path(self) -> Callable[..., Envelope] | None:
        """The happy path of the plainest tools as one closure over local names: an unobserved sync
        tool with no hooks, no deadline, no version history, a flat-checked input schema, no notices, no empty rule and
        an in-memory budget. None when any of that does not hold (``_inline_call`` serves them).

        It is the tool's ``__call__`` (``_take_fast_path``) and answers a valid call whose result
        passes the output check with no failure counted anywhere; a refused call it explains at
        once, and any other goes to the class's own ``__call__`` before the implementation runs or
        through ``_finish`` after (never running the implementation twice).
        ``tests/test_guard_fast_path.py`` proves both paths give the same envelope.
        """
        counts = self._local_counts
        input_numbers = self._compiled.input.number_names
        if self._hooks is not None or self._on_call is not None or input_numbers is None:
            return None
        if not self._inline or self._old_keys or self._depth_first or self._open_names is not None \
                or self._empty_rule is not None or counts is None or self._gate is not None:
            return None
        input_is_valid, output_is_valid = self._input_is_valid, self._output_is_valid
        build, implementation, output_plain = self._build_input, self.implementation, self._output_plain
        name, version = self.name, self.version
        settled_for, finish, refused = self._settled_for, self._finish, self._refused_call
        general = _public_class(type(self)).__call__  # every call the fast path does not answer
        output_numbers = self._compiled.output_numbers
        text_read = self._output_text_read
        echo_scrub = self._output_scrub
        numbers_checked = output_numbers == ()  # the fast validator pins every number the result holds
        if _call_log_memo is None:
            return None
        log_enabled, info = _call_log_memo.get, _CALL_LOG_LEVEL  # closure cells: cheaper than module globals
        listening = progress_listening
        plain = plain_json
        # copying a finished dict is about half the work of building one from a literal
        ok: dict[str, Any] = {"status": "ok", "tool": name, "version": version, "output": None, "empty": False}
        new_ok = ok.copy

        def fast(self: Any, arguments: Any, contract_version: str | None = None, session: str = "default",
                 call_id: str | None = None, caller: str | None = None) -> Envelope:
            # the call log needs the full path, and so does a progress listener (messages are scrubbed)
            if contract_version is not None or type(arguments) is not dict or log_enabled(info, True) \
                    or listening() is not None:
                return general(self, arguments, contract_version, session, call_id, caller)
            value: Any
            try:
                if not input_is_valid(arguments):
                    value = _INVALID
                # only these members can hide a too-long integer (most schemas name none, and
                # asking oversized_int_in about none cost 1% of a happy call)
                elif input_numbers and oversized_int_in(arguments, input_numbers) is not None:
                    value = NOT_STARTED
                else:
                    value = build(arguments)
            except _NEVER_SWALLOWED:
                raise
            except BaseException:  # noqa: BLE001 - the full path explains the problem
                value = NOT_STARTED
            if value is NOT_STARTED:
                return general(self, arguments, None, session, call_id, caller)
            if value is _INVALID:
                return finish(refused(arguments), session, 0.0, False)
            try:
                result = implementation(value)
            except BaseException as exc:  # noqa: BLE001 - becomes its envelope (or is re-raised there)
                return finish(settled_for(arguments, None, exc), session, 0.0, False)
            if type(result) is dict and not counts:
                # a result holding subclasses or tuples is copied on the settled path (reading one,
                # for the checks or later for the caller, may run the tool's code); plain_json is
                # in C where it was compiled, a tenth of this call's cost otherwise
                if not plain(result):
                    return finish(settled_for(arguments, result, None), session, 0.0, False)
                try:
                    if output_is_valid(result) \
                            and (text_read or (encodes(result) if output_plain else json_problem(result) is None)) \
                            and (numbers_checked or oversized_int_in(result, output_numbers) is None):
                        envelope = new_ok()
                        # judged as the tool wrote it, then without the secrets the call sent
                        envelope["output"] = result if echo_scrub is None else echo_scrub(arguments, result)
                        return envelope  # type: ignore[return-value]
                except ValueError:
                    pass
            return finish(settled_for(arguments, result, None), session, 0.0, False)

        return fast

    async def acall(self, arguments: Arguments, contract_version: str | None = None,
                    session: str = "default", call_id: str | None = None,
                    caller: str | None = None) -> Envelope[WireT]:
        if self.hooks is not None:
            try:
                return await self.hooks.acall(self, arguments, contract_version, session, call_id, caller)  # type: ignore[no-any-return]
            except _NEVER_SWALLOWED:
                raise
            except BaseException as exc:  # noqa: BLE001 - a failing hook (telemetry, breaker) is INTERNAL
                return self._finish(self._hooks_failed(exc, arguments), session, 0.0, False)
        observed = self.on_call is not None or call_logger.isEnabledFor(_CALL_LOG_LEVEL)
        start = time.perf_counter() if observed else 0.0
        envelope = await self.arun_checked(arguments, contract_version)
        return await self.afinish(envelope, session, start, observed)

    def run_checked(self, arguments: Any, contract_version: str | None) -> dict[str, Any]:
        """The call's envelope before the failure budget sees it."""
        token = _CALL.set((self, arguments))
        try:
            envelope = self._call_sync(arguments, contract_version)
            return envelope if self._open_names is None else self._with_notices(envelope, arguments)
        except _NEVER_SWALLOWED:
            raise
        except BaseException as exc:  # noqa: BLE001 - a defect in the guard itself still answers with an envelope
            return self._internal(exc, "guard")
        finally:
            _CALL.reset(token)

    async def arun_checked(self, arguments: Any, contract_version: str | None) -> dict[str, Any]:
        token = _CALL.set((self, arguments))
        try:
            envelope = await self._call_async(arguments, contract_version)
            return envelope if self._open_names is None else self._with_notices(envelope, arguments)
        except _NEVER_SWALLOWED:
            raise
        except BaseException as exc:  # noqa: BLE001
            return self._internal(exc, "guard")
        finally:
            _CALL.reset(token)

    async def afinish(self, envelope: dict[str, Any], session: str, start: float,
                      observed: bool) -> Envelope:
        """``_finish``, counting with the store's asyncio client when it has one."""
        if not hasattr(self.budget, "arecord_failure"):  # in-memory stores: nothing to await
            return self._finish(envelope, session, start, observed)
        key = self._keys.get(session) or self._key(session)
        counted = await count_async(self.budget, key, envelope, self._limit)
        return self._finish(envelope, session, start, observed, counted)

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

    def parse_output(self, envelope: OkEnvelope[WireT]) -> OutT:
        """The output model built from an ok envelope's ``output`` (which is its JSON form)."""
        if self.output_model is None:
            return cast(OutT, envelope["output"])
        return cast(OutT, _built_exactly(_model_builder(self.output_model), envelope["output"]))

    def __repr__(self) -> str:
        return f"<GuardedTool {self.name} {self.version}>"

    # -- the steps --------------------------------------------------------------------------
    def _prepare(self, arguments: Any, contract_version: str | None) -> tuple[dict[str, Any] | None, Any]:
        """(an early envelope, or None and the implementation's input). Arguments that raise when
        read (a mapping whose ``items`` raises, a list whose ``__len__`` does) are the caller's
        mistake: INVALID_ARGUMENT, not a defect of the guard."""
        try:
            return self._prepare_readable(arguments, contract_version)
        except _NEVER_SWALLOWED:
            raise
        except BaseException:
            if plain_json(arguments):
                raise  # plain JSON arguments: the guard's own defect, INTERNAL
            # the exception's text is the caller's object's: it may hold anything, so only its type
            logger.info("arguments of %s %s could not be read (%s)", self.name, self.version,
                        type(sys.exc_info()[1]).__name__)
            return self._invalid_arguments([unreadable_arguments()]), None

    def _prepare_readable(self, arguments: Any, contract_version: str | None) -> tuple[dict[str, Any] | None, Any]:
        if contract_version is not None or (self._old_keys and isinstance(arguments, dict)
                                            and not self._old_keys.isdisjoint(arguments)):
            mismatch = self._compiled.versions.check(arguments, contract_version)
            if mismatch is not None:
                return self._from_tool_error(mismatch), None
        # nesting past MAX_DEPTH would take a validator's stack: refused before any walks it
        deep = too_deep(arguments) if self._depth_first else None
        if deep is None:
            try:
                valid = self._input_is_valid(arguments)
            except ValueError:  # not plain JSON (tuples, mappings...): the careful path decides
                deep = too_deep(arguments)
                valid = deep is None and self._compiled.input.is_valid(arguments)
        if deep is not None:
            return self._invalid_arguments([nested_too_deep(deep)]), None
        if not valid:
            # subclasses of str, int or float are judged as their base; plain JSON (the usual bad
            # call) is neither copied nor checked twice
            plain = arguments if plain_json(arguments) else thaw(arguments)
            if plain is not arguments:
                valid = self._compiled.input.is_valid(plain)
        # the fast validator reads an integer too long for it as 0 (an invalid value's explanation
        # finds one anywhere)
        huge = oversized_int_in(arguments, self._compiled.input.number_names) if valid else None
        if huge is not None:
            return self._invalid_arguments([integer_too_long(huge)]), None
        if not valid:
            exact = value_key(arguments)  # the explanation's memo key, and the envelope's
            return self._invalid_arguments(*self._compiled.input.explain(arguments, key=exact), exact=exact), None
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

    def _call_sync(self, arguments: Any, contract_version: str | None) -> dict[str, Any]:
        early, value = self._prepare(arguments, contract_version)
        if early is not None:
            return early
        if self._inline:
            return self._run_validated(value)
        try:
            if self._timeout is None and not loop_running():
                result = run_here(self.implementation(value))
            else:
                submitted = self._submit(self._run_in_worker, value)
                if isinstance(submitted, dict):
                    return submitted
                future, slot = submitted
                try:
                    exc = future.exception(timeout=self._timeout)
                except FutureTimeout:  # only our wait timed out (the tool's own is in `exc`)
                    return self._timed_out(future, slot)
                if exc is not None:
                    raise exc
                result = future.result()
                if type(result) is _Settled:
                    return result.envelope
                if type(result) is Raised:  # raised on the worker: the tool's, whatever it is
                    return self._from_exception(result.exc)
                if result is DEADLINE_PASSED:  # the worker's own loop cancelled the coroutine first
                    return self._timeout_envelope()
        except asyncio.CancelledError as exc:
            return self._cancelled(exc)
        except (KeyboardInterrupt, SystemExit) as exc:
            return self._stopped(exc)
        except BaseException as exc:  # noqa: BLE001
            return self._from_exception(exc)
        return self._complete(result)

    def _run_validated(self, value: Any) -> dict[str, Any]:
        """Call a sync implementation inline on validated input and check its result."""
        try:
            result = self.implementation(value)
        except BaseException as exc:  # noqa: BLE001 - becomes its envelope (or is re-raised there)
            return self._settled(None, exc)
        return self._settled(result, None)

    def _settled_for(self, arguments: Any, result: Any, raised: BaseException | None) -> dict[str, Any]:
        """``_settled`` for the fast path, with the call's arguments known to the error steps."""
        token = _CALL.set((self, arguments))
        try:
            return self._settled(result, raised)
        finally:
            _CALL.reset(token)

    def _settled(self, result: Any, raised: BaseException | None) -> dict[str, Any]:
        """The envelope for what an inline call gave: its exception, or its result (awaited here
        when a plain function returned an awaitable). Only the process owner's stop and a real
        cancellation of the caller propagate; a defect in the guard itself is INTERNAL."""
        try:
            if raised is not None:
                raise raised
            result = stand_in(result)  # a __class__ property runs once, here (isawaitable asks it)
            if type(result) is not dict and inspect.isawaitable(result):
                result = settle_here(result)  # e.g. a lambda returning a coroutine
        except asyncio.CancelledError as exc:
            return self._cancelled(exc)
        except (KeyboardInterrupt, SystemExit) as exc:
            return self._stopped(exc)
        except BaseException as exc:  # noqa: BLE001 - becomes its envelope
            return self._from_exception(exc)
        try:
            if type(result) is dict and self._empty_rule is None and plain_json(result):
                try:
                    if self._output_is_valid(result) and (self._output_text_read or (
                            encodes(result) if self._output_plain else json_problem(result) is None)) \
                            and oversized_int_in(result, self._compiled.output_numbers) is None:
                        return {"status": "ok", "tool": self.name, "version": self.version,
                                "output": result if self._output_scrub is None else self._unechoed(result),
                                "empty": False}
                except ValueError:
                    pass
            return self._complete(result)
        except _NEVER_SWALLOWED:
            raise
        except BaseException as exc:  # noqa: BLE001 - a defect in the guard itself
            return self._internal(exc, "guard")

    def _settled_outcome(self, result: Any, raised: BaseException | None) -> dict[str, Any]:
        """``_settled`` for an outcome whose awaitables were already awaited (a result that is
        one is an invalid result, never run here)."""
        if raised is not None:
            return self._settled(None, raised)
        try:
            return self._complete(result)
        except _NEVER_SWALLOWED:
            raise
        except BaseException as exc:  # noqa: BLE001 - a defect in the guard itself
            return self._internal(exc, "guard")

    def _run_in_worker(self, value: Any) -> Any:
        awaitable = stand_in(self.implementation(value))
        if not self._is_async and not inspect.isawaitable(awaitable):
            return awaitable

        async def bounded() -> Any:  # in the worker, cancel the coroutine at the deadline too
            if self._timeout is None:
                return await awaitable
            result, expired = await with_deadline(awaitable, self._timeout)
            return DEADLINE_PASSED if expired else result

        return asyncio.run(bounded())

    async def _call_async(self, arguments: Any, contract_version: str | None) -> dict[str, Any]:
        try:
            big = larger_than(arguments, BIG_VALUE) or (
                # a heavy schema's explanation costs up to ~100 ms even for small arguments: only a
                # bad call pays it, and it pays on a worker thread
                self._compiled.input.member_cap < ITEM_CAP and not self._compiled.input.is_valid(arguments))
        except Exception:  # noqa: BLE001 - arguments that raise when read: _prepare answers for them
            big = False
        if big:  # checking and explaining it must not stall the loop
            early, value = await _off_loop(self._prepare, arguments, contract_version)
        else:
            early, value = self._prepare(arguments, contract_version)
        if early is not None:
            return early
        deadline = self._timeout
        began = time.monotonic()
        try:
            if self._is_async and not self.blocks_event_loop:
                if deadline is None:
                    result = await self.implementation(value)
                else:
                    started = time.monotonic()
                    coro = self.implementation(value)
                    # run to the first suspension: a coroutine that never waits needs no timer.
                    # Only where asyncio.timeout exists: the rest must then run in this same task
                    # (anyio cancel scopes, as in the MCP SDK, insist on it)
                    if self.capacity.held >= self.capacity.limit:
                        if inspect.iscoroutine(coro):
                            coro.close()
                        return self._busy_envelope(own=True)
                    started_here = inspect.iscoroutine(coro)
                    try:
                        first = coro.send(None) if started_here else NOT_STARTED
                    except StopIteration as done:
                        result = done.value
                        held = time.monotonic() - started
                        if held >= min(deadline, BLOCKING_STEP):
                            self._held_the_loop(held)
                            if held >= deadline:  # its result came after the deadline
                                return self._timeout_envelope()
                    else:
                        step = time.monotonic() - started
                        result, expired, left, longest = await within_deadline(
                            coro, first, max(deadline - step, 0.0), self._left_by_cancel)
                        if max(step, longest) >= min(deadline, BLOCKING_STEP):
                            self._held_the_loop(max(step, longest))
                        if expired:
                            return self._timed_out(left, self._hold(left))
            else:
                # sync code never blocks the event loop: it runs on a worker thread, and so does
                # async code that did (with an event loop of its own there)
                submitted = self._submit(self._run_in_worker if self._is_async or self.blocks_event_loop
                                         else self.implementation, value)
                if isinstance(submitted, dict):
                    return submitted
                thread_future, slot = submitted
                future = asyncio.wrap_future(thread_future)
                started = time.monotonic()
                if deadline is None:
                    result = await future
                else:
                    result, expired = await with_deadline(future, deadline)
                    if expired:
                        return self._timed_out(thread_future, slot)
                if type(result) is _Settled:
                    return result.envelope
                if type(result) is Raised:  # raised on the worker: the tool's, whatever it is
                    return self._from_exception(result.exc)
                if result is DEADLINE_PASSED:  # the worker's own loop cancelled the coroutine first
                    return self._timeout_envelope()
                if type(result) is not dict and inspect.isawaitable(result):
                    # a plain function that returned a coroutine (a lambda around an async call)
                    if deadline is None:
                        result = await result
                    else:
                        remaining = max(deadline - (time.monotonic() - started), 0.0)
                        result, expired, left, longest = await within_deadline(result, NOT_STARTED, remaining,
                                                                               self._left_by_cancel)
                        if longest >= min(deadline, BLOCKING_STEP):
                            self._held_the_loop(longest)
                        if expired:
                            return self._timed_out(left, self._hold(left))
        except BaseException as exc:  # noqa: BLE001 - the tool's outcome: its envelope (or re-raised there)
            if deadline is not None:
                return await self._settled_off_loop(MISSING, exc, deadline - (time.monotonic() - began))
            return self._tools_failure(exc)
        if deadline is not None:
            return await self._settled_off_loop(result, None, deadline - (time.monotonic() - began))
        return await self._completed_here(result)

    def _tools_failure(self, exc: BaseException) -> dict[str, Any]:
        """The envelope for what the tool's code raised, a stop or a cancellation of its own too
        (only the process owner's stop and a real cancellation of the caller propagate)."""
        if isinstance(exc, asyncio.CancelledError):
            return self._cancelled(exc)
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            return self._stopped(exc)
        return self._from_exception(exc)

    async def _completed_here(self, result: Any) -> dict[str, Any]:
        """The envelope for a result read on the caller's loop (a big one not pinned to plain JSON
        is checked on a worker thread, the loop left free)."""
        try:
            result = stand_in(result)
            big = not self._output_plain and larger_than(result, BIG_VALUE)  # else the fast check is Rust
        except BaseException as exc:  # noqa: BLE001 - reading it ran the tool's code (a __class__ property)
            return self._tools_failure(exc)
        if big:
            return await _off_loop(self._complete, result)
        return self._complete(result)

    def _complete(self, result: Any) -> dict[str, Any]:
        """The envelope for what the tool returned. Reading it runs the tool's own code (a mapping's
        ``items``, an instance's ``__class__`` property, which ``isinstance`` asks): what that
        raises is the tool's failure, a SystemExit too, as when the tool raises it (it escaped the
        guard from an async tool's result)."""
        try:
            return self._completed(stand_in(result))
        except BaseException as exc:  # noqa: BLE001 - becomes its envelope (or is re-raised there)
            return self._tools_failure(exc)

    def _completed(self, result: Any) -> dict[str, Any]:
        output = result
        # asked of the class: an instance's own __getattr__ (or __class__) is the tool's code, which
        # may raise or hang, and a model's model_dump is its class's
        is_model = type(result) is not dict and hasattr(type(result), "model_dump") and not issubclass(type(result), type)
        if is_model:
            endless = iterator_in(result)  # a field typed Any may hold one: dumping runs it to its end
            if endless is not None:
                where = cap_pointer(pointer(endless)) or "/"
                return self._invalid_output([f"{where}: an iterator, which JSON cannot carry"], None)
            try:
                # warnings=False: pydantic's serializer warning quotes a wrongly typed value (the
                # call's secret, say) on stderr or in the log; the output check reports it instead
                output = result.model_dump(mode="json", by_alias=True, exclude_unset=True, warnings=False)
            except Exception as exc:  # noqa: BLE001 - a model that cannot dump is an invalid result
                return self._invalid_output(["the result model could not be serialised"], exc)
        try:
            # subclasses and tuples are copied here, read through their base types: every check
            # below, and whoever prints or encodes the envelope later, reads exact JSON types only
            output = exact_json(output)
        except TooDeep as deep:
            where = cap_pointer(pointer(deep.path)) or "/"
            return self._invalid_output([f"{where}: {deep}, which JSON cannot carry"], None)
        except Exception as exc:  # noqa: BLE001 - a mapping whose own items() raises
            return self._invalid_output(["the result could not be read"], exc)
        walked = not self._output_plain or not encodes(output)  # a lone surrogate: the Rust encoder finds it
        problem = json_problem(output) if walked else None
        try:
            valid = problem is None and self._output_is_valid(output)
        except ValueError:
            valid = False
        numbers = self._compiled.output_numbers
        huge = oversized_int_in(output, numbers) if valid else oversized_int(output)
        if huge is not None:
            where = cap_pointer(pointer(huge)) or "/"
            text = f"{where}: an integer of more than {INT_DIGITS_CAP} digits, which this runtime cannot check or send"
            return self._invalid_output([text], None)
        if not valid and not walked:
            problem = json_problem(output)
        if problem is not None and problem.kind != "type":  # NaN, a non-string key, a cycle
            where = cap_pointer(pointer(problem.path)) or "/"
            return self._invalid_output([f"{where}: {problem.text}, which JSON cannot carry"], None)
        if not valid and is_model:
            # what the implementation set explicitly did not conform: try the model with its
            # defaults (a required field with a default), then without its None defaults
            for options in ({}, {"exclude_none": True}):
                try:
                    candidate = exact_json(result.model_dump(mode="json", by_alias=True, warnings=False,
                                                             **options))
                    if self._output_is_valid(candidate):
                        output, valid = candidate, True
                        break
                except Exception:  # noqa: BLE001, S112 - the first dump's violations are reported
                    continue
        if not valid:
            check = self._compiled.output
            # JSON already when no problem was found (a value of another type, a datetime, is
            # converted): converting it again walked it whole, 1.8 s of a 3 MB invalid result
            plain = output if problem is None else _jsonable(output)
            if plain is MISSING or not check.is_valid(plain):
                problems = [f"{v.field or '/'} {v.constraint}: {v.message}"
                            for v in check.violations(output if plain is MISSING else plain)[:10]]
                return self._invalid_output(problems, None)
            output = plain
        if self._output_scrub is not None:
            try:
                output = self._unechoed(output)
            except SecretsWithheld as withheld:
                return self._withheld_output(str(withheld))
        if self._empty_rule is None:
            return {"status": "ok", "tool": self.name, "version": self.version, "output": output,
                    "empty": False}
        return ok_envelope(self.contract, output)

    def _unechoed(self, output: Any) -> Any:
        """An accepted output without the secrets the call in progress sent (see scrub.output_scrub)."""
        arguments = _CALL.get((None, MISSING))[1]
        if arguments is MISSING or self._output_scrub is None:
            return output
        try:
            return self._output_scrub(arguments, output)
        except SecretsWithheld:
            raise  # the result is refused (_withheld_output); the fast path's ValueError hands it on
        except Exception:  # noqa: BLE001 - arguments that raise when read: nothing found in them
            return output

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

    def _from_tool_error(self, err: ToolError) -> dict[str, Any]:
        # the author's texts and numbers, read through their base types: a str subclass's own
        # __eq__ and __hash__ would pick the code, and its __str__ the message
        code, retry_after, action = thaw(err.code), thaw(err.retry_after), thaw(err.action)
        # texts that are no str (an object whose __str__ raises or lies, NaN) are dropped: nothing
        # of theirs runs, and the envelope stays JSON
        text, field = _author_text(err.message), _author_text(err.field)
        if type(code) is not str or code not in CODES:
            return self._internal(err, "undeclared code")
        message = CODES[code].meaning if text is None else text  # no text: what the code means
        partial = MISSING if err.partial_results is None else _jsonable(err.partial_results)
        upstream = MISSING if err.upstream is None else _jsonable(
            err.upstream.decode("utf-8", "replace") if isinstance(err.upstream, bytes) else err.upstream)
        versions: tuple[Any, ...] = ()
        if isinstance(err, VersionMismatchError):
            # at most MIGRATION_STEPS steps, read as text (an endless iterable set as migration hung)
            steps = [_author_text(step) for step in itertools.islice(iter(err.migration), MIGRATION_STEPS)]
            versions = (_author_text(err.expected_version), _author_text(err.received_version),
                        *(step for step in steps if step is not None))
        # the author's text may quote what the call sent: its secrets go before any cap cuts them
        scrub = self._secrets(message, field, partial, upstream, versions)
        optional: dict[str, Any] = {"field": scrub.text(field) if type(field) is str else field,
                                    "retry_after": retry_after}
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
        if versions:
            expected, received, *migration = versions
            # each step one capped line, scrubbed first (a cut never leaves a secret's start)
            optional.update(expected_version=scrub.text(expected) if expected is not None else None,
                            received_version=scrub.text(received) if received is not None else None,
                            migration=[cap_text(scrub.text(step)) for step in migration] or None)
        if code == "VERSION_MISMATCH" and not optional.get("expected_version"):
            optional["expected_version"] = self.contract.version
        # connection strings, credentials, private addresses, paths, stack lines: logged under a ref
        shown, ref = withhold_internals(scrub.text(message), self.name, self.version)
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

    def _invalid_output(self, problems: list[str], exc: BaseException | None) -> dict[str, Any]:
        _stage("output", "failed")
        ref = new_ref()
        scrub = self._secrets()
        logger.error("invalid result from %s %s ref=%s: %s", self.name, self.version, ref,
                     scrub.text("; ".join(problems)) or "unknown",
                     exc_info=loggable(exc, scrub) if exc is not None else None)
        code = self.invalid_output_code
        message, retryable, action = self._retry_policy(
            code, f"{self.name} produced an invalid result (it does not match its output schema; "
            f"reference {ref}); this is not caused by your arguments."
            + (" Do not retry; tell the user the tool failed." if CODES[code].action != "retry_later"
               else " Wait a moment and call again unchanged."), None, None)
        return error_envelope(self.contract, code, message, retryable=retryable, action=action, ref=ref)

    def _withheld_output(self, reason: str) -> dict[str, Any]:
        """The error for an ok result that cannot be shown: it may quote one of the call's secrets,
        and the call sent more than are looked for (``scrub.SecretsWithheld``)."""
        ref = new_ref()
        logger.error("result of %s %s withheld ref=%s: %s", self.name, self.version, ref, reason)
        message, retryable, action = self._retry_policy(
            self.invalid_output_code, f"{self.name} ran, but its result was withheld (reference {ref}): "
            f"{reason}. Do not retry; tell the user, and send at most {SECRETS_CAP} secret values in one "
            "call.", False, "stop_and_tell_user")
        return error_envelope(self.contract, self.invalid_output_code, message, retryable=retryable,
                              action=action, ref=ref)

    def _timeout_envelope(self) -> dict[str, Any]:
        seconds = self._timeout or 0
        message, retryable, action = self._retry_policy(
            "TIMEOUT", f"{self.name} did not finish within its {seconds:g} second deadline. Wait a "
            "moment, then call again unchanged.", None, None)
        return error_envelope(self.contract, "TIMEOUT", message, retryable=retryable, action=action,
                              retry_after=self.contract.retry.backoff.initial if retryable is None else None)

    def _cancelled(self, exc: asyncio.CancelledError) -> dict[str, Any]:
        """A real cancellation of the caller propagates; one the tool raised itself is its failure."""
        if cancelled_here():
            raise exc
        return self._from_exception(exc)

    def _held_the_loop(self, seconds: float) -> None:
        """The tool held the caller's event loop for ``seconds`` in one step, so no other call and
        no timer ran meanwhile: from now on its calls run on worker threads, each with an event
        loop of its own, where its deadline holds and it stalls nobody."""
        if not self.blocks_event_loop:
            self.blocks_event_loop = True
            logger.error("%s %s held the event loop for %.3fs in one step (deadline %gs): its calls "
                         "now run on worker threads with their own event loops; await instead of "
                         "blocking (asyncio.to_thread for sync work)", self.name, self.version,
                         seconds, self._timeout or 0)

    def _stopped(self, exc: KeyboardInterrupt | SystemExit) -> dict[str, Any]:
        """The process owner's stop propagates; a SystemExit or KeyboardInterrupt the tool raised
        itself (a wrapped CLI's ``sys.exit``) is its failure: a tool does not stop the process."""
        if owner_stop(exc):
            raise exc
        return self._from_exception(exc)

    def _hold(self, task: Any) -> Slot | None:
        """A slot held by an abandoned task until it ends."""
        if task is None:
            return None
        slot = self.capacity.hold()
        task.add_done_callback(slot.release)
        return slot

    def _left_by_cancel(self, task: Any) -> None:
        """The caller was cancelled (an MCP client cancelled its request) but the work swallowed
        the cancellation and runs on: it holds one of the tool's slots until it ends."""
        slot = self._hold(task)
        if slot is not None:
            slot.abandon()
        ref = new_ref()
        logger.warning("%s %s: a cancelled call's work ignored its cancellation; it goes on running, "
                       "abandoned, ref=%s", self.name, self.version, ref)
        self._log_when_ended(task, ref, "after its caller cancelled it")

    def _submit(self, fn: Callable[..., Any], value: Any) -> tuple[Any, Slot] | dict[str, Any]:
        """``fn(value)`` on a worker thread holding one of this tool's slots, settled there into its
        envelope (see ``_worked``), or the refusal."""
        slot = self.capacity.acquire()
        if slot is None:
            return self._busy_envelope(own=True)
        try:
            future = POOL.submit(boxed, self._worked, fn, value, slot, reserved=slot.first)
        except PoolBusy:
            slot.release()
            return self._busy_envelope(own=False)
        future.add_done_callback(slot.release)
        return future, slot

    def _worked(self, run: Callable[[Any], Any], value: Any, slot: Slot) -> Any:
        """On the worker: ``run(value)``, and what it returned or raised turned into its envelope
        there (``_Settled``). Reading what a tool gave (an exception's text, a model's serializer, a
        mapping's ``items``, a string's ``__str__``) runs the tool's code, which may hang: here the
        caller's deadline covers it. Left as it came: an awaitable a plain function returned (the
        caller's event loop awaits it), the worker loop's DEADLINE_PASSED, and the outcome of a
        call whose caller already has its TIMEOUT (only how it ended is logged)."""
        try:
            result = run(value)
        except BaseException as exc:  # settled below, or handed back as it came
            if slot.abandoned:
                raise
            return _Settled(self._settled(None, exc))
        result = stand_in(result)
        if slot.abandoned or result is DEADLINE_PASSED \
                or (type(result) is not dict and inspect.isawaitable(result)):
            return result
        return _Settled(self._settled(result, None))

    async def _settled_off_loop(self, result: Any, raised: BaseException | None,
                                remaining: float) -> dict[str, Any]:
        """The envelope for what an async call gave, within what is left of its deadline: an
        exception, or a result that may run its author's code when read (``settle_safety``), is read
        on a worker thread (that code may hang, and would hold the event loop). Which stop or
        cancellation is real is decided here, in the caller's task and thread; ``_settled`` decides
        the rest."""
        if raised is not None:
            if isinstance(raised, asyncio.CancelledError) and cancelled_here():
                raise raised
            if isinstance(raised, (KeyboardInterrupt, SystemExit)) and owner_stop(raised):
                raise raised
        elif reads_plainly(result):
            return await self._completed_here(result)
        slot = self.capacity.hold()
        thread_future = POOL.submit(boxed, self._settled_outcome, result, raised, reserved=True)
        thread_future.add_done_callback(slot.release)
        settled, expired = await with_deadline(asyncio.wrap_future(thread_future), max(remaining, 0.0))
        if expired:
            return self._timed_out(thread_future, slot)
        if type(settled) is Raised:  # the guard's own defect (the tool's outcome is settled)
            return self._internal(settled.exc, "guard")
        return settled  # type: ignore[no-any-return]

    def _busy_envelope(self, own: bool) -> dict[str, Any]:
        if own:  # this tool's own share is used up: it is the stuck one
            capacity = self.capacity
            logger.warning("%s %s is stuck: %d of its calls still running (%d past their deadline, "
                           "limit %d); refusing a call", self.name, self.version, capacity.held,
                           capacity.abandoned, capacity.limit)
            text = (f"{self.name} is not responding: {capacity.held} earlier calls of it are still "
                    "running. Wait a while, then call again unchanged.")
        else:
            logger.warning("worker pool full (%d threads); refusing a call of %s", POOL.live, self.name)
            text = (f"{self.name} is overloaded: too many earlier calls are still running. Wait a "
                    "while, then call again unchanged.")
        message, retryable, action = self._retry_policy("UNAVAILABLE", text, None, None)
        return error_envelope(self.contract, "UNAVAILABLE", message, retryable=retryable,
                              action=action)

    def _timed_out(self, work: Any, slot: Slot | None) -> dict[str, Any]:
        """TIMEOUT for the caller; work still running is left behind, logged under the ref."""
        envelope = self._timeout_envelope()
        if work is None or work.done():
            return envelope
        ref = new_ref()
        envelope["error"]["ref"] = ref
        if slot is not None:
            slot.abandon()
        logger.warning("%s %s passed its %gs deadline; the call goes on running, abandoned, "
                       "ref=%s", self.name, self.version, self._timeout or 0, ref)

        self._log_when_ended(work, ref, "after its deadline")
        return envelope

    def _log_when_ended(self, work: Any, ref: str, when: str) -> None:
        """One INFO line under ``ref`` when abandoned work ends, naming only how it ended. Its
        outcome is read here, so asyncio does not log the exception again ("Task exception was never
        retrieved", with its message, under no ref)."""
        def ended(done: Any) -> None:
            how = ""
            try:
                raised = None if done.cancelled() else done.exception()
                if raised is None and not done.cancelled() and type(done.result()) is Raised:
                    raised = done.result().exc
                how = " (cancelled)" if done.cancelled() else (
                    f" (raised {type(raised).__qualname__})" if raised is not None else "")
            except BaseException:  # noqa: BLE001, S110 - only the log line is at stake
                pass
            logger.info("abandoned call of %s ended %s%s, ref=%s", self.name, when, how, ref)

        work.add_done_callback(ended)

    def _key(self, session: str) -> str:
        if len(self._keys) > 4096:  # many sessions: keep the memo bounded
            self._keys.clear()
        key = self._keys[session] = budget_key(self.name, session)
        return key

    def _finish(self, envelope: dict[str, Any], session: str, start: float,
                observed: bool = True, counted: Any = COUNT_HERE) -> Envelope:
        limit = self._limit
        failures: int | None = None
        exhausted = False
        ref = None
        try:
            key = self._keys.get(session) or self._key(session)
            if isinstance(counted, BaseException):
                raise counted
            if envelope["status"] == "ok":
                if counted is COUNT_HERE:
                    self.budget.reset(key)
                code = "OK"
            else:
                error = envelope["error"]
                code, ref = error["code"], error.get("ref")
                if limit is not None and error["action"] == "retry_later":
                    failures = self.budget.record_failure(key) if counted is COUNT_HERE else counted
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
        except Exception as exc:  # noqa: BLE001 - a broken store must not turn into an exception for the model
            note_unreachable(envelope, self.name, limit, self.contract.state_unreachable, exc)
            code = envelope.get("error", {}).get("code", "OK")
        # the record is built only when someone can observe it (a hook or an enabled logger)
        if observed:
            record = CallRecord(self.name, self.version, code, time.perf_counter() - start, session,
                                ref, failures, limit, exhausted)
            emit(record, self.on_call)
        return cast("Envelope", envelope)  # every envelope above is built to the Envelope shape


async def _off_loop(fn: Callable[..., _T], *args: Any) -> _T:
    """``fn(*args)``, the guard's own bounded work, on a worker thread of the guard's pool. Not on
    asyncio's default executor: tools that park threads there (``asyncio.to_thread`` calls that
    never return) exhausted it, and healthy tools' big calls then waited forever."""
    return await asyncio.wrap_future(POOL.submit(fn, *args, reserved=True))


class _Settled:
    """An envelope a worker thread settled a call's outcome into (a tool's dict result may look
    like an envelope, so the two are told apart by type)."""

    __slots__ = ("envelope",)

    def __init__(self, envelope: dict[str, Any]) -> None:
        self.envelope = envelope


def _model_builder(model: Any) -> Callable[[Any], Any]:
    """The fastest way to build ``model`` from JSON arguments (pydantic's validator directly)."""
    if model is None:
        return lambda arguments: arguments
    validator = model.__dict__.get("__pydantic_validator__") if isinstance(model, type) else None
    if validator is not None and type(validator).__name__ == "SchemaValidator":
        return validator.validate_python  # type: ignore[no-any-return] # model_validate minus its wrapper
    return model.model_validate  # type: ignore[no-any-return]


def _public_class(cls: type[GuardedTool[Any, Any, Any]]) -> type[GuardedTool[Any, Any, Any]]:
    """``cls`` itself, or the class a tool's own class (``_take_fast_path``) stands for."""
    return cls.__bases__[0] if "_tool_id" in cls.__dict__ else cls


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


def _schema_node(schema: Any, loc: list[Any]) -> Any:
    nodes = [schema]
    for part in loc:
        nodes = [c for n in nodes for e in expand(n, schema) for c in child_nodes(e, str(part))]
        if not nodes:
            return None
    return nodes[0]


def guard(contract: Contract, implementation: SyncImplementation[InT, OutT] | AsyncImplementation[InT, OutT],
          *, input_model: type[InT] | None = None, output_model: type[OutT] | None = None,
          errors: Sequence[type[ToolError]] = (),
          state: BudgetStore | MutableMapping[str, Any] | None = None,
          on_call: Callable[[CallRecord], None] | None = None, description: str = "",
          mapper: Mapper | None = None, **options: Any) -> GuardedTool[InT, OutT, WireT]:
    """Put ``implementation`` behind the guard for ``contract``."""
    return GuardedTool(contract, implementation, input_model=input_model, output_model=output_model,
                       errors=errors, state=state, on_call=on_call, description=description,
                       mapper=mapper, **options)
