"""A real network failure through every adapter's own loop: a tool whose implementation makes a real
connection to a loopback port nothing listens on (refused at once), or to a listener that never
answers (the read times out), with the standard library, httpx (sync and async), requests and
aiohttp where installed. Each framework's scripted model reads only what its framework hands it
and calls again on ``retry_later``: it gets UNAVAILABLE or TIMEOUT with ``retry_later``, counted,
then ``stop_and_tell_user`` at the tool's failure budget (2), and never the exception's text."""

from __future__ import annotations

import importlib.util
import json
import socket
from collections.abc import Callable, Iterator
from typing import Any

import anyio
import httpx
import pytest
import requests
from adapter_support import next_arguments

from contractgen.runtime import GuardedTool
from generated.get_exchange_rate_v1 import get_exchange_rate

HOST = "127.0.0.1"


@pytest.fixture(scope="module")
def closed_port() -> int:
    """A loopback port nothing listens on: connecting is refused at once."""
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def silent_port() -> Iterator[int]:
    """A loopback listener that accepts connections and never answers: reads time out."""
    server = socket.socket()
    server.bind((HOST, 0))
    server.listen(64)
    try:
        yield int(server.getsockname()[1])
    finally:
        server.close()


def _refused_socket(closed: int, silent: int) -> Callable[[Any], Any]:
    def implementation(_: Any) -> Any:
        socket.create_connection((HOST, closed), timeout=2).close()

    return implementation


def _socket_timeout(closed: int, silent: int) -> Callable[[Any], Any]:
    def implementation(_: Any) -> Any:
        with socket.create_connection((HOST, silent), timeout=0.05) as connection:
            connection.recv(1)

    return implementation


def _httpx_refused(closed: int, silent: int) -> Callable[[Any], Any]:
    def implementation(_: Any) -> Any:
        httpx.get(f"http://{HOST}:{closed}/rates")

    return implementation


def _httpx_async_refused(closed: int, silent: int) -> Callable[[Any], Any]:
    async def implementation(_: Any) -> Any:
        async with httpx.AsyncClient() as client:
            await client.get(f"http://{HOST}:{closed}/rates")

    return implementation


def _httpx_read_timeout(closed: int, silent: int) -> Callable[[Any], Any]:
    def implementation(_: Any) -> Any:
        httpx.get(f"http://{HOST}:{silent}/rates", timeout=0.05)

    return implementation


def _requests_refused(closed: int, silent: int) -> Callable[[Any], Any]:
    def implementation(_: Any) -> Any:
        requests.get(f"http://{HOST}:{closed}/rates", timeout=2)

    return implementation


def _aiohttp_refused(closed: int, silent: int) -> Callable[[Any], Any]:
    async def implementation(_: Any) -> Any:
        import aiohttp

        async with aiohttp.ClientSession() as session, session.get(f"http://{HOST}:{closed}/rates"):
            pass

    return implementation


NO_AIOHTTP = pytest.mark.skipif(
    importlib.util.find_spec("aiohttp") is None, reason="aiohttp is not installed"
)

#: family -> (an implementation that fails the way the real library fails, the code the model reads)
FAMILIES = [
    pytest.param(_refused_socket, "UNAVAILABLE", id="ConnectionRefusedError"),
    pytest.param(_socket_timeout, "TIMEOUT", id="socket.timeout"),
    pytest.param(_httpx_refused, "UNAVAILABLE", id="httpx.ConnectError"),
    pytest.param(_httpx_async_refused, "UNAVAILABLE", id="httpx.AsyncClient.ConnectError"),
    pytest.param(_httpx_read_timeout, "TIMEOUT", id="httpx.ReadTimeout"),
    pytest.param(_requests_refused, "UNAVAILABLE", id="requests.ConnectionError"),
    pytest.param(
        _aiohttp_refused, "UNAVAILABLE", id="aiohttp.ClientConnectorError", marks=NO_AIOHTTP
    ),
]


def via_pydantic_ai(tool: GuardedTool[Any, Any]) -> list[dict[str, Any]]:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.function import FunctionModel

    from contractgen.adapters.pydantic_ai import pydantic_ai_tool

    read: list[dict[str, Any]] = []

    def respond(messages: list[Any], info: Any) -> ModelResponse:
        read[:] = [
            dict(p.content) for m in messages for p in m.parts if isinstance(p, ToolReturnPart)
        ]
        arguments = next_arguments("down", read)
        if arguments is None:
            return ModelResponse(parts=[TextPart("the rates service is down")])
        return ModelResponse(
            parts=[ToolCallPart(tool.name, arguments, tool_call_id=f"c{len(read)}")]
        )

    agent = Agent(FunctionModel(respond), tools=[pydantic_ai_tool(tool)])
    anyio.run(lambda: agent.run("EUR to USD?", conversation_id="conv-1"))
    return read


def via_openai_agents(tool: GuardedTool[Any, Any]) -> list[dict[str, Any]]:
    from agents import Agent, RunConfig, Runner
    from agents.testing import ModelStep, ScriptedModel, assistant_message, function_call

    from contractgen.adapters.openai_agents import function_tool

    read: list[dict[str, Any]] = []

    def respond(call: Any) -> Any:
        read[:] = [
            json.loads(item["output"])
            for item in call.input
            if isinstance(item, dict) and item.get("type") == "function_call_output"
        ]
        arguments = next_arguments("down", read)
        if arguments is None:
            return [assistant_message("the rates service is down")]
        return [function_call(tool.name, arguments, call_id=f"c{len(read)}")]

    agent = Agent(
        name="fx",
        model=ScriptedModel([ModelStep.respond(respond) for _ in range(8)]),
        tools=[function_tool(tool)],
    )
    anyio.run(
        lambda: Runner.run(
            agent,
            "EUR to USD?",
            context={"session_id": "conv-1"},
            run_config=RunConfig(tracing_disabled=True),
        )
    )
    return read


def via_adk(tool: GuardedTool[Any, Any]) -> list[dict[str, Any]]:
    from google.adk.agents import Agent
    from google.adk.models import BaseLlm, LlmResponse
    from google.adk.runners import InMemoryRunner
    from google.genai import types

    from contractgen.adapters.adk import GuardedAdkTool

    read: list[dict[str, Any]] = []

    class Scripted(BaseLlm):
        model: str = "scripted"

        async def generate_content_async(self, llm_request: Any, stream: bool = False) -> Any:
            read[:] = [
                dict(part.function_response.response)
                for content in llm_request.contents
                for part in content.parts or ()
                if part.function_response is not None
            ]
            arguments = next_arguments("down", read)
            part = (
                types.Part(text="the rates service is down")
                if arguments is None
                else types.Part(
                    function_call=types.FunctionCall(
                        id=f"c{len(read)}", name=tool.name, args=arguments
                    )
                )
            )
            yield LlmResponse(content=types.Content(role="model", parts=[part]))

    async def main() -> None:
        runner = InMemoryRunner(
            agent=Agent(name="fx", model=Scripted(), tools=[GuardedAdkTool(tool)]), app_name="app"
        )
        await runner.session_service.create_session(
            app_name="app", user_id="u", session_id="conv-1"
        )
        message = types.Content(role="user", parts=[types.Part(text="EUR to USD?")])
        async for _ in runner.run_async(user_id="u", session_id="conv-1", new_message=message):
            pass

    anyio.run(main)
    return read


def via_langchain(tool: GuardedTool[Any, Any]) -> list[dict[str, Any]]:
    """LangChain's tool-calling loop as its docs write it: the model's tool calls are invoked and
    their ToolMessages appended until the model answers (asynchronously: ``ainvoke``)."""
    from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

    from contractgen.adapters.langchain import langchain_tool

    wrapped = langchain_tool(tool)
    config: Any = {"configurable": {"session_id": "conv-1"}}

    def model(messages: list[BaseMessage]) -> AIMessage:  # the scripted chat model's turn
        read = [json.loads(str(m.content)) for m in messages if isinstance(m, ToolMessage)]
        arguments = next_arguments("down", read)
        if arguments is None:
            return AIMessage("the rates service is down")
        return AIMessage(
            "", tool_calls=[{"name": tool.name, "args": arguments, "id": f"c{len(read)}"}]
        )

    async def main() -> list[BaseMessage]:
        messages: list[BaseMessage] = [HumanMessage("EUR to USD?")]
        while (reply := model(messages)).tool_calls:
            messages.append(reply)
            messages += [
                await wrapped.ainvoke({**call, "type": "tool_call"}, config)
                for call in reply.tool_calls
            ]
        return messages

    return [json.loads(str(m.content)) for m in anyio.run(main) if isinstance(m, ToolMessage)]


def via_fastmcp(tool: GuardedTool[Any, Any]) -> list[dict[str, Any]]:
    """A host over FastMCP's default client (its default, stateless protocol; no ``_meta``)."""
    from fastmcp import Client, FastMCP

    from contractgen.adapters.fastmcp import add_guarded_tools

    server = FastMCP("fx")
    add_guarded_tools(server, tool)
    read: list[dict[str, Any]] = []

    async def main() -> None:
        async with Client(server) as client:
            while (arguments := next_arguments("down", read)) is not None:
                result = await client.call_tool_mcp(tool.name, arguments)
                read.append(json.loads(result.content[0].text))  # what the model reads

    anyio.run(main)
    return read


FRAMEWORKS = {
    "pydantic_ai": via_pydantic_ai,
    "openai_agents": via_openai_agents,
    "adk": via_adk,
    "langchain": via_langchain,
    "fastmcp": via_fastmcp,
}


@pytest.mark.parametrize("framework", sorted(FRAMEWORKS))
@pytest.mark.parametrize(("family", "code"), FAMILIES)
def test_a_real_network_failure_is_retried_then_stopped_at_the_budget(
    framework: str,
    family: Callable[[int, int], Callable[[Any], Any]],
    code: str,
    closed_port: int,
    silent_port: int,
) -> None:
    read = FRAMEWORKS[framework](get_exchange_rate.implement(family(closed_port, silent_port)))
    errors = [envelope["error"] for envelope in read]
    assert [(e["code"], e["action"]) for e in errors] == [
        (code, "retry_later"),
        (code, "stop_and_tell_user"),
    ], read
    assert [e["retryable"] for e in errors] == [True, False]
    assert [e["budget"] for e in errors] == [
        {"consecutive_failures": 1, "limit": 2, "exhausted": False},
        {"consecutive_failures": 2, "limit": 2, "exhausted": True},
    ]
    text = json.dumps(read)
    assert str(closed_port) not in text and str(silent_port) not in text and HOST not in text
