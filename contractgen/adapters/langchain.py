"""LangChain (``langchain-core`` 1.x): a ``BaseTool`` with the contract's schema, returning the envelope.

The schema is the contract's JSON schema, which LangChain advertises but never validates, so the
guard is the only gate. Arguments go to the guard positionally: a ``StructuredTool`` would silently
drop model arguments named ``config`` or ``run_manager``. Called with a tool call, the tool answers
a ``ToolMessage`` whose content is the envelope as JSON (``status="error"`` for error envelopes); with
plain arguments, the envelope dict. The budget session is ``config["configurable"]["session_id"]``
(or LangGraph's ``thread_id``); the caller the spans record is ``configurable["user_id"]``, the agent
named in ``metadata["lc_agent_name"]`` and that session. The tool never raises into LangChain
(``invoke`` would). LangChain's callbacks (``on_tool_start``: tracers, LangSmith) see the arguments
redacted.

A call the contract holds for a human's confirmation: langchain-core has no human-in-the-loop step
of its own, so in a plain tool loop the call answers CONFIRMATION_REQUIRED and the host, having asked
the user, calls again inside ``confirmed(tool, arguments)``. Run by LangGraph (a ``ToolNode`` in a
graph with a checkpointer), the tool pauses the graph with LangGraph's ``interrupt`` (the value says
what to confirm); resumed with ``Command(resume=True)`` (or ``{"confirmed": true}``) it runs, with
any other answer it answers CONFIRMATION_DENIED.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..runtime.install_hint import install_hint

try:
    from langchain_core.messages import ToolMessage
    from langchain_core.runnables import RunnableConfig
    from langchain_core.tools import BaseTool
    from pydantic import Field
except ImportError as exc:  # pragma: no cover - exercised only without the extra installed
    raise ImportError("contractgen.adapters.langchain needs langchain-core: "
                      f"{install_hint('langchain')}") from exc

from contractgen.runtime import GuardedTool
from contractgen.runtime.scrub import shown_arguments

from ._confirm import asks, call_answered, call_answered_sync, gate_of
from ._guarded import (
    caller_label,
    envelope_text,
    plain_schema,
    session_from,
)

__all__ = ["GuardedLangChainTool", "langchain_tool"]

#: characters of the arguments LangChain's callbacks are shown
CALLBACK_CAP = 2000


class GuardedLangChainTool(BaseTool):
    """A LangChain tool whose every call goes through a contractgen guard."""

    guarded: Any = Field(default=None, exclude=True)
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
        envelope = call_answered_sync(self.guarded, arguments, self._graph_answer(arguments),
                                      session=_session(config), call_id=call_id, caller=_caller(config))
        return _answer(envelope, call_id)

    async def _arun(self, arguments: Any, call_id: str | None, *, config: RunnableConfig,
                    **_: Any) -> Any:
        envelope = await call_answered(self.guarded, arguments, self._graph_answer(arguments),
                                       session=_session(config), call_id=call_id, caller=_caller(config))
        return _answer(envelope, call_id)

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


def langchain_tool(tool: GuardedTool[Any, Any]) -> GuardedLangChainTool:
    """The LangChain tool for a guarded tool."""
    return GuardedLangChainTool(name=tool.name, description=tool.description,
                                args_schema=plain_schema(tool.input_schema), guarded=tool, gate=gate_of(tool))


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
