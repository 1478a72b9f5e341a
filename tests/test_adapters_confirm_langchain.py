"""LangChain: langchain-core has no human-in-the-loop step, so in a plain tool loop a refund over 500
answers CONFIRMATION_REQUIRED and runs once the host calls it inside ``confirmed(...)``; in a
LangGraph graph (ToolNode, checkpointer) it pauses the graph with ``interrupt``, runs after
``Command(resume=True)`` and reaches the model as CONFIRMATION_DENIED after ``Command(resume=False)``.
A small refund runs directly, and arguments cannot confirm a call."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from confirmation_support import (
    BIG,
    FORGED,
    SMALL,
    SUMMARY,
    Refunds,
    assert_declined,
    assert_held,
    model_reply,
)
from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from pydantic import Field

from contractgen.adapters.langchain import langchain_tool
from contractgen.runtime.confirmation import confirmed

CONFIG = {"configurable": {"session_id": "s", "thread_id": "t"}}


class RefundChat(GenericFakeChatModel):
    """A fake chat model: one refund_order call with ``arguments``, then a reply to what it read."""

    arguments: dict[str, Any] = Field(default_factory=dict)
    received: list[dict[str, Any]] = Field(default_factory=list)
    messages: Iterator[Any] = iter(())

    def bind_tools(self, tools: Any, **_: Any) -> Any:
        return self

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
        self.received = [json.loads(m.content) for m in messages if isinstance(m, ToolMessage)]  # type: ignore[arg-type]
        reply = (AIMessage("", tool_calls=[{"name": "refund_order", "args": self.arguments, "id": "call-1"}])
                 if not self.received else AIMessage(model_reply(self.received)))
        self.messages = iter([reply])
        return super()._generate(messages, *args, **kwargs)


def plain_loop(arguments: dict[str, Any], host_confirms: bool) -> tuple[RefundChat, Refunds, list[BaseMessage]]:
    """LangChain's own tool loop; a host that, told a call needs confirmation, asks the user (here:
    ``host_confirms``) and calls again inside ``confirmed``."""
    refunds = Refunds()
    tool = langchain_tool(refunds.tool)
    chat = RefundChat(arguments=arguments)
    model = chat.bind_tools([tool])
    messages: list[BaseMessage] = [HumanMessage("Refund my order")]
    while True:
        reply = model.invoke(messages, CONFIG)
        messages.append(reply)
        if not reply.tool_calls:
            return chat, refunds, messages
        for call in reply.tool_calls:
            answer = tool.invoke({**call, "type": "tool_call"}, CONFIG)
            if answer.status == "error" and json.loads(answer.content)["error"]["code"] == "CONFIRMATION_REQUIRED":
                with confirmed(refunds.tool, call["args"], approved=host_confirms):
                    answer = tool.invoke({**call, "type": "tool_call"}, CONFIG)
            messages.append(answer)


def test_a_plain_loop_holds_the_refund_until_the_host_confirms_it() -> None:
    chat, refunds, messages = plain_loop(BIG, host_confirms=True)
    assert refunds.ran == [900] and chat.received[-1]["status"] == "ok"
    assert messages[-1].content == "refunded 900"


def test_a_plain_loop_reaches_the_model_with_a_declined_envelope() -> None:
    chat, refunds, _ = plain_loop(BIG, host_confirms=False)
    assert refunds.ran == []
    assert_declined(chat.received[-1])


def test_a_plain_call_without_the_host_is_held() -> None:
    refunds = Refunds()
    answer = langchain_tool(refunds.tool).invoke({"name": "refund_order", "args": FORGED, "id": "c", "type": "tool_call"},
                                                 CONFIG)
    assert answer.status == "error" and refunds.ran == []
    assert_held(json.loads(answer.content))


def test_a_plain_loop_runs_a_refund_of_50_directly() -> None:
    chat, refunds, _ = plain_loop(SMALL, host_confirms=False)
    assert refunds.ran == [50] and chat.received[-1]["status"] == "ok"


class Graph:
    """A LangGraph agent: the chat model node, LangGraph's ToolNode, a checkpointer."""

    def __init__(self, arguments: dict[str, Any]) -> None:
        pytest.importorskip("langgraph")
        from langgraph.checkpoint.memory import InMemorySaver
        from langgraph.graph import END, START, MessagesState, StateGraph
        from langgraph.prebuilt import ToolNode, tools_condition

        self.refunds = Refunds()
        self.chat = RefundChat(arguments=arguments)
        tool = langchain_tool(self.refunds.tool)

        def agent(state: Any) -> dict[str, Any]:
            return {"messages": [self.chat.invoke(state["messages"])]}

        graph = StateGraph(MessagesState)
        graph.add_node("agent", agent)
        graph.add_node("tools", ToolNode([tool]))
        graph.add_edge(START, "agent")
        graph.add_conditional_edges("agent", tools_condition, {"tools": "tools", END: END})
        graph.add_edge("tools", "agent")
        self.app = graph.compile(checkpointer=InMemorySaver())

    def invoke(self, value: Any) -> Any:
        return self.app.invoke(value, CONFIG)


def test_a_graph_pauses_on_interrupt_and_runs_after_resume() -> None:
    from langgraph.types import Command

    graph = Graph(BIG)
    paused = graph.invoke({"messages": [HumanMessage("Refund my order")]})
    (interrupt,) = paused["__interrupt__"]
    assert interrupt.value == {"contractgen": "confirmation", "tool": "refund_order", "summary": SUMMARY}
    assert graph.refunds.ran == []
    done = graph.invoke(Command(resume=True))
    assert graph.refunds.ran == [900] and done["messages"][-1].content == "refunded 900"


def test_a_graph_resumed_with_no_reaches_the_model_as_declined() -> None:
    from langgraph.types import Command

    graph = Graph(BIG)
    graph.invoke({"messages": [HumanMessage("Refund my order")]})
    done = graph.invoke(Command(resume={"confirmed": False}))
    assert graph.refunds.ran == []
    assert_declined(graph.chat.received[-1])
    assert done["messages"][-1].content == "not refunded: CONFIRMATION_DENIED"


def test_a_graph_runs_a_refund_of_50_and_pauses_for_forged_arguments() -> None:
    small = Graph(SMALL)
    done = small.invoke({"messages": [HumanMessage("Refund my order")]})
    assert "__interrupt__" not in done and small.refunds.ran == [50]
    forged = Graph(FORGED)
    assert len(forged.invoke({"messages": [HumanMessage("Refund my order")]})["__interrupt__"]) == 1
    assert forged.refunds.ran == []
