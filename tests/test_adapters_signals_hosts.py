"""Signals that survive the host, all of them: an empty result (``empty``, ``empty_meaning``), a success
with ``notices`` (a near-miss argument name on an open input schema), and an error with its next-step
``action`` and ``partial_results``. Read by a scripted model through each framework's own tool-result
path, and through the real MCP hosts in front of the FastMCP adapter: the MCP SDK's client, FastMCP's
client, the OpenAI Agents SDK's MCP server class and pydantic-ai's MCP toolset (and the SDK's client
in front of contractgen's own MCP server). A host that hands the model only ``structuredContent`` on
success gets the bare output, unless the server serves the envelope (``structured="envelope"``); an
error reaches every host whole; the text content is always the whole envelope."""

from __future__ import annotations

import copy
import dataclasses
import json
from typing import Any

import anyio
import pytest
from adapter_loops import FRAMEWORKS, openai_agents_model, pydantic_ai_model
from adapter_support import ServedOverHttp
from fastmcp import FastMCP

from contractgen.adapters.fastmcp import add_guarded_tools
from contractgen.runtime import GuardedTool, guard
from contractgen.runtime.jsonvalue import thaw
from generated import search_documents_v1 as search

#: an empty result, a result whose call misspelt 'limit', a degraded archive with partial results
CALLS = [{"query": "nothing"}, {"query": "travel", "limt": 5}, {"query": "archive"}]
HIT = {"document_id": "d1", "title": "Travel policy", "score": 0.9}
NOTHING = {"results": [], "complete": True}
FOUND = {"results": [HIT], "complete": True}
PARTIAL = {"results": [HIT], "complete": False}


def signals_tool() -> GuardedTool[Any, Any]:
    """search_documents with an open input schema (unknown keys pass, near misses get a notice)."""
    schema = copy.deepcopy(thaw(search.CONTRACT.input_schema))
    del schema["additionalProperties"]

    def find(args: Any) -> Any:
        if args["query"] == "archive":
            raise search.ArchiveDegraded(partial_results=PARTIAL)
        return NOTHING if args["query"] == "nothing" else FOUND

    return guard(dataclasses.replace(search.CONTRACT, input_schema=schema), find)


def script(read: list[dict[str, Any]]) -> dict[str, Any] | None:
    return dict(CALLS[len(read)]) if len(read) < len(CALLS) else None


def assert_error_whole(degraded: dict[str, Any]) -> None:
    error = degraded["error"]
    assert (degraded["status"], error["code"], error["action"]) == (
        "error",
        "UNAVAILABLE",
        "retry_later",
    )
    assert error["partial_results"] == PARTIAL


def assert_every_signal(read: list[dict[str, Any]]) -> None:
    empty, noticed, degraded = read
    assert (empty["status"], empty["output"], empty["empty"]) == ("ok", NOTHING, True)
    assert empty["empty_meaning"] == search.CONTRACT.empty_result.meaning
    assert noticed["output"] == FOUND and noticed["empty"] is False
    assert [(n["field"], n["did_you_mean"]) for n in noticed["notices"]] == [("/limt", "limit")]
    assert_error_whole(degraded)


def assert_bare_successes(read: list[dict[str, Any]]) -> None:
    """Success signals lost (the contract's description still says what an empty list means)."""
    empty, noticed, degraded = read
    assert (empty, noticed) == (NOTHING, FOUND)
    assert_error_whole(degraded)


def served(structured: str) -> FastMCP:
    server = FastMCP("docs")
    add_guarded_tools(server, signals_tool(), structured=structured)  # type: ignore[arg-type]
    return server


@pytest.mark.parametrize("framework", sorted(FRAMEWORKS))
def test_each_frameworks_own_tool_result_path_hands_the_model_every_signal(framework: str) -> None:
    assert_every_signal(FRAMEWORKS[framework](signals_tool(), script))


async def _client_reads(client: Any, call: Any) -> list[tuple[dict[str, Any], Any, Any]]:
    """(the text content decoded, structuredContent, the result's _meta) of each call."""
    reads = []
    async with client:
        for arguments in CALLS:
            result = await call(client, arguments)
            reads.append(
                (json.loads(result.content[0].text), result.structured_content, result.meta)
            )
    return reads


def sdk_client_reads(target: Any) -> list[tuple[dict[str, Any], Any, Any]]:
    from mcp import Client

    return anyio.run(_client_reads, Client(target), lambda c, a: c.call_tool("search_documents", a))


def fastmcp_client_reads(server: FastMCP) -> list[tuple[dict[str, Any], Any, Any]]:
    from fastmcp import Client

    return anyio.run(
        _client_reads, Client(server), lambda c, a: c.call_tool_mcp("search_documents", a)
    )


@pytest.mark.parametrize("structured", ["output", "envelope"])
@pytest.mark.parametrize("client", ["mcp SDK over HTTP", "FastMCP in memory"])
def test_the_clients_get_the_envelope_as_text_and_structured_as_served(
    client: str, structured: str
) -> None:
    server = served(structured)
    if client == "FastMCP in memory":
        reads = fastmcp_client_reads(server)
    else:
        with ServedOverHttp(server) as http:
            reads = sdk_client_reads(http.url)
    assert_every_signal([text for text, _, _ in reads])
    structured_reads = [dict(s) for _, s, _ in reads]
    if structured == "envelope":
        assert_every_signal(structured_reads)
    else:
        assert_bare_successes(structured_reads)
        # the rest of a success's envelope rides in the result's _meta, for hosts that read it
        empty, noticed = (meta["contractgen/envelope"] for _, _, meta in reads[:2])
        assert empty["empty"] is True and noticed["notices"][0]["did_you_mean"] == "limit"


def test_the_sdk_client_in_front_of_contractgens_own_mcp_server() -> None:
    from contractgen.runtime.mcp_server import build_server

    reads = sdk_client_reads(build_server([signals_tool()]))
    assert_every_signal([text for text, _, _ in reads])
    assert_bare_successes(
        [dict(s) for _, s, _ in reads]
    )  # the contract's MCP form: the bare output


@pytest.mark.parametrize(
    ("structured", "use_structured_content", "whole"),
    [("output", False, True), ("output", True, False), ("envelope", True, True)],
)
def test_openai_agents_mcp_server_class(
    structured: str, use_structured_content: bool, whole: bool
) -> None:
    from agents import Agent, RunConfig, Runner
    from agents.mcp import MCPServerStreamableHttp

    read: list[dict[str, Any]] = []

    async def main(url: str) -> None:
        params: Any = {"url": url}
        async with MCPServerStreamableHttp(
            params=params, use_structured_content=use_structured_content
        ) as mcp:
            model = openai_agents_model("search_documents", script, read)
            agent = Agent(name="fx", model=model, mcp_servers=[mcp])
            await Runner.run(
                agent, "find the travel policy", run_config=RunConfig(tracing_disabled=True)
            )

    with ServedOverHttp(served(structured)) as http:
        anyio.run(main, http.url)
    (assert_every_signal if whole else assert_bare_successes)(read)


@pytest.mark.parametrize(("structured", "whole"), [("output", False), ("envelope", True)])
def test_pydantic_ai_mcp_toolset(structured: str, whole: bool) -> None:
    from pydantic_ai import Agent
    from pydantic_ai.mcp import MCPToolset

    read: list[dict[str, Any]] = []
    toolset = MCPToolset(served(structured), tool_error_behavior="failed")
    agent = Agent(pydantic_ai_model("search_documents", script, read), toolsets=[toolset])
    anyio.run(lambda: agent.run("find the travel policy"))
    (assert_every_signal if whole else assert_bare_successes)(read)
