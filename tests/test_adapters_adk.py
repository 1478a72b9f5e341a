"""Google ADK adapter: the declaration ADK sends the model is the contract's (wrapped or not), every
hook ADK calls on tools delegates, the budget lives in ADK's session state, and ADK's own runner
with a scripted model sees retry_later then stop_and_tell_user, and fix_arguments then success."""

from __future__ import annotations

import asyncio
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
from google.adk.agents import Agent
from google.adk.models import BaseLlm, LlmResponse
from google.adk.runners import InMemoryRunner
from google.adk.tools import BaseTool, ToolContext
from google.genai import types
from pydantic import Field

from contractgen.adapters.adk import GuardedAdkTool
from generated import book_meeting_v2, get_exchange_rate_v1


class ScriptedLlm(BaseLlm):
    """A fake model: answers each request with what ``script`` makes of the requests so far."""

    model: str = "scripted"
    scenario: str = "down"
    seen: list[Any] = Field(default_factory=list)

    async def generate_content_async(self, llm_request: Any, stream: bool = False) -> Any:
        self.seen.append(llm_request.model_copy(deep=True))
        received = function_responses(llm_request)
        arguments = next_arguments(self.scenario, received)
        part = (types.Part(text=final_text(received)) if arguments is None else
                types.Part(function_call=types.FunctionCall(id=f"c{len(received)}", name="get_exchange_rate",
                                                            args=arguments)))
        yield LlmResponse(content=types.Content(role="model", parts=[part]))


def function_responses(llm_request: Any) -> list[dict[str, Any]]:
    """The tool results in the request ADK built for the model."""
    return [dict(part.function_response.response) for content in llm_request.contents
            for part in content.parts or () if part.function_response is not None]


class PlainAdkTool(BaseTool):
    """The unwrapped declaration: an ADK tool declared straight from the contract's export."""

    def __init__(self, export: dict[str, Any]) -> None:
        super().__init__(name=export["name"], description=export["description"])
        self.schema = export["input_schema"]

    def _get_declaration(self) -> types.FunctionDeclaration:
        return types.FunctionDeclaration(name=self.name, description=self.description,
                                         parameters_json_schema=self.schema)

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        return {}


async def run(tool: BaseTool, scenario: str, session_id: str = "conv-1") -> tuple[ScriptedLlm, Any]:
    llm = ScriptedLlm(scenario=scenario, seen=[])
    runner = InMemoryRunner(agent=Agent(name="fx", model=llm, tools=[tool]), app_name="app")
    await runner.session_service.create_session(app_name="app", user_id="u", session_id=session_id)
    message = types.Content(role="user", parts=[types.Part(text="EUR to USD?")])
    events = [e async for e in runner.run_async(user_id="u", session_id=session_id, new_message=message)]
    session = await runner.session_service.get_session(app_name="app", user_id="u", session_id=session_id)
    return llm, (events, session)


@pytest.mark.parametrize("module", [get_exchange_rate_v1, book_meeting_v2])
def test_declaration_sent_to_the_model_is_the_contracts_export(module: Any) -> None:
    stub = next(v for v in vars(module).values() if type(v).__name__ == "ToolStub")
    declared: list[Any] = []
    for tool in (GuardedAdkTool(stub.implement(lambda args: None)), PlainAdkTool(module.ANTHROPIC_TOOL)):
        llm, _ = anyio.run(lambda t=tool: run(t, "down"))
        declared.append(llm.seen[0].config.tools[0].function_declarations[0])
        # ADK's own process_llm_request advertised it and registered the tool itself under its name
        registered = llm.seen[0].tools_dict
        assert list(registered) == [module.CONTRACT.name] and type(registered[module.CONTRACT.name]) is type(tool)
    wrapped, unwrapped = declared
    assert wrapped == unwrapped
    assert (wrapped.name, wrapped.description, wrapped.parameters_json_schema) == (
        module.MCP_TOOL["name"], module.DESCRIPTION, module.INPUT_SCHEMA)
    assert wrapped.parameters_json_schema is not module.INPUT_SCHEMA  # ADK gets its own copy


def test_upstream_down_retry_later_then_stop_at_the_budget() -> None:
    llm, (events, session) = anyio.run(lambda: run(GuardedAdkTool(rates_tool("down")), "down"))
    received = function_responses(llm.seen[-1])
    assert_down_scenario(received, calls_made=len(llm.seen) - 1)
    assert events[-1].content.parts[0].text == "tool is not working"
    # the budget lives in ADK's session state, persisted by the session service
    assert session.state["contractgen.budget:conv-1:get_exchange_rate"] == 2


def test_bad_argument_fix_arguments_with_the_field_then_fixed() -> None:
    llm, (events, _) = anyio.run(lambda: run(GuardedAdkTool(rates_tool("up")), "bad_argument"))
    received = function_responses(llm.seen[-1])
    assert_bad_argument_scenario(received, calls_made=len(llm.seen) - 1)
    assert events[-1].content.parts[0].text == "rate: 1.08"


class OneTurnOfCalls(ScriptedLlm):
    """A model that asks for all ``calls`` in its first turn (ADK runs them concurrently), then ends."""

    calls: list[dict[str, Any]] = Field(default_factory=list)

    async def generate_content_async(self, llm_request: Any, stream: bool = False) -> Any:
        self.seen.append(llm_request)
        parts = ([types.Part(function_call=types.FunctionCall(id=f"p{i}", name="get_exchange_rate", args=call))
                  for i, call in enumerate(self.calls)] if len(self.seen) == 1 else [types.Part(text="done")])
        yield LlmResponse(content=types.Content(role="model", parts=parts))


def one_turn(tool: Any, calls: list[dict[str, Any]]) -> tuple[Any, Any]:
    """(the model, the session) after one turn of ``calls`` to ``tool`` through ADK's runner."""
    async def go() -> Any:
        llm = OneTurnOfCalls(seen=[], calls=calls)
        runner = InMemoryRunner(agent=Agent(name="fx", model=llm, tools=[GuardedAdkTool(tool)]), app_name="app")
        await runner.session_service.create_session(app_name="app", user_id="u", session_id="s")
        message = types.Content(role="user", parts=[types.Part(text="hi")])
        async for _ in runner.run_async(user_id="u", session_id="s", new_message=message):
            pass
        return llm, await runner.session_service.get_session(app_name="app", user_id="u", session_id="s")

    return anyio.run(go)  # type: ignore[no-any-return]


def test_concurrent_same_turn_failures_are_all_counted() -> None:
    """ADK runs the calls of one model turn concurrently; none of their budget updates is lost."""
    llm, session = one_turn(rates_tool("down"), [{"base": "EUR", "quote": "USD"}] * 3)
    counts = sorted(r["error"]["budget"]["consecutive_failures"] for r in function_responses(llm.seen[-1]))
    assert counts == [1, 2, 3]
    assert session.state["contractgen.budget:s:get_exchange_rate"] == 3


def test_the_persisted_count_holds_every_failure_when_calls_finish_out_of_order() -> None:
    """ADK merges the state changes of one turn's calls in call order: the last call's change wins.
    Here the calls finish in reverse order (the first waits longest), so the last call counts the
    first failure; the session must still hold 3 (it held 1: each call wrote only its own count)."""
    waits = {"USD": 0.4, "GBP": 0.2, "JPY": 0.0}

    async def lookup(args: Any) -> dict[str, Any]:
        await asyncio.sleep(waits[args.quote.root])
        raise get_exchange_rate_v1.ProviderUnavailable()

    llm, session = one_turn(get_exchange_rate_v1.get_exchange_rate.implement(lookup),
                            [{"base": "EUR", "quote": quote} for quote in waits])
    counts = sorted(r["error"]["budget"]["consecutive_failures"] for r in function_responses(llm.seen[-1]))
    assert counts == [1, 2, 3]
    assert session.state["contractgen.budget:s:get_exchange_rate"] == 3


def test_tool_call_ids_and_the_user_agent_and_session_reach_the_guards_telemetry() -> None:
    traced = Traced("down")
    anyio.run(lambda: run(GuardedAdkTool(traced.tool), "down"))
    assert traced.attribute("gen_ai.tool.call.id") == ["c0", "c1"]
    assert traced.attribute("contractgen.caller") == ["user=u agent=fx session=conv-1"] * 2


def test_a_store_chosen_for_the_tool_keeps_the_counts() -> None:
    shared: dict[str, Any] = {}
    _, (_, session) = anyio.run(lambda: run(GuardedAdkTool(rates_tool("down", state=shared)), "down"))
    assert shared == {"contractgen.budget:conv-1:get_exchange_rate": 2}
    assert not any(key.startswith("contractgen.budget") for key in session.state)
