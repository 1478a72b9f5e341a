"""pydantic-ai adapter: the tool definition the model gets is the contract's (wrapped or not), and
pydantic-ai's own agent loop with its FunctionModel sees retry_later then stop_and_tell_user, and
fix_arguments then success; guard errors cost none of pydantic-ai's retries."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from adapter_support import (
    Traced,
    assert_bad_argument_scenario,
    assert_down_scenario,
    final_text,
    next_arguments,
    rates_tool,
)
from pydantic_ai import Agent, Tool
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from contractgen.adapters.pydantic_ai import pydantic_ai_tool
from generated import book_meeting_v2, get_exchange_rate_v1


def tool_returns(messages: list[Any]) -> list[ToolReturnPart]:
    return [part for message in messages for part in message.parts if isinstance(part, ToolReturnPart)]


def scripted(scenario: str, seen: list[Any]) -> FunctionModel:
    def respond(messages: list[Any], info: AgentInfo) -> ModelResponse:
        seen.append((list(messages), info))
        received = [dict(part.content) for part in tool_returns(messages)]
        arguments = next_arguments(scenario, received)
        if arguments is None:
            return ModelResponse(parts=[TextPart(final_text(received))])
        return ModelResponse(parts=[ToolCallPart("get_exchange_rate", arguments, tool_call_id=f"c{len(received)}")])

    return FunctionModel(respond)


def run_agent(scenario: str, upstream: str) -> tuple[list[Any], Any]:
    seen: list[Any] = []
    agent = Agent(scripted(scenario, seen), tools=[pydantic_ai_tool(rates_tool(upstream))])
    result = anyio.run(lambda: agent.run("EUR to USD?", conversation_id="conv-1"))
    return seen, result


@pytest.mark.parametrize("module", [get_exchange_rate_v1, book_meeting_v2])
def test_declaration_sent_to_the_model_is_the_contracts_export(module: Any) -> None:
    stub = next(v for v in vars(module).values() if type(v).__name__ == "ToolStub")
    export = module.ANTHROPIC_TOOL

    async def plain(**_: Any) -> dict[str, Any]:
        return {}

    unwrapped = Tool.from_schema(plain, name=export["name"], description=export["description"],
                                 json_schema=export["input_schema"])
    sent: list[Any] = []

    def answer(messages: list[Any], info: AgentInfo) -> ModelResponse:
        sent.append(info.function_tools[0])
        return ModelResponse(parts=[TextPart("hi")])

    for tool in (pydantic_ai_tool(stub.implement(lambda args: None)), unwrapped):
        anyio.run(lambda t=tool: Agent(FunctionModel(answer), tools=[t]).run("hi"))
    wrapped, bare = sent
    assert (wrapped.name, wrapped.description, wrapped.parameters_json_schema) == (
        export["name"], export["description"], export["input_schema"])
    assert (wrapped.name, wrapped.description, wrapped.parameters_json_schema) == (
        bare.name, bare.description, bare.parameters_json_schema)


def test_upstream_down_retry_later_then_stop_at_the_budget() -> None:
    seen, result = run_agent("down", "down")
    returns = tool_returns(seen[-1][0])
    assert_down_scenario([dict(p.content) for p in returns], calls_made=len(seen) - 1)
    # guard errors are ordinary tool returns: no pydantic-ai retry prompt, no retry spent
    assert [p.outcome for p in returns] == ["success", "success"]
    assert result.output == "tool is not working"


def test_bad_argument_fix_arguments_with_the_field_then_fixed() -> None:
    seen, result = run_agent("bad_argument", "up")
    returns = tool_returns(seen[-1][0])
    assert_bad_argument_scenario([dict(p.content) for p in returns], calls_made=len(seen) - 1)
    assert result.output == "rate: 1.08"


def test_budget_session_is_the_conversation_across_runs() -> None:
    tool = pydantic_ai_tool(rates_tool("down"))
    seen: list[Any] = []
    once = {"base": "EUR", "quote": "USD"}

    def one_call(messages: list[Any], info: AgentInfo) -> ModelResponse:
        seen.append(list(messages))
        if isinstance(messages[-1].parts[-1], ToolReturnPart):
            return ModelResponse(parts=[TextPart("stopped")])
        return ModelResponse(parts=[ToolCallPart("get_exchange_rate", once, tool_call_id=f"c{len(seen)}")])

    agent = Agent(FunctionModel(one_call), tools=[tool])
    first = anyio.run(lambda: agent.run("hi", conversation_id="conv-7"))
    anyio.run(lambda: agent.run("again", message_history=first.all_messages()))  # same conversation
    anyio.run(lambda: agent.run("new"))  # a new conversation starts a new count
    counts = [tool_returns(m)[-1].content["error"]["budget"]["consecutive_failures"]
              for m in seen if isinstance(m[-1].parts[-1], ToolReturnPart)]
    assert counts == [1, 2, 1]


def test_tool_call_ids_and_the_caller_reach_the_guards_telemetry() -> None:
    traced = Traced("down")
    seen: list[Any] = []
    agent = Agent(scripted("down", seen), name="fx", deps_type=dict, tools=[pydantic_ai_tool(traced.tool)])
    anyio.run(lambda: agent.run("hi", deps={"user_id": "alice"}, conversation_id="conv-1"))
    assert_down_scenario([dict(p.content) for p in tool_returns(seen[-1][0])], calls_made=len(seen) - 1)
    assert traced.attribute("gen_ai.tool.call.id") == ["c0", "c1"]
    assert traced.attribute("contractgen.caller") == ["user=alice agent=fx session=conv-1"] * 2
