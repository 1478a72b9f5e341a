"""FastMCP adapter: what a FastMCP server lists is the contract's MCP export (wrapped or not); FastMCP
has no model loop of its own, so the agent-level scenarios run twice: a host loop over FastMCP's own
client feeding a scripted model, and pydantic-ai's agent loop (scripted FunctionModel) using the
server through its MCP client. Both see retry_later then stop_and_tell_user, and fix_arguments then
success; the budget counts per MCP session, including a host-sent ``_meta`` session."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from adapter_support import (
    Traced,
    assert_bad_argument_scenario,
    assert_down_scenario,
    next_arguments,
    rates_tool,
)
from fastmcp import Client, FastMCP
from fastmcp.tools import Tool, ToolResult
from fastmcp.utilities.json_schema import dereference_refs

from contractgen.adapters.fastmcp import add_guarded_tools
from generated import book_meeting_v2, get_exchange_rate_v1


class PlainTool(Tool):
    """The unwrapped declaration: a FastMCP tool declared straight from the contract's MCP export."""

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        return ToolResult(content=[])


async def listed(server: FastMCP) -> Any:
    async with Client(server) as client:
        return (await client.list_tools())[0]


@pytest.mark.parametrize("module", [get_exchange_rate_v1, book_meeting_v2])
@pytest.mark.parametrize("dereference", [False, True])
def test_declaration_sent_to_clients_is_the_contracts_export(module: Any, dereference: bool) -> None:
    stub = next(v for v in vars(module).values() if type(v).__name__ == "ToolStub")
    export = module.MCP_TOOL
    wrapped_server = FastMCP("wrapped", dereference_schemas=dereference)
    add_guarded_tools(wrapped_server, stub.implement(lambda args: None))
    plain_server = FastMCP("plain", dereference_schemas=dereference)
    plain_server.add_tool(PlainTool(name=export["name"], title=export["title"], description=export["description"],
                                    parameters=export["inputSchema"], output_schema=export["outputSchema"]))
    wrapped, plain = anyio.run(listed, wrapped_server), anyio.run(listed, plain_server)
    assert (wrapped.name, wrapped.title, wrapped.description) == (export["name"], export["title"],
                                                                  export["description"])
    # FastMCP inlines $refs unless the server is made with dereference_schemas=False
    expected = (dereference_refs(export["inputSchema"]) if dereference else export["inputSchema"],
                dereference_refs(export["outputSchema"]) if dereference else export["outputSchema"])
    assert (wrapped.input_schema, wrapped.output_schema) == expected
    assert (wrapped.input_schema, wrapped.output_schema) == (plain.input_schema, plain.output_schema)
    hints = wrapped.annotations.model_dump(by_alias=True, exclude_none=True)
    assert hints == export["annotations"]
    assert wrapped.meta["contractgen/version"] == module.CONTRACT.version


def host_loop(scenario: str, upstream: str) -> tuple[list[dict[str, Any]], list[Any]]:
    """An agent host: each tool result's text goes to the scripted model, which decides the next call."""
    server = FastMCP("fx")
    add_guarded_tools(server, rates_tool(upstream))
    received: list[dict[str, Any]] = []
    results: list[Any] = []

    async def main() -> None:
        async with Client(server, mode="legacy") as client:  # legacy handshake: one stable session id
            while (arguments := next_arguments(scenario, received)) is not None:
                result = await client.call_tool_mcp("get_exchange_rate", arguments)
                results.append(result)
                received.append(json.loads(result.content[0].text))  # what the model reads

    anyio.run(main)
    return received, results


def test_upstream_down_retry_later_then_stop_at_the_budget() -> None:
    received, results = host_loop("down", "down")
    assert_down_scenario(received, calls_made=len(results))
    assert all(r.is_error for r in results)
    assert results[1].structured_content == received[1]  # the error envelope, structured


def test_bad_argument_fix_arguments_with_the_field_then_fixed() -> None:
    received, results = host_loop("bad_argument", "up")
    assert_bad_argument_scenario(received, calls_made=len(results))
    assert [r.is_error for r in results] == [True, False]
    assert results[1].structured_content == received[1]["output"]  # the bare output matches outputSchema


def test_budget_session_from_the_clients_meta_on_a_stateless_connection() -> None:
    server = FastMCP("fx")
    add_guarded_tools(server, rates_tool("down"))
    counts: list[int] = []

    async def main() -> None:
        async with Client(server) as client:  # the default (stateless) protocol: a new session id per request
            for conversation in ("a", "a", "b"):
                result = await client.call_tool_mcp("get_exchange_rate", {"base": "EUR", "quote": "USD"},
                                                    meta={"contractgen/session": conversation})
                counts.append(result.structured_content["error"]["budget"]["consecutive_failures"])

    anyio.run(main)
    assert counts == [1, 2, 1]


def test_request_ids_reach_the_guards_telemetry() -> None:
    traced = Traced("down")
    server = FastMCP("fx")
    add_guarded_tools(server, traced.tool)

    async def main() -> None:
        async with Client(server) as client:
            for _ in range(2):
                await client.call_tool_mcp("get_exchange_rate", {"base": "EUR", "quote": "USD"})

    anyio.run(main)
    ids = traced.attribute("gen_ai.tool.call.id")
    assert len(ids) == 2 and all(ids) and ids[0] != ids[1]


def agent_over_mcp(scenario: str, upstream: str) -> tuple[list[Any], Any]:
    """pydantic-ai's agent loop (scripted FunctionModel) using the FastMCP server through its MCP client,
    as it comes: FastMCP's default (stateless) protocol and no ``_meta``."""
    from pydantic_ai import Agent
    from pydantic_ai.mcp import MCPToolset
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    server = FastMCP("fx")
    add_guarded_tools(server, rates_tool(upstream))
    seen: list[Any] = []

    def model(messages: list[Any], info: AgentInfo) -> ModelResponse:
        returns = [p for m in messages for p in m.parts if isinstance(p, ToolReturnPart)]
        seen.append(returns)
        received = [json.loads(p.content) if p.outcome == "failed" else {"status": "ok", "output": p.content}
                    for p in returns]
        arguments = next_arguments(scenario, received)
        if arguments is None:
            return ModelResponse(parts=[TextPart("done")])
        return ModelResponse(parts=[ToolCallPart("get_exchange_rate", arguments, tool_call_id=f"c{len(returns)}")])

    # "failed": an isError result reaches the model as a failed tool return, without spending retries
    toolset = MCPToolset(server, tool_error_behavior="failed")
    agent = Agent(FunctionModel(model), toolsets=[toolset])
    result = anyio.run(lambda: agent.run("EUR to USD?", conversation_id="conv-1"))
    return seen, result


def test_an_agent_over_the_mcp_client_upstream_down() -> None:
    seen, _ = agent_over_mcp("down", "down")
    returns = seen[-1]
    assert [p.outcome for p in returns] == ["failed", "failed"]
    assert_down_scenario([json.loads(p.content) for p in returns], calls_made=len(seen) - 1)


def test_an_agent_over_the_mcp_client_bad_argument() -> None:
    seen, _ = agent_over_mcp("bad_argument", "up")
    first, second = seen[-1]
    error = json.loads(first.content)["error"]
    assert first.outcome == "failed" and (error["action"], error["field"]) == ("fix_arguments", "/base")
    # on success an MCP host hands the model the structuredContent: the bare output
    assert second.outcome == "success" and second.content["base"] == "EUR" and len(seen) == 3
