"""Backstops for tools nobody wrapped, where the framework offers a hook: pydantic-ai's toolset
wrapper (``ContractBackstop``), the OpenAI Agents SDK's ``failure_error_function``
(``contract_failure``) and FastMCP's middleware (``ContractBackstop``). In each framework's own loop with a scripted model, a tool that raises
answers INTERNAL with a reference and nothing of the exception, the run goes on, and the traceback
is in the log under the reference. (ADK's plugin: tests/test_adapters_adk_foreign.py.)"""

from __future__ import annotations

import json
import logging
from typing import Any

import anyio
import pytest

SQL = "syntax error near 'SELECT * FROM orders WHERE customer = 'bob''"


def lookup_orders(customer: str) -> dict[str, Any]:
    """Look up a customer's orders."""
    raise RuntimeError(SQL)


def assert_internal_with_a_reference(answer: dict[str, Any], model_saw: str,
                                     caplog: pytest.LogCaptureFixture) -> None:
    error = answer["error"]
    assert answer["status"] == "error" and (error["code"], error["action"]) == ("INTERNAL", "stop_and_tell_user")
    assert error["ref"] and error["ref"] in error["message"]
    assert "SELECT" not in model_saw and "RuntimeError" not in model_saw
    logged = [r for r in caplog.records if r.name == "contractgen.adapters" and error["ref"] in r.getMessage()]
    assert len(logged) == 1 and logged[0].exc_info is not None and SQL in str(logged[0].exc_info[1])


def test_pydantic_ai_backstop_toolset(caplog: pytest.LogCaptureFixture) -> None:
    from pydantic_ai import Agent, ModelRetry
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel
    from pydantic_ai.toolsets import FunctionToolset

    from contractgen.adapters.pydantic_ai import ContractBackstop

    retried: list[int] = []

    def flaky(attempt: int) -> str:
        """Succeeds on the second attempt (ModelRetry is pydantic-ai's own steering: it passes)."""
        retried.append(attempt)
        if len(retried) == 1:
            raise ModelRetry("try again with attempt=2")
        return "fine"

    seen: list[Any] = []

    def model(messages: list[Any], info: AgentInfo) -> ModelResponse:
        seen.append(messages)
        turn = len(seen)
        if turn == 1:
            return ModelResponse(parts=[ToolCallPart("lookup_orders", {"customer": "bob"}, tool_call_id="c1")])
        if turn in (2, 3):
            return ModelResponse(parts=[ToolCallPart("flaky", {"attempt": turn - 1}, tool_call_id=f"f{turn}")])
        return ModelResponse(parts=[TextPart("done")])

    agent = Agent(FunctionModel(model), toolsets=[ContractBackstop(FunctionToolset([lookup_orders, flaky]))])
    with caplog.at_level(logging.ERROR, logger="contractgen.adapters"):
        result = anyio.run(lambda: agent.run("orders of bob?"))
    assert result.output == "done"  # the run went on
    returns = [p for m in seen[-1] for p in m.parts if isinstance(p, ToolReturnPart)]
    assert returns[0].tool_name == "lookup_orders" and returns[0].outcome == "success"
    assert_internal_with_a_reference(dict(returns[0].content), str(seen[-1]), caplog)
    assert retried == [1, 2] and returns[-1].content == "fine"


def test_pydantic_ai_without_the_backstop_the_run_dies() -> None:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    def model(messages: list[Any], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[ToolCallPart("lookup_orders", {"customer": "bob"}, tool_call_id="c1")])

    with pytest.raises(RuntimeError, match="SELECT"):
        anyio.run(lambda: Agent(FunctionModel(model), tools=[lookup_orders]).run("orders of bob?"))


def test_openai_agents_failure_error_function(caplog: pytest.LogCaptureFixture) -> None:
    from agents import Agent, RunConfig, Runner, function_tool
    from agents.testing import ScriptedModel, assistant_message
    from agents.testing import function_call as call

    from contractgen.adapters.openai_agents import contract_failure

    tool = function_tool(lookup_orders, failure_error_function=contract_failure)
    model = ScriptedModel([[call("lookup_orders", {"customer": "bob"}, call_id="c1")], [assistant_message("done")]])
    with caplog.at_level(logging.ERROR, logger="contractgen.adapters"):
        result = anyio.run(lambda: Runner.run(Agent(name="fx", model=model, tools=[tool]), "orders of bob?",
                                              run_config=RunConfig(tracing_disabled=True)))
    assert result.final_output == "done"
    outputs = [item["output"] for item in model.calls[1].input
               if isinstance(item, dict) and item.get("type") == "function_call_output"]
    assert_internal_with_a_reference(json.loads(outputs[0]), str(model.calls[1].input), caplog)
    assert json.loads(outputs[0])["tool"] == "lookup_orders"


class Touchy:
    """An application's run context or deps whose every attribute raises."""

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError(f"no {name} here")


def test_an_application_object_that_raises_never_reaches_the_framework() -> None:
    """The adapters read the session and the user from the application's own objects (OpenAI's run
    context and session function, pydantic-ai's deps): reading them may raise, the call goes on."""
    from adapter_support import assert_down_scenario, rates_tool
    from agents import Agent as OpenAIAgent
    from agents import RunConfig, Runner
    from agents.testing import ScriptedModel, assistant_message, function_call
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    from contractgen.adapters.openai_agents import function_tool
    from contractgen.adapters.pydantic_ai import pydantic_ai_tool

    def broken_session(ctx: Any) -> str:
        raise RuntimeError("no session here")

    call = {"base": "EUR", "quote": "USD"}
    for tool in (function_tool(rates_tool("down")), function_tool(rates_tool("down"), session=broken_session)):
        model = ScriptedModel([[function_call("get_exchange_rate", call, call_id="c1")],
                               [function_call("get_exchange_rate", call, call_id="c2")], [assistant_message("done")]])
        anyio.run(lambda t=tool, m=model: Runner.run(OpenAIAgent(name="fx", model=m, tools=[t]), "hi",
                                                     context=Touchy(), run_config=RunConfig(tracing_disabled=True)))
        outputs = [json.loads(item["output"]) for item in model.calls[2].input
                   if isinstance(item, dict) and item.get("type") == "function_call_output"]
        assert_down_scenario(outputs, calls_made=2)  # counted in the 'default' session

    returns: list[Any] = []

    def model(messages: list[Any], info: AgentInfo) -> ModelResponse:
        returns[:] = [p for m in messages for p in m.parts if isinstance(p, ToolReturnPart)]
        if len(returns) < 2:
            return ModelResponse(parts=[ToolCallPart("get_exchange_rate", call, tool_call_id=f"c{len(returns)}")])
        return ModelResponse(parts=[TextPart("done")])

    agent = Agent(FunctionModel(model), deps_type=Touchy, tools=[pydantic_ai_tool(rates_tool("down"))])
    assert anyio.run(lambda: agent.run("hi", deps=Touchy())).output == "done"
    assert_down_scenario([dict(p.content) for p in returns], calls_made=2)


def test_fastmcp_backstop_middleware(caplog: pytest.LogCaptureFixture) -> None:
    from fastmcp import Client, FastMCP
    from fastmcp.exceptions import ToolError

    from contractgen.adapters.fastmcp import ContractBackstop

    def refuse(reason: str) -> str:
        """Refuses on purpose: FastMCP's own ToolError is meant for the client and passes."""
        raise ToolError(f"refused: {reason}")

    async def call(server: FastMCP, name: str, arguments: dict[str, Any]) -> Any:
        async with Client(server) as client:
            return await client.call_tool_mcp(name, arguments)

    bare, backed = FastMCP("bare"), FastMCP("backed")
    for server in (bare, backed):
        server.tool(lookup_orders)
        server.tool(refuse)
    backed.add_middleware(ContractBackstop())
    unguarded = anyio.run(call, bare, "lookup_orders", {"customer": "bob"})
    assert unguarded.is_error and "SELECT" in unguarded.content[0].text  # FastMCP's own answer leaks
    with caplog.at_level(logging.ERROR, logger="contractgen.adapters"):
        result = anyio.run(call, backed, "lookup_orders", {"customer": "bob"})
    assert result.is_error
    assert_internal_with_a_reference(result.structured_content, result.content[0].text, caplog)
    refused = anyio.run(call, backed, "refuse", {"reason": "closed"})
    assert refused.is_error and refused.content[0].text.endswith("refused: closed")
    unknown = anyio.run(call, backed, "nope", {})
    assert unknown.is_error and "Unknown tool" in unknown.content[0].text
