"""OpenAI Agents SDK adapter: the declaration the SDK sends is the contract's, and the SDK's own agent
loop with its ScriptedModel sees retry_later then stop_and_tell_user, and fix_arguments then success."""

from __future__ import annotations

import json
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
from agents import Agent, FunctionTool, RunConfig, Runner
from agents.testing import ModelStep, ScriptedModel, assistant_message, function_call

from contractgen.adapters.openai_agents import function_tool, strict_allowed
from generated import book_meeting_v2, get_exchange_rate_v1, search_documents_v1

NO_TRACING = RunConfig(tracing_disabled=True)


def tool_outputs(model_input: Any) -> list[dict[str, Any]]:
    """The tool results in what the SDK sent the model, decoded as the model reads them."""
    return [json.loads(item["output"]) for item in model_input
            if isinstance(item, dict) and item.get("type") == "function_call_output"]


def scripted(scenario: str) -> ScriptedModel:
    def respond(call: Any) -> Any:
        received = tool_outputs(call.input)
        arguments = next_arguments(scenario, received)
        if arguments is None:
            return [assistant_message(final_text(received))]
        return [function_call("get_exchange_rate", arguments, call_id=f"c{len(received)}")]

    return ScriptedModel([ModelStep.respond(respond) for _ in range(8)])


def run_agent(scenario: str, upstream: str) -> tuple[ScriptedModel, Any]:
    model = scripted(scenario)
    agent = Agent(name="fx", model=model, tools=[function_tool(rates_tool(upstream))])
    result = anyio.run(lambda: Runner.run(agent, "EUR to USD?", context={"session_id": "conv-1"},
                                          run_config=NO_TRACING))
    return model, result


@pytest.mark.parametrize("module", [get_exchange_rate_v1, book_meeting_v2, search_documents_v1])
def test_declaration_sent_to_the_model_is_the_contracts_export(module: Any) -> None:
    model = ScriptedModel([[assistant_message("hi")]])
    stub = next(v for v in vars(module).values() if type(v).__name__ == "ToolStub")
    wrapped = function_tool(stub.implement(lambda args: None))
    # the unwrapped declaration: a plain FunctionTool made straight from the contract's export
    export = module.OPENAI_TOOL["function"]
    unwrapped = FunctionTool(name=export["name"], description=export["description"],
                             params_json_schema=export["parameters"], on_invoke_tool=lambda c, a: "",
                             strict_json_schema=module.OPENAI_STRICT_TOOL is not None)
    anyio.run(lambda: Runner.run(Agent(name="a", model=model, tools=[wrapped]), "hi", run_config=NO_TRACING))
    sent = model.calls[0].tools[0]
    assert (sent.name, sent.description, sent.params_json_schema) == (
        export["name"], export["description"], export["parameters"])
    assert (sent.params_json_schema, sent.strict_json_schema) == (unwrapped.params_json_schema,
                                                                  unwrapped.strict_json_schema)


def test_strict_only_where_the_contract_is_strict_shaped() -> None:
    assert not strict_allowed(get_exchange_rate_v1.INPUT_SCHEMA)  # optional `date`: strict would require it
    closed = {"type": "object", "additionalProperties": False, "required": ["q"],
              "properties": {"q": {"type": "string"}}}
    assert strict_allowed(closed)
    assert not strict_allowed({"type": "object", "additionalProperties": True, "properties": {}})
    with pytest.raises(ValueError, match="strict mode would change this contract"):
        function_tool(rates_tool("up"), strict=True)
    assert function_tool(rates_tool("up"), strict=False).strict_json_schema is False


def test_upstream_down_retry_later_then_stop_at_the_budget() -> None:
    model, result = run_agent("down", "down")
    received = tool_outputs(model.calls[-1].input)
    assert_down_scenario(received, calls_made=len(model.calls) - 1)
    assert result.final_output == "tool is not working"


def test_bad_argument_fix_arguments_with_the_field_then_fixed() -> None:
    model, result = run_agent("bad_argument", "up")
    received = tool_outputs(model.calls[-1].input)
    assert_bad_argument_scenario(received, calls_made=len(model.calls) - 1)
    assert result.final_output == "rate: 1.08"


def test_invalid_json_and_the_budget_session_in_the_run_context() -> None:
    context: dict[str, Any] = {"session_id": "conv-9"}
    model = ScriptedModel([[function_call("get_exchange_rate", '{"base": ', call_id="c0")],
                           [function_call("get_exchange_rate", {"base": "EUR", "quote": "USD"}, call_id="c1")],
                           [assistant_message("done")]])
    agent = Agent(name="fx", model=model, tools=[function_tool(rates_tool("down"))])
    anyio.run(lambda: Runner.run(agent, "hi", context=context, run_config=NO_TRACING))
    bad, down = tool_outputs(model.calls[-1].input)
    assert bad["error"]["code"] == "INVALID_ARGUMENT" and "not a valid JSON object" in bad["error"]["message"]
    assert down["error"]["budget"]["consecutive_failures"] == 1
    # the run context (a mapping) holds the count, so it outlives the run with the context
    assert context["contractgen.budget:session:conv-9:get_exchange_rate"] == 1


@pytest.mark.parametrize("raw", ["[" * 100_000 + "]" * 100_000, '{"base": ' * 50_000 + "1" + "}" * 50_000,
                                 '{"base": "\\ud800x"}'], ids=["array nesting", "object nesting", "lone surrogate"])
def test_hostile_raw_arguments_answer_an_envelope(raw: str) -> None:
    """Arguments nested past the JSON parser's stack (RecursionError, not ValueError), or holding a
    lone surrogate escape, come back from the tool as an envelope, never an exception. (Called
    directly: the Agents runner itself fails on such raw arguments before any tool runs.)"""
    from agents.tool_context import ToolContext

    tool = function_tool(rates_tool("down"))
    context = ToolContext(context=None, tool_name=tool.name, tool_call_id="c0", tool_arguments=raw)
    answer = json.loads(anyio.run(tool.on_invoke_tool, context, raw))
    assert answer["error"]["code"] == "INVALID_ARGUMENT", answer


def test_tool_call_ids_and_the_agent_reach_the_guards_telemetry() -> None:
    traced = Traced("down")
    agent = Agent(name="fx", model=scripted("down"), tools=[function_tool(traced.tool)])
    context = {"session_id": "s", "user_id": "alice"}
    anyio.run(lambda: Runner.run(agent, "hi", context=context, run_config=NO_TRACING))
    assert traced.attribute("gen_ai.tool.call.id") == ["c0", "c1"]
    assert traced.attribute("contractgen.caller") == ["user=alice agent=fx session=s"] * 2


def test_a_session_function_of_the_application_names_the_session_in_the_spans() -> None:
    traced = Traced("down")
    tool = function_tool(traced.tool, session=lambda ctx: "conv-9")
    anyio.run(lambda: Runner.run(Agent(name="fx", model=scripted("down"), tools=[tool]), "hi", run_config=NO_TRACING))
    assert traced.attribute("contractgen.caller") == ["agent=fx session=conv-9"] * 2
