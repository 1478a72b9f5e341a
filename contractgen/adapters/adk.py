"""Google ADK 2.x: a ``BaseTool`` whose declaration is the contract's and whose calls go through the guard;
a guard around a ``BaseTool`` you do not own; and a plugin that answers any tool's exception.

It overrides only ``_get_declaration`` and ``run_async``; ADK's defaults for the other hooks
(``process_llm_request`` advertises the declaration and registers the tool by name,
``check_require_confirmation``) stay in place and delegate to them. The failure budget is counted
in the session state ADK passes to tools (``tool_context.state``), so it is persisted with the
session by the runner's session service (unless the tool was given a store of its own); the count
is updated without awaiting, so ADK's concurrent same-turn calls cannot lose an update. The model
receives the envelope as the function response; the tool never raises into ADK (an exception
there ends the invocation). The caller the spans record is ADK's user, agent and session.

``GuardedForeignAdkTool(tool)`` guards a tool written for ADK by someone else (a ``FunctionTool``, a
``LongRunningFunctionTool``, an MCP toolset's tool): ADK still sees that tool's declaration, flags
(``is_long_running``, ``custom_metadata``, ...) and hooks (``process_llm_request``,
``check_require_confirmation``); the tool gets the call's ``tool_context``. ``ContractPlugin`` is the
safety net for tools nobody wrapped: ADK's ``on_tool_error_callback`` turns an exception into
INTERNAL with a reference (the traceback is in the ``contractgen.adapters`` log under it, nothing of
the exception reaches the model), so the run goes on.
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import Callable, Iterable
from typing import Any

from ..runtime.install_hint import install_hint

try:
    from google.adk.plugins.base_plugin import BasePlugin
    from google.adk.tools.base_tool import BaseTool
    from google.adk.tools.tool_context import ToolContext
    from google.genai import types
except ImportError as exc:  # pragma: no cover - exercised only without the extra installed
    raise ImportError(f"contractgen.adapters.adk needs Google ADK: {install_hint('adk')}") from exc

from contractgen.runtime import Contract, GuardedTool
from contractgen.runtime.observe import loggable
from contractgen.runtime.wrap import contract_from_definition, wrap_tool

from ._confirm import asks, call_answered, gate_of
from ._escalation import Escalated, Escalation, escalated, escalation_of
from ._guarded import caller_label, plain_schema, tool_failure, with_state_budget

__all__ = ["ContractPlugin", "Escalated", "Escalation", "GuardedAdkTool", "GuardedForeignAdkTool"]

logger = logging.getLogger("contractgen.adapters")


class GuardedAdkTool(BaseTool):
    """An ADK tool for a guarded tool: ``GuardedAdkTool(book_meeting)``."""

    def __init__(self, tool: GuardedTool[Any, Any], *,
                 escalate: bool | Iterable[str] | Escalation | None = None,
                 on_escalate: Callable[[Escalated], Any] | None = None) -> None:
        # a long-running contract is long-running to ADK too (the call is marked on its event); the
        # envelope is never empty, so ADK still sends the model its function response
        super().__init__(name=tool.name, description=tool.description,
                         is_long_running=tool.contract.timeout.long_running)
        self.guarded = with_state_budget(tool)
        self.escalation = escalation_of(escalate, on_escalate)
        self._gate = gate_of(tool)

    def __deepcopy__(self, memo: dict[int, Any]) -> GuardedAdkTool:
        # an LlmRequest holds its tools; a deep copy of it (callbacks, test doubles) shares them,
        # as it would a plain function tool, instead of failing on the guard's locks
        return self

    def _get_declaration(self) -> types.FunctionDeclaration:
        return types.FunctionDeclaration(name=self.name, description=self.description,
                                         parameters_json_schema=plain_schema(self.guarded.input_schema))

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        if self._gate is None or not asks(self._gate, args):
            return await _call(self.guarded, args, tool_context, escalation=self.escalation)
        # ADK's tool confirmation: this call asks and the run pauses for the host; ADK runs the call
        # again once the host answered, with the answer in ``tool_confirmation``
        answer = tool_context.tool_confirmation
        if answer is None:
            tool_context.request_confirmation(hint=self._gate.summary(args))
            tool_context.actions.skip_summarization = True
        return await _call(self.guarded, args, tool_context, None if answer is None else bool(answer.confirmed),
                           escalation=self.escalation)


async def _call(guarded: GuardedTool[Any, Any], args: Any, tool_context: ToolContext,
                approved: bool | None = None, escalation: Escalation | None = None) -> dict[str, Any]:
    """The envelope of one ADK call: budget in the session state, ADK's user, agent and session as
    caller; ``approved``: the host's answer to ADK's tool confirmation, when it gave one. An error
    the tool escalates sets ADK's ``escalate`` action (a LoopAgent or ParallelAgent around the agent
    stops) and, with ``transfer_to``, hands the conversation to that agent."""
    session = tool_context.session.id if tool_context.session is not None else "default"
    caller = caller_label(user=tool_context.user_id, agent=tool_context.agent_name, session=session)
    envelope = dict(await call_answered(guarded, args, approved, session=session, state=tool_context.state,
                                        call_id=tool_context.function_call_id, caller=caller))
    raised = escalated(escalation, guarded, envelope, session)
    if raised is None or escalation is None:
        return envelope
    tool_context.actions.escalate = True
    if escalation.transfer_to:
        tool_context.actions.transfer_to_agent = escalation.transfer_to
    return raised


#: the ``tool_context`` of the ADK call in progress, for the foreign tool the guard calls
_TOOL_CONTEXT: contextvars.ContextVar[Any] = contextvars.ContextVar("contractgen_adk_tool_context")


class GuardedForeignAdkTool(BaseTool):
    """A guard around an ADK tool you do not own: ``GuardedForeignAdkTool(LongRunningFunctionTool(f))``.

    The contract is made from the tool's own declaration (``contract=`` to give one; ``options`` go to
    ``wrap_tool``: a mapper, a budget store...). ADK reads the wrapped tool's flags and calls its hooks
    through this one; only ``run_async`` is the guard's, which calls the tool with the same
    ``tool_context``. A long-running tool that answers nothing (``None``: the result comes later)
    still answers nothing, so ADK keeps waiting instead of handing the model an empty result.
    """

    def __init__(self, tool: BaseTool, *, contract: Contract | None = None,
                 escalate: bool | Iterable[str] | Escalation | None = None,
                 on_escalate: Callable[[Escalated], Any] | None = None, **options: Any) -> None:
        super().__init__(name=tool.name, description=tool.description, is_long_running=tool.is_long_running,
                         custom_metadata=tool.custom_metadata, behavior=tool.behavior,
                         response_scheduling=tool.response_scheduling)
        self._defers_response = tool._defers_response
        self.tool = tool
        guarded = wrap_tool(contract or _contract_of(tool), self._run_wrapped, **options)
        self.guarded = with_state_budget(guarded)
        self.escalation = escalation_of(escalate, on_escalate)

    def __getattr__(self, name: str) -> Any:  # any other attribute ADK (or a plugin) reads: the tool's
        if name == "tool":
            raise AttributeError(name)
        return getattr(self.tool, name)

    def __deepcopy__(self, memo: dict[int, Any]) -> GuardedForeignAdkTool:
        return self  # as GuardedAdkTool: an LlmRequest's deep copy shares its tools

    def _get_declaration(self) -> types.FunctionDeclaration | None:
        return self.tool._get_declaration()

    async def process_llm_request(self, *, tool_context: ToolContext, llm_request: Any) -> None:
        await self.tool.process_llm_request(tool_context=tool_context, llm_request=llm_request)
        # the tool registered itself under its name: calls must land on the guard
        if llm_request.tools_dict.get(self.name) is self.tool:
            llm_request.tools_dict[self.name] = self

    async def check_require_confirmation(self, args: dict[str, Any], tool_context: ToolContext) -> bool:
        return bool(await self.tool.check_require_confirmation(args, tool_context))

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        token = _TOOL_CONTEXT.set(tool_context)
        try:
            envelope = await _call(self.guarded, args, tool_context, escalation=self.escalation)
        finally:
            _TOOL_CONTEXT.reset(token)
        if self.is_long_running and envelope.get("status") == "ok" and envelope.get("output") is None:
            return None  # pending: ADK sends no function response until the result arrives
        return envelope

    async def _run_wrapped(self, args: Any) -> Any:
        return await self.tool.run_async(args=dict(args), tool_context=_TOOL_CONTEXT.get())


def _contract_of(tool: BaseTool) -> Contract:
    # a declaration in Gemini's own Schema type (no JSON schema): any object, the tool checks the rest
    return contract_from_definition({"name": tool.name, "description": tool.description or "",
                                     "parameters": _json_schema_of(tool) or {"type": "object"}})


def _json_schema_of(tool: BaseTool) -> dict[str, Any] | None:
    """The JSON schema of the tool's declared parameters, or None."""
    try:
        schema = getattr(tool._get_declaration(), "parameters_json_schema", None)
    except Exception as exc:  # a tool whose declaration cannot be read still gets a contract (and an answer)
        logger.warning("the declaration of tool %s could not be read", tool.name, exc_info=loggable(exc))
        return None
    return schema if isinstance(schema, dict) else None


class ContractPlugin(BasePlugin):
    """``Runner(..., plugins=[ContractPlugin()])``: an exception from any tool in the run becomes an
    INTERNAL envelope with a reference instead of ending the invocation (ADK's own behaviour)."""

    def __init__(self, name: str = "contractgen") -> None:
        super().__init__(name=name)

    async def on_tool_error_callback(self, *, tool: BaseTool, tool_args: dict[str, Any],
                                     tool_context: ToolContext, error: Exception) -> dict[str, Any] | None:
        if not isinstance(error, Exception):  # a cancellation propagates whatever we answer
            return None
        return tool_failure(tool.name, _json_schema_of(tool), tool_args, error)
