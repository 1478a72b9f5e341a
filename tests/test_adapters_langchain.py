"""LangChain adapter: what ``bind_tools`` sends the model is the contract's schema (wrapped or not),
and a LangChain agent loop (chat model -> tool calls -> ToolMessages) with a scripted fake chat
model sees retry_later then stop_and_tell_user, and fix_arguments then success."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from adapter_support import (
    Traced,
    assert_bad_argument_scenario,
    assert_down_scenario,
    final_text,
    next_arguments,
    rates_tool,
)
from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.tools import StructuredTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field

from contractgen.adapters.langchain import langchain_tool
from generated import get_exchange_rate_v1, search_documents_v1


class ScriptedChat(GenericFakeChatModel):
    """A fake chat model that binds tools like a real one and answers from the ToolMessages so far."""

    scenario: str = "down"
    bound: list[Any] = Field(default_factory=list)
    seen: list[list[BaseMessage]] = Field(default_factory=list)
    messages: Iterator[Any] = iter(())

    def bind_tools(self, tools: Any, **_: Any) -> Any:
        self.bound = [convert_to_openai_tool(t) for t in tools]
        return self

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
        self.seen.append(list(messages))
        received = [json_of(m) for m in messages if isinstance(m, ToolMessage)]
        arguments = next_arguments(self.scenario, received)
        reply = (AIMessage(final_text(received)) if arguments is None else
                 AIMessage("", tool_calls=[{"name": "get_exchange_rate", "args": arguments,
                                            "id": f"c{len(received)}"}]))
        self.messages = iter([reply])
        return super()._generate(messages, *args, **kwargs)


def json_of(message: ToolMessage) -> dict[str, Any]:
    import json

    return json.loads(message.content)  # type: ignore[arg-type]


def agent_loop(scenario: str, upstream: str | Any, session: str = "conv-1",
               config: dict[str, Any] | None = None) -> tuple[ScriptedChat, list[BaseMessage]]:
    """The whole tool-calling loop, as LangChain's docs write it (``upstream``: a guarded tool, or
    ``down``/``up`` for a fresh rates tool)."""
    tool = langchain_tool(rates_tool(upstream) if isinstance(upstream, str) else upstream)
    chat = ScriptedChat(scenario=scenario, seen=[], bound=[])
    model = chat.bind_tools([tool])
    config = config or {"configurable": {"session_id": session}}
    messages: list[BaseMessage] = [HumanMessage("EUR to USD?")]
    while True:
        reply = model.invoke(messages, config)
        messages.append(reply)
        if not reply.tool_calls:
            return chat, messages
        messages += [tool.invoke({**call, "type": "tool_call"}, config) for call in reply.tool_calls]


@pytest.mark.parametrize("module", [search_documents_v1, get_exchange_rate_v1])
def test_declaration_sent_to_the_model_is_the_contracts_export(module: Any) -> None:
    stub = next(v for v in vars(module).values() if type(v).__name__ == "ToolStub")
    export = module.OPENAI_TOOL["function"]
    unwrapped = StructuredTool.from_function(lambda **kw: kw, name=export["name"],
                                             description=export["description"],
                                             args_schema=export["parameters"])
    wrapped = convert_to_openai_tool(langchain_tool(stub.implement(lambda args: None)))
    assert wrapped == convert_to_openai_tool(unwrapped)
    sent = wrapped["function"]
    assert (sent["name"], sent["description"]) == (export["name"], export["description"])
    # LangChain inlines local $refs (dropping $defs): the contract's schema, dereferenced
    assert sent["parameters"] == inline_local_refs(export["parameters"])
    if "$defs" not in export["parameters"]:
        assert sent["parameters"] == export["parameters"]


def inline_local_refs(schema: Any, defs: dict[str, Any] | None = None) -> Any:
    """``schema`` with each ``{"$ref": "#/$defs/x", ...}`` replaced by x plus the sibling keywords."""
    if defs is None and isinstance(schema, dict):
        defs = schema.get("$defs", {})
        schema = {k: v for k, v in schema.items() if k != "$defs"}
    if isinstance(schema, list):
        return [inline_local_refs(v, defs) for v in schema]
    if not isinstance(schema, dict):
        return schema
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/") and defs is not None:
        siblings = {k: v for k, v in schema.items() if k != "$ref"}
        return {**inline_local_refs(defs[ref.removeprefix("#/$defs/")], defs),
                **inline_local_refs(siblings, defs)}
    return {k: inline_local_refs(v, defs) for k, v in schema.items()}


@pytest.mark.parametrize(("scenario", "upstream", "check", "statuses", "answer"), [
    ("down", "down", assert_down_scenario, ["error", "error"], "tool is not working"),
    ("bad_argument", "up", assert_bad_argument_scenario, ["error", "success"], "rate: 1.08"),
])
def test_agent_loop_scenarios(scenario: str, upstream: str, check: Any, statuses: list[str],
                              answer: str) -> None:
    """down: retry_later, then stop_and_tell_user at the budget, no further call; bad_argument:
    fix_arguments naming the field, then the fixed call succeeds."""
    chat, messages = agent_loop(scenario, upstream)
    tool_messages = [m for m in chat.seen[-1] if isinstance(m, ToolMessage)]
    check([json_of(m) for m in tool_messages], calls_made=len(chat.seen) - 1)
    assert [m.status for m in tool_messages] == statuses
    assert messages[-1].content == answer


def test_arguments_named_like_langchain_plumbing_reach_the_guard() -> None:
    tool = langchain_tool(rates_tool("up"))
    envelope = tool.invoke({"base": "EUR", "quote": "USD", "config": "x", "run_manager": 1})
    assert envelope["error"]["code"] == "INVALID_ARGUMENT"  # not silently dropped: the guard saw them
    assert {v["field"] for v in envelope["error"]["violations"]} == {"/config", "/run_manager"}


def test_the_user_agent_and_session_reach_the_spans_in_the_agent_loop() -> None:
    traced = Traced("down")
    config = {"configurable": {"session_id": "conv-1", "user_id": "alice"}, "metadata": {"lc_agent_name": "fx"}}
    chat, messages = agent_loop("down", traced.tool, config=config)
    received = [json_of(m) for m in messages if isinstance(m, ToolMessage)]
    assert_down_scenario(received, calls_made=len(chat.seen) - 1)
    assert traced.attribute("contractgen.caller") == ["user=alice agent=fx session=conv-1"] * 2


def test_tool_call_ids_reach_the_guards_telemetry() -> None:
    traced = Traced("down")
    tool = langchain_tool(traced.tool)
    for call_id in ("c0", "c1"):
        tool.invoke({"name": "get_exchange_rate", "args": {"base": "EUR", "quote": "USD"}, "id": call_id,
                     "type": "tool_call"}, {"configurable": {"session_id": "s"}})
    assert traced.attribute("gen_ai.tool.call.id") == ["c0", "c1"]
