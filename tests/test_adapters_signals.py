"""Signals that survive the host: what a model is handed of a successful envelope's ``empty`` and
``empty_meaning`` (search_documents finding nothing) through the FastMCP adapter, read by real hosts:
pydantic-ai's MCP toolset (reads only ``structuredContent`` on success), the OpenAI Agents SDK's MCP
server class (reads ``content``, or ``structuredContent`` when asked), and FastMCP's client. With the
default ``structured="output"`` a structuredContent-only host gets the bare output (the contract's
description still says what an empty list means); with ``structured="envelope"`` it gets the
envelope. Error envelopes (action, partial_results) are the structuredContent either way."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from adapter_support import ServedOverHttp
from fastmcp import Client, FastMCP

from contractgen.adapters.fastmcp import add_guarded_tools, envelope_schema
from generated import search_documents_v1 as search

NOTHING = {"results": [], "complete": True}
HIT = {"document_id": "d1", "title": "Travel policy", "score": 0.9}


def search_server(structured: str, answer: Any = None) -> FastMCP:
    def find(args: Any) -> Any:
        if answer is not None:
            raise answer
        return NOTHING

    server = FastMCP("docs")
    add_guarded_tools(server, search.search_documents.implement(find), structured=structured)  # type: ignore[arg-type]
    return server


def pydantic_ai_sees(server: FastMCP) -> Any:
    """What pydantic-ai's agent loop hands the model as the tool's return, through its MCP toolset."""
    from pydantic_ai import Agent
    from pydantic_ai.mcp import MCPToolset
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    returns: list[Any] = []

    def model(messages: list[Any], info: AgentInfo) -> ModelResponse:
        returns.extend(p for m in messages for p in m.parts if isinstance(p, ToolReturnPart))
        if not returns:
            return ModelResponse(parts=[ToolCallPart("search_documents", {"query": "travel policy"}, tool_call_id="c1")])
        return ModelResponse(parts=[TextPart("done")])

    agent = Agent(FunctionModel(model), toolsets=[MCPToolset(server, tool_error_behavior="failed")])
    anyio.run(lambda: agent.run("find the travel policy"))
    part = returns[0]
    return json.loads(part.content) if isinstance(part.content, str) else part.content


def test_pydantic_ai_a_structured_only_host_gets_the_bare_output_by_default() -> None:
    assert pydantic_ai_sees(search_server("output")) == NOTHING  # no empty, no empty_meaning


def test_pydantic_ai_gets_the_envelope_when_the_server_serves_it_structured() -> None:
    seen = pydantic_ai_sees(search_server("envelope"))
    assert seen["status"] == "ok" and seen["output"] == NOTHING and seen["empty"] is True
    assert seen["empty_meaning"].startswith("No document matches the query")


def test_pydantic_ai_an_error_envelope_keeps_its_action_and_partial_results() -> None:
    degraded = search.ArchiveDegraded(partial_results={"results": [HIT], "complete": False})
    for structured in ("output", "envelope"):
        error = pydantic_ai_sees(search_server(structured, degraded))["error"]
        assert (error["code"], error["action"]) == ("UNAVAILABLE", "retry_later")
        assert error["partial_results"]["results"][0]["document_id"] == "d1"


@pytest.mark.parametrize(("structured", "use_structured_content", "reaches"), [
    ("output", False, "envelope"),  # the SDK's default: the text content, which is the whole envelope
    ("output", True, "output"),
    ("envelope", True, "envelope"),
])
def test_openai_agents_mcp_server_class(structured: str, use_structured_content: bool, reaches: str) -> None:
    from agents import Agent, RunConfig, Runner
    from agents.mcp import MCPServerStreamableHttp
    from agents.testing import ScriptedModel, assistant_message, function_call

    model = ScriptedModel([[function_call("search_documents", {"query": "travel policy"}, call_id="c1")],
                           [assistant_message("done")]])

    async def main(url: str) -> None:
        async with MCPServerStreamableHttp(params={"url": url}, use_structured_content=use_structured_content) as mcp:
            agent = Agent(name="fx", model=model, mcp_servers=[mcp])
            await Runner.run(agent, "find the travel policy", run_config=RunConfig(tracing_disabled=True))

    with ServedOverHttp(search_server(structured)) as served:
        anyio.run(main, served.url)
    outputs = [item["output"] for item in model.calls[1].input
               if isinstance(item, dict) and item.get("type") == "function_call_output"]
    output = outputs[0]
    text = output if isinstance(output, str) else output[0]["text"] if isinstance(output, list) else output["text"]
    seen = json.loads(text)
    if reaches == "output":
        assert seen == NOTHING
    else:
        assert seen["output"] == NOTHING and seen["empty"] is True and seen["empty_meaning"]


def test_fastmcp_client_text_always_and_structured_when_served_so() -> None:
    async def call(server: FastMCP) -> Any:
        async with Client(server) as client:
            return await client.call_tool("search_documents", {"query": "travel policy"})

    plain = anyio.run(call, search_server("output"))
    whole = anyio.run(call, search_server("envelope"))
    for result in (plain, whole):
        assert json.loads(result.content[0].text)["empty"] is True  # the text is the whole envelope
    assert plain.structured_content == NOTHING and plain.meta["contractgen/envelope"]["empty"] is True
    assert whole.structured_content["empty"] is True and whole.structured_content["output"] == NOTHING


def test_the_envelope_schema_keeps_the_outputs_references() -> None:
    import jsonschema

    schema = envelope_schema(search.MCP_TOOL["outputSchema"])
    envelope = {"status": "ok", "tool": "search_documents", "version": "1.0.0",
                "output": {"results": [HIT], "complete": True}, "empty": False}
    jsonschema.Draft202012Validator(schema).validate(envelope)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(schema).validate({**envelope, "output": {"results": [{"title": 1}]}})
