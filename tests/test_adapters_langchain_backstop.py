"""LangChain's backstop for tools nobody wrapped, where the hook is: LangGraph's ``ToolNode`` tool-call
wrapper (``contract_tool_call`` / ``acontract_tool_call``). In LangGraph's own loop (a model node, a
ToolNode, ``tools_condition``) with a scripted chat model, a plain LangChain tool that raises answers
INTERNAL with a reference and nothing of the exception, and the run goes on; without it, ToolNode's
default ends the run and ``handle_tool_errors=True`` hands the model the exception's text. What
ToolNode answers itself (invalid arguments) and an ``interrupt()`` pass. langchain-core alone has no
such hook (see docs/adapters/langchain.md): there, ``contract_failure`` answers in a loop of your own."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.types import Command, interrupt
from pydantic import Field

from contractgen.adapters.langchain import acontract_tool_call, contract_failure, contract_tool_call

SQL = "syntax error near 'SELECT * FROM orders WHERE customer = 'bob''"


@tool
def lookup_orders(customer: str) -> str:
    """Look up a customer's orders."""
    raise RuntimeError(SQL)


@tool
def sign_in(user: str, password: str) -> str:
    """Sign a user in (the password is the tool's secret argument)."""
    raise ConnectionResetError(f"login for {user} with {password} was reset")


@tool
def approve(amount: int) -> str:
    """Asks a human before approving a payment."""
    return "approved" if interrupt({"amount": amount}) == "yes" else "declined"


class ScriptedChat(GenericFakeChatModel):
    """A chat model that binds tools like a real one and makes the calls it is given, one a turn."""

    calls: list[dict[str, Any]] = Field(default_factory=list)
    seen: list[list[BaseMessage]] = Field(default_factory=list)
    messages: Iterator[Any] = iter(())

    def bind_tools(self, tools: Any, **_: Any) -> Any:
        return self

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
        self.seen.append(list(messages))
        made = sum(1 for m in messages if isinstance(m, AIMessage) and m.tool_calls)
        reply = (
            AIMessage("done")
            if made == len(self.calls)
            else AIMessage("", tool_calls=[{**self.calls[made], "id": f"c{made}"}])
        )
        self.messages = iter([reply])
        return super()._generate(messages, *args, **kwargs)


def graph(chat: ScriptedChat, node: ToolNode, checkpointer: Any = None) -> Any:
    """LangGraph's tool-calling loop: the model node, then the ToolNode while the model calls tools."""
    model = chat.bind_tools(list(node.tools_by_name.values()))
    builder = StateGraph(MessagesState)
    builder.add_node("model", lambda state: {"messages": [model.invoke(state["messages"])]})
    builder.add_node("tools", node)
    builder.add_edge(START, "model")
    builder.add_conditional_edges("model", tools_condition)
    builder.add_edge("tools", "model")
    return builder.compile(checkpointer=checkpointer)


def backstopped(tools: list[Any]) -> ToolNode:
    return ToolNode(tools, wrap_tool_call=contract_tool_call, awrap_tool_call=acontract_tool_call)


def tool_messages(messages: list[BaseMessage]) -> list[ToolMessage]:
    return [m for m in messages if isinstance(m, ToolMessage)]


def assert_internal_with_a_reference(
    message: ToolMessage, name: str, caplog: pytest.LogCaptureFixture, model_saw: str
) -> str:
    envelope = json.loads(str(message.content))
    error = envelope["error"]
    assert message.status == "error" and message.name == name and envelope["tool"] == name
    assert (envelope["status"], error["code"], error["action"]) == (
        "error",
        "INTERNAL",
        "stop_and_tell_user",
    )
    assert error["ref"] and error["ref"] in error["message"]
    assert (
        "SELECT" not in model_saw and "RuntimeError" not in model_saw and "reset" not in model_saw
    )
    logged = [
        r
        for r in caplog.records
        if r.name == "contractgen.adapters" and error["ref"] in r.getMessage()
    ]
    assert len(logged) == 1 and logged[0].exc_info is not None
    return str(error["ref"])


@pytest.mark.parametrize("how", ["invoke", "ainvoke"])
def test_a_tool_that_raises_answers_an_envelope_and_the_run_goes_on(
    how: str, caplog: pytest.LogCaptureFixture
) -> None:
    chat = ScriptedChat(
        calls=[
            {"name": "lookup_orders", "args": {"customer": "bob"}},
            {"name": "lookup_orders", "args": {"customer": "ann"}},
        ]
    )
    app = graph(chat, backstopped([lookup_orders]))
    start = {"messages": [HumanMessage("orders of bob?")]}
    with caplog.at_level(logging.ERROR, logger="contractgen.adapters"):
        state = app.invoke(start) if how == "invoke" else anyio.run(lambda: app.ainvoke(start))
    assert state["messages"][-1].content == "done"  # the run went on, and the model answered
    answers = tool_messages(chat.seen[-1])
    assert [m.tool_call_id for m in answers] == ["c0", "c1"]
    refs = {
        assert_internal_with_a_reference(m, "lookup_orders", caplog, str(chat.seen[-1]))
        for m in answers
    }
    assert len(refs) == 2  # one reference a failure
    assert all(
        SQL in str(r.exc_info[1]) for r in caplog.records if r.name == "contractgen.adapters"
    )


def test_without_the_hook_the_run_dies_or_the_model_reads_the_exception() -> None:
    calls = [{"name": "lookup_orders", "args": {"customer": "bob"}}]
    with pytest.raises(RuntimeError, match="SELECT"):  # ToolNode's default
        graph(ScriptedChat(calls=calls), ToolNode([lookup_orders])).invoke(
            {"messages": [HumanMessage("hi")]}
        )
    chat = ScriptedChat(calls=calls)
    graph(chat, ToolNode([lookup_orders], handle_tool_errors=True)).invoke(
        {"messages": [HumanMessage("hi")]}
    )
    assert "SELECT * FROM orders" in str(tool_messages(chat.seen[-1])[0].content)


def test_the_log_never_holds_the_calls_secret_argument(caplog: pytest.LogCaptureFixture) -> None:
    """sign_in's password is a secret by its name: the traceback under the reference is scrubbed."""
    chat = ScriptedChat(
        calls=[{"name": "sign_in", "args": {"user": "bob", "password": "hunter2-Zq9"}}]
    )
    with caplog.at_level(logging.ERROR, logger="contractgen.adapters"):
        graph(chat, backstopped([sign_in])).invoke({"messages": [HumanMessage("sign me in")]})
    answer = tool_messages(chat.seen[-1])[0]
    assert_internal_with_a_reference(answer, "sign_in", caplog, str(chat.seen[-1]))
    logged = "".join(caplog.text)
    assert "hunter2-Zq9" not in logged and "login for" in logged


def test_what_toolnode_answers_itself_and_an_interrupt_pass() -> None:
    chat = ScriptedChat(
        calls=[
            {"name": "lookup_orders", "args": {"client": "bob"}},  # no 'customer'
            {"name": "approve", "args": {"amount": 40}},
        ]
    )
    app = graph(chat, backstopped([lookup_orders, approve]), checkpointer=InMemorySaver())
    thread = {"configurable": {"thread_id": "t1"}}
    paused = app.invoke({"messages": [HumanMessage("pay 40")]}, thread)
    assert paused["__interrupt__"][0].value == {"amount": 40}  # the human is asked: not an envelope
    invalid = tool_messages(paused["messages"])[0]
    assert invalid.status == "error" and "customer" in str(invalid.content)  # ToolNode's own answer
    assert not str(invalid.content).startswith("{")
    done = app.invoke(Command(resume="yes"), thread)
    assert (
        tool_messages(done["messages"])[-1].content == "approved"
        and done["messages"][-1].content == "done"
    )


def test_contract_failure_in_a_loop_of_your_own(caplog: pytest.LogCaptureFixture) -> None:
    """langchain-core alone: the loop is the application's, and so is the ``except``."""
    call = {"name": "lookup_orders", "args": {"customer": "bob"}, "id": "c1", "type": "tool_call"}
    with caplog.at_level(logging.ERROR, logger="contractgen.adapters"):
        try:
            answer = lookup_orders.invoke(call)
        except Exception as exc:  # noqa: BLE001 - the loop's own catch-all, as the docs say
            answer = contract_failure(call, exc, lookup_orders)
    assert answer.tool_call_id == "c1"
    assert_internal_with_a_reference(answer, "lookup_orders", caplog, str(answer.content))
