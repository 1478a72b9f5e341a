"""LangChain (``langchain-core`` 1.x): a ``BaseTool`` with the contract's schema, returning the envelope.

The schema is the contract's JSON schema, which LangChain advertises but never validates, so the
guard is the only gate. Arguments go to the guard positionally: a ``StructuredTool`` would silently
drop model arguments named ``config`` or ``run_manager``. Called with a tool call, the tool answers
a ``ToolMessage`` whose content is the envelope as JSON (``status="error"`` for error envelopes); with
plain arguments, the envelope dict. The budget session is ``config["configurable"]["session_id"]``
(or LangGraph's ``thread_id``); the caller the spans record is ``configurable["user_id"]``, the agent
named in ``metadata["lc_agent_name"]`` and that session. The tool never raises into LangChain
(``invoke`` would). LangChain's callbacks (``on_tool_start``: tracers, LangSmith) see the arguments
redacted. A backstop for tools nobody wrapped: LangGraph's ``ToolNode`` tool-call hook
(``contract_tool_call``); langchain-core alone has no hook that can answer for an exception.

A call the contract holds for a human's confirmation: langchain-core has no human-in-the-loop step
of its own, so in a plain tool loop the call answers CONFIRMATION_REQUIRED and the host, having asked
the user, calls again inside ``confirmed(tool, arguments)``. Run by LangGraph (a ``ToolNode`` in a
graph with a checkpointer), the tool pauses the graph with LangGraph's ``interrupt`` (the value says
what to confirm); resumed with ``Command(resume=True)`` (or ``{"confirmed": true}``) it runs, with
any other answer it answers CONFIRMATION_DENIED.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any

from ..runtime.install_hint import install_hint

try:
    from langchain_core.messages import ToolMessage
    from langchain_core.runnables import RunnableConfig
    from langchain_core.tools import BaseTool
    from langchain_core.utils.function_calling import convert_to_openai_tool
    from pydantic import Field
except ImportError as exc:  # pragma: no cover - exercised only without the extra installed
    raise ImportError("contractgen.adapters.langchain needs langchain-core: "
                      f"{install_hint('langchain')}") from exc

from contractgen.runtime import GuardedTool
from contractgen.runtime.scrub import shown_arguments

from ._confirm import asks, call_answered, call_answered_sync, gate_of
from ._escalation import Escalated, Escalation, escalated, escalation_of
from ._guarded import (
    caller_label,
    envelope_text,
    plain_schema,
    session_from,
    tool_failure,
)

__all__ = ["Escalated", "Escalation", "GuardedLangChainTool", "acontract_tool_call", "contract_failure",
           "contract_tool_call", "langchain_tool"]

#: characters of the arguments LangChain's callbacks are shown
CALLBACK_CAP = 2000


class GuardedLangChainTool(BaseTool):
    """A LangChain tool whose every call goes through a contractgen guard."""

    guarded: Any = Field(default=None, exclude=True)
    #: which escalate errors tell a human (LangChain has no escalation of its own to trigger)
    escalation: Any = Field(default=None, exclude=True)
    #: the contract's confirmation rule (runtime/confirmation.py), None without one
    gate: Any = Field(default=None, exclude=True)

    def run(self, tool_input: Any, *args: Any, **kwargs: Any) -> Any:
        return super().run(_NotAnObject.around(tool_input), *args, **kwargs)

    async def arun(self, tool_input: Any, *args: Any, **kwargs: Any) -> Any:
        return await super().arun(_NotAnObject.around(tool_input), *args, **kwargs)

    def _to_args_and_kwargs(self, tool_input: Any, tool_call_id: str | None,
                            ) -> tuple[tuple[Any, ...], dict[str, Any]]:
        if type(tool_input) is _NotAnObject:
            arguments = tool_input.value  # the guard judges what was sent, as it was sent
        else:
            arguments = dict(tool_input) if isinstance(tool_input, dict) else tool_input
        return (arguments, tool_call_id), {}

    def _run(self, arguments: Any, call_id: str | None, *, config: RunnableConfig,
             **_: Any) -> Any:
        session = _session(config)
        envelope = call_answered_sync(self.guarded, arguments, self._graph_answer(arguments),
                                      session=session, call_id=call_id, caller=_caller(config))
        return _answer(escalated(self.escalation, self.guarded, envelope, session) or envelope, call_id)

    async def _arun(self, arguments: Any, call_id: str | None, *, config: RunnableConfig,
                    **_: Any) -> Any:
        session = _session(config)
        envelope = await call_answered(self.guarded, arguments, self._graph_answer(arguments),
                                       session=session, call_id=call_id, caller=_caller(config))
        return _answer(escalated(self.escalation, self.guarded, envelope, session) or envelope, call_id)

    def _graph_answer(self, arguments: Any) -> bool | None:
        """The human's answer through LangGraph's ``interrupt`` when a graph runs this call and the
        guard would hold it; None otherwise (the guard then answers CONFIRMATION_REQUIRED)."""
        if not asks(self.gate, arguments):
            return None
        try:
            from langgraph.types import interrupt
        except ImportError:
            return None
        try:
            answer = interrupt({"contractgen": "confirmation", "tool": self.name,
                                "summary": self.gate.summary(arguments)})
        except (KeyError, RuntimeError):  # not run by a LangGraph graph: no run state to pause
            return None
        return answer is True or (isinstance(answer, Mapping) and answer.get("confirmed") is True)

    def _filter_injected_args(self, tool_input: dict[str, Any]) -> dict[str, Any]:
        """What LangChain hands the callbacks (``on_tool_start``: tracers, LangSmith) of the call's
        arguments, which the call itself never reads: redacted, as the guard's telemetry records them."""
        if type(tool_input) is _NotAnObject:
            return {"arguments": tool_input.shown(self.guarded)}
        shown = shown_arguments(self.guarded, tool_input, CALLBACK_CAP)
        return shown if isinstance(shown, dict) else {"arguments": shown}


class _NotAnObject(dict):  # type: ignore[type-arg]
    """A tool input that is no dict (a JSON text, as text agents send it; a list; plain text),
    carried through ``BaseTool.run`` as an empty dict: LangChain hands a dict to the callbacks
    through ``_filter_injected_args`` (redacted there), anything else to them raw, secrets included."""

    def __init__(self, value: Any) -> None:
        super().__init__()
        self.value = value

    @classmethod
    def around(cls, tool_input: Any) -> Any:
        return tool_input if isinstance(tool_input, dict) else cls(tool_input)

    def shown(self, tool: Any) -> Any:
        """A JSON object's text is shown as that object, redacted; anything else only by its kind
        (it cannot be matched to the schema's sensitive positions, so none of it is shown)."""
        value = self.value
        if isinstance(value, str):
            try:
                parsed = json.loads(value)
            except ValueError:
                parsed = None
            if isinstance(parsed, dict):
                return shown_arguments(tool, parsed, CALLBACK_CAP)
            return f"[text of {len(value)} characters, not a JSON object: not shown]"
        return f"[{type(value).__name__}, not an object: not shown]"


def langchain_tool(tool: GuardedTool[Any, Any], *,
                   escalate: bool | Iterable[str] | Escalation | None = None,
                   on_escalate: Callable[[Escalated], Any] | None = None) -> GuardedLangChainTool:
    """The LangChain tool for a guarded tool. ``escalate`` (True, or the codes) with ``on_escalate``:
    an error whose action is escalate tells a human (LangChain has no escalation to trigger)."""
    return GuardedLangChainTool(name=tool.name, description=tool.description,
                                args_schema=plain_schema(tool.input_schema), guarded=tool,
                                escalation=escalation_of(escalate, on_escalate), gate=gate_of(tool))


def _session(config: RunnableConfig | None) -> str:
    configurable = (config or {}).get("configurable") or {}
    named = session_from(configurable, "session_id", "thread_id")
    return "session:" + named if named is not None else "default"


def _caller(config: RunnableConfig | None) -> str | None:
    configurable = (config or {}).get("configurable") or {}
    metadata = (config or {}).get("metadata") or {}
    return caller_label(user=session_from(configurable, "user_id"),
                        agent=session_from(metadata, "lc_agent_name"),
                        session=session_from(configurable, "session_id", "thread_id"))


def _answer(envelope: Mapping[str, Any], call_id: str | None) -> Any:
    if call_id is None:
        return envelope
    return ToolMessage(envelope_text(envelope), tool_call_id=call_id,
                       status="success" if envelope["status"] == "ok" else "error")


def contract_tool_call(request: Any, execute: Callable[[Any], Any]) -> Any:
    """LangGraph's ``ToolNode(tools, wrap_tool_call=contract_tool_call,
    awrap_tool_call=acontract_tool_call)``: a tool of the node that raises answers an INTERNAL
    envelope with a reference (``contract_failure``), where ToolNode's default ends the run and
    ``handle_tool_errors=True`` hands the model the exception's text. What ToolNode answers itself
    (invalid arguments) and LangGraph's control flow (``interrupt()``, a ``Command`` to the parent
    graph, a resume the model cannot fix) pass."""
    try:
        return execute(request)
    except Exception as exc:
        if _langgraph_control(exc):
            raise
        return contract_failure(request.tool_call, exc, request.tool)


async def acontract_tool_call(request: Any, execute: Callable[[Any], Awaitable[Any]]) -> Any:
    """``contract_tool_call`` for ToolNode's async path (``ainvoke``, ``astream``)."""
    try:
        return await execute(request)
    except Exception as exc:
        if _langgraph_control(exc):
            raise
        return contract_failure(request.tool_call, exc, request.tool)


def contract_failure(call: Mapping[str, Any], exc: BaseException, tool: BaseTool | None = None) -> ToolMessage:
    """The ``ToolMessage`` (``status="error"``) answering a tool call whose tool raised ``exc``:
    INTERNAL with a reference and nothing of the exception; the traceback goes to the
    ``contractgen.adapters`` log under the reference, with what the call sent at ``tool``'s
    sensitive positions scrubbed. For a loop of your own: ``except Exception as exc:``."""
    name = str(call.get("name") or "tool")
    envelope = tool_failure(name, _parameters(tool), call.get("args"), exc)
    return ToolMessage(envelope_text(envelope), tool_call_id=str(call.get("id") or ""), name=name,
                       status="error")


def _parameters(tool: BaseTool | None) -> Any:
    """The JSON schema LangChain sends the model for ``tool``'s arguments, or None."""
    if tool is None:
        return None
    try:
        return convert_to_openai_tool(tool)["function"].get("parameters")
    except Exception:  # noqa: BLE001 - a tool whose schema cannot be read is scrubbed as a bare object
        return None


def _langgraph_control(exc: BaseException) -> bool:
    """An exception LangGraph raises through a tool on purpose: ``GraphBubbleUp`` (an interrupt, a
    ``Command`` for the parent graph) or an invalid resume value (ToolNode re-raises both)."""
    from langgraph.errors import GraphBubbleUp

    try:
        from langgraph.errors import is_invalid_resume
    except ImportError:  # a LangGraph older than resume schemas
        return isinstance(exc, GraphBubbleUp)
    return isinstance(exc, GraphBubbleUp) or is_invalid_resume(exc)
