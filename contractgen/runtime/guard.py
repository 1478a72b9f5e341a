"""The guard every tool call goes through: one pipeline of stages, decided per tool when it is built.

    admit     hooks (breaker, telemetry) around the whole call, when set           (hooks.py)
    arguments the call's private copy -> version -> input schema -> input model   (stage_arguments)
    run       inline, on a worker thread under the deadline, or awaited           (stage_run)
    settle    the result read once and bounded -> output schema (formats) ->      (stage_settle)
              the call's secrets scrubbed -> the empty rule; failures into their
              envelopes (typed, mapped, INTERNAL)                                 (stage_failures)
    account   the failure budget of the session -> the CallRecord                 (stage_account)

The pipeline is compiled per tool (``plan.py``): its source holds the stages the contract asks
for, and the step every call takes is a line there, not a method call; where a call leaves that
line, the stage that owns the outcome answers it with its own method. Sync calls, ``acall`` and
every adapter take this one path; what a tool's contract does not ask for (a deadline, secrets to
scrub, an empty rule, a budget, observers) it does not pay for. ``GuardedTool.plan`` names its
stages and ``GuardedTool.plan_source`` shows the code its calls run. A guarded call never raises,
except the process owner's stop (see ``interrupts.py``) and a real cancellation of the caller,
which are never swallowed.
"""

from __future__ import annotations

import functools
import time
import types
from collections.abc import Callable, MutableMapping, Sequence
from typing import Any, Generic, cast

from .argument_errors import ShapedErrors
from .budget import (
    BudgetStore,
    InMemoryBudgetStore,
    MappingBudgetStore,
    as_budget_store,
    store_window,
)
from .calls import _CALL_LOG_LEVEL, _NEVER_SWALLOWED, _call_log_enabled
from .capacity import Capacity
from .codes import CODES
from .confirmation import compile_gate
from .contract import Contract
from .deprecation_notice import compile_deprecation_notice
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
from .errors import ToolError
from .observe import CallRecord
from .plan import Compiled, compile_plan
from .result_rules import compile_result_rules
from .scrub import (
    output_scrub,
)
from .stage_account import AccountStage
from .stage_arguments import _built_exactly, _model_builder
from .stage_failures import Mapper
from .stage_run import _is_async
from .stage_state import compiled_for
from .transport import map_transport_error
from .visible import visible
from .wording import Violation


class GuardedTool(AccountStage, Generic[InT, OutT, WireT]):
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
        self._hooks = hooks
        self.name = contract.name
        self.version = contract.version
        # what the model reads of the tool: a hand-built contract's prose is not checked as a
        # manifest's is, so what no reader sees is taken out here (visible.py)
        self.description = visible(description or contract.description)
        # the guard treats results dynamically (a model, a dict, an awaitable): typed at the edges
        self.implementation: Callable[[InT], Any] = implementation
        self.input_model = input_model
        self.output_model = output_model
        self.errors: tuple[type[ToolError], ...] = tuple(errors)
        self.budget: BudgetStore = as_budget_store(state)
        #: a budget kept outside the process (Redis): its operations get a window in the deadline
        self._shared_store = not isinstance(self.budget, (InMemoryBudgetStore, MappingBudgetStore))
        #: a store with an asyncio client, which ``acall`` counts with (``afinish``)
        self._counts_async = hasattr(self.budget, "arecord_failure")
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
        self._keys: dict[str, str] = {}
        #: INVALID_ARGUMENT envelopes by the call or the explanation they were built from (see _invalid_arguments)
        self._argument_errors: dict[Any, tuple[list[Violation], int, dict[str, Any]]] = {}
        self._shaped_errors = ShapedErrors(contract)
        # bound once: the happy path calls these directly
        self._input_is_valid = self._compiled.input.bare_is_valid
        self._output_is_valid = self._compiled.output.bare_is_valid
        self._old_keys = self._compiled.versions.old_key_set
        self._empty_rule = contract.empty_result
        #: preconditions and confirmation (confirmation.py), None when the contract declares neither
        self._gate = compile_gate(contract, resources)
        #: the result rules' problems for an accepted output; None when the contract has none
        self._result_rules = compile_result_rules(contract)
        #: tells each session once that this version is deprecated; None when it is not
        self._deprecation_notice = compile_deprecation_notice(contract)
        self._open_names = self._compiled.input.open_names
        self._declared = frozenset(spec.class_name for spec in contract.errors)
        #: takes the call's secrets out of an ok output that echoes them; None where no call can carry one
        self._output_scrub = output_scrub(self._compiled.input.schema, resources, self._compiled.output.schema)
        #: worker threads and abandoned calls of this tool: a stuck tool exhausts only its own share
        self.capacity = Capacity(contract.name)
        #: set once an async implementation held the event loop in one step for its deadline (or
        #: BLOCKING_STEP): its calls then run on worker threads with their own event loops
        self.blocks_event_loop = False
        functools.update_wrapper(self, implementation, assigned=("__module__", "__name__",
                                                                 "__qualname__", "__doc__"),
                                 updated=())
        self._plan: Compiled | None = None
        self._call: Callable[..., Any] = self._compiled_call
        self._acall: Callable[..., Any] = self._compiled_acall

    # -- public surface ---------------------------------------------------------------------
    @property
    def plan(self) -> tuple[str, ...]:
        """The stages this tool's calls go through, in order: what its contract and options ask for."""
        run = "awaited" if self._is_async else "inline" if self._inline else "worker under deadline"
        steps = [("hooks", self._hooks is not None), ("private copy", True),
                 ("version", bool(self._old_keys)),
                 ("input schema", True), ("input model", self.input_model is not None),
                 ("preconditions and confirmation", self._gate is not None), (f"run {run}", True),
                 ("output schema", True), ("scrub secrets", self._output_scrub is not None),
                 ("empty rule", self._empty_rule is not None), ("result rules", self._result_rules is not None),
                 ("notices", self._open_names is not None), ("deprecation notice", self._deprecation_notice is not None),
                 ("budget", self._limit is not None), ("observers", self._on_call is not None)]
        return tuple(name for name, taken in steps if taken)

    @property
    def plan_source(self) -> str:
        """The Python source this tool's calls run (``plan.py``): its plan written out."""
        if self._plan is None:
            self._compile()
        return self._plan.source  # type: ignore[union-attr]

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
        return self._made_as(self.contract, implementation, input_model=self.input_model,
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
        self._recompile()

    @property
    def hooks(self) -> Any:
        """Around every call when set: breaker and telemetry (``contractgen.runtime.hooks.CallHooks``)."""
        return self._hooks

    @hooks.setter
    def hooks(self, value: Any) -> None:
        self._hooks = value
        self._recompile()

    # -- the call: the plan compiled for this tool (plan.py), or around it --------------------
    def _compile(self) -> None:
        """The call functions of this tool's plan (``plan.py``), made on its first call, and again
        after what they read changes (hooks, observers). Hooks and a store outside the process
        wrap the compiled ``checked``.

        The compiled ``call`` and ``acall`` become the methods of a class made for this tool, a
        subclass of the one it was made as (only where that class keeps GuardedTool's own
        ``__call__`` and ``acall``): ``tool(arguments)`` then runs its plan with no frame in between,
        a twentieth of a corpus tool's call, and ``acall`` with no coroutine in between."""
        compiled = self._plan = compile_plan(self)
        self.run_checked, self.arun_checked = compiled.checked, compiled.achecked  # type: ignore[assignment]
        made_as = self._made_as
        around = self._hooks is not None or self._shared_store
        self._call = self._call_around if around else types.MethodType(compiled.call, self)
        self._acall = self._acall_around if around else types.MethodType(compiled.acall, self)
        if around or made_as.__call__ is not GuardedTool.__call__ or made_as.acall is not GuardedTool.acall:
            self.__class__ = made_as
            return
        self.__class__ = type(made_as.__name__, (made_as,), {
            "__call__": compiled.call, "acall": compiled.acall, "_planned_from": made_as, "__slots__": (),
            "__module__": made_as.__module__, "__qualname__": made_as.__qualname__, "__doc__": made_as.__doc__})

    def _recompile(self) -> None:
        """Forget the compiled plan: the next call compiles it for the tool as it is now."""
        self.__class__ = self._made_as
        self._plan = None
        self.__dict__.pop("run_checked", None)
        self.__dict__.pop("arun_checked", None)
        self._call, self._acall = self._compiled_call, self._compiled_acall

    def _compiled_call(self, *arguments: Any) -> Any:
        self._compile()
        return self._call(*arguments)

    async def _compiled_acall(self, *arguments: Any) -> Any:
        self._compile()
        return await self._acall(*arguments)

    def run_checked(self, arguments: Any, contract_version: str | None) -> dict[str, Any]:
        """The call's envelope before the account stage (the plan's ``checked``; hooks wrap it)."""
        self._compile()
        return self.run_checked(arguments, contract_version)

    async def arun_checked(self, arguments: Any, contract_version: str | None) -> dict[str, Any]:
        self._compile()
        return await self.arun_checked(arguments, contract_version)

    @property
    def _made_as(self) -> type[GuardedTool[InT, OutT, WireT]]:
        """The class this tool was made as (not the one ``_compile`` made for its plan)."""
        return type(self).__dict__.get("_planned_from", type(self))  # type: ignore[no-any-return]

    # No ``*`` before the options: Python looks up each omitted keyword-only default by name in a
    # dict on every call. Pass them by keyword.
    def __call__(self, arguments: Arguments, contract_version: str | None = None,
                 session: str = "default", call_id: str | None = None,
                 caller: str | None = None) -> Envelope[WireT]:
        return self._call(arguments, contract_version, session, call_id, caller)  # type: ignore[no-any-return]

    async def acall(self, arguments: Arguments, contract_version: str | None = None,
                    session: str = "default", call_id: str | None = None,
                    caller: str | None = None) -> Envelope[WireT]:
        return await self._acall(arguments, contract_version, session, call_id, caller)  # type: ignore[no-any-return]

    def _call_around(self, arguments: Any, contract_version: str | None, session: str,
                     call_id: str | None, caller: str | None) -> Envelope[WireT]:
        """A call under hooks (breaker, telemetry), or whose budget lives outside the process."""
        if self._hooks is not None:
            try:
                return self._hooks.call(self, arguments, contract_version, session, call_id, caller)  # type: ignore[no-any-return]
            except _NEVER_SWALLOWED:
                raise
            except BaseException as exc:  # noqa: BLE001 - a failing hook (telemetry, breaker) is INTERNAL
                return self._finish(self._hooks_failed(exc, arguments), session, 0.0, False)
        observed = self._on_call is not None or _call_log_enabled(_CALL_LOG_LEVEL)
        start = time.perf_counter() if observed else 0.0
        with store_window(self._timeout):  # its operations live inside the call's deadline, as under CallHooks
            return self._finish(self.run_checked(arguments, contract_version), session, start, observed)

    async def _acall_around(self, arguments: Any, contract_version: str | None, session: str,
                            call_id: str | None, caller: str | None) -> Envelope[WireT]:
        if self._hooks is not None:
            try:
                return await self._hooks.acall(self, arguments, contract_version, session, call_id, caller)  # type: ignore[no-any-return]
            except _NEVER_SWALLOWED:
                raise
            except BaseException as exc:  # noqa: BLE001 - a failing hook (telemetry, breaker) is INTERNAL
                return self._finish(self._hooks_failed(exc, arguments), session, 0.0, False)
        observed = self._on_call is not None or _call_log_enabled(_CALL_LOG_LEVEL)
        start = time.perf_counter() if observed else 0.0
        with store_window(self._timeout):
            envelope = await self.arun_checked(arguments, contract_version)
            return await self.afinish(envelope, session, start, observed)

    def parse_output(self, envelope: OkEnvelope[WireT]) -> OutT:
        """The output model built from an ok envelope's ``output`` (which is its JSON form)."""
        if self.output_model is None:
            return cast(OutT, envelope["output"])
        return cast(OutT, _built_exactly(_model_builder(self.output_model), envelope["output"]))

    def __repr__(self) -> str:
        return f"<GuardedTool {self.name} {self.version}>"


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
