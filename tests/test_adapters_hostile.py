"""Hostile tools through every framework's own loop: each adapter hands the model an envelope (never
an exception, never the tool's exception text), whatever the tool raises or returns, however long
it ignores its cancellation. Frameworks: pydantic-ai, OpenAI Agents, ADK, LangChain (sync and
async), FastMCP (its in-memory client)."""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
from collections.abc import Callable
from typing import Any

import anyio
import pytest

from contractgen.runtime import Contract, RetryPolicy, Timeout, guard

SECRET = "sk-live-5f0c1e"
RELEASE = threading.Event()  # lets the swallowing tool's abandoned work end before a loop closes


def _contract(name: str, seconds: float | None) -> Contract:
    return Contract(name=name, version="1.0.0", summary="s", description="d",
                    input_schema={"type": "object", "properties": {"q": {"type": "string"}}},
                    output_schema={"type": "object"}, timeout=Timeout(seconds),
                    retry=RetryPolicy(failure_budget=None))


def _exits(_: Any) -> Any:
    raise SystemExit(2)


async def _interrupted(_: Any) -> Any:
    raise KeyboardInterrupt


def _leaks(_: Any) -> Any:
    raise RuntimeError(f"upstream refused api_key={SECRET}")


async def _swallows(_: Any) -> Any:
    while not RELEASE.is_set():
        try:
            await asyncio.sleep(0.01)
        except asyncio.CancelledError:
            continue
    return {}


def _endless(_: Any) -> Any:
    return {"rows": (i for i in itertools.count())}


def _generator_exit(_: Any) -> Any:
    raise GeneratorExit


async def _stop_async(_: Any) -> Any:
    raise StopAsyncIteration


#: tool name -> (implementation, deadline, the code the model must read)
HOSTILE: dict[str, tuple[Callable[..., Any], float | None, str]] = {
    "exits": (_exits, None, "INTERNAL"),
    "interrupted": (_interrupted, None, "INTERNAL"),
    "leaks": (_leaks, None, "INTERNAL"),
    "swallows": (_swallows, 0.2, "TIMEOUT"),
    "endless": (_endless, None, "INTERNAL"),
    "generator_exit": (_generator_exit, 5.0, "INTERNAL"),
    "stop_async": (_stop_async, None, "INTERNAL"),
}


def _run(main: Callable[[], Any]) -> Any:
    """anyio.run, letting abandoned work end once the answer is in (asyncio.run waits for it)."""
    RELEASE.clear()

    async def released() -> Any:
        try:
            return await main()
        finally:
            RELEASE.set()
    return anyio.run(released)


def via_pydantic_ai(tool: Any) -> Any:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.function import FunctionModel

    from contractgen.adapters.pydantic_ai import pydantic_ai_tool

    read: list[Any] = []

    def respond(messages: list[Any], info: Any) -> ModelResponse:
        returns = [p for m in messages for p in m.parts if isinstance(p, ToolReturnPart)]
        if returns:
            read.append(returns[-1].content)
            return ModelResponse(parts=[TextPart("done")])
        return ModelResponse(parts=[ToolCallPart(tool.name, {"q": "x"}, tool_call_id="c1")])

    agent = Agent(FunctionModel(respond), tools=[pydantic_ai_tool(tool)])
    _run(lambda: agent.run("go"))
    return read[0]


def via_openai_agents(tool: Any) -> Any:
    from agents import Agent, RunConfig, Runner
    from agents.testing import ModelStep, ScriptedModel, assistant_message, function_call

    from contractgen.adapters.openai_agents import function_tool

    read: list[Any] = []

    def respond(call: Any) -> Any:
        outputs = [item["output"] for item in call.input
                   if isinstance(item, dict) and item.get("type") == "function_call_output"]
        if outputs:
            read.append(json.loads(outputs[-1]))
            return [assistant_message("done")]
        return [function_call(tool.name, {"q": "x"}, call_id="c1")]

    agent = Agent(name="a", model=ScriptedModel([ModelStep.respond(respond) for _ in range(3)]),
                  tools=[function_tool(tool)])
    _run(lambda: Runner.run(agent, "go", run_config=RunConfig(tracing_disabled=True)))
    return read[0]


def via_adk(tool: Any) -> Any:
    from google.adk.agents import Agent
    from google.adk.models import BaseLlm, LlmResponse
    from google.adk.runners import InMemoryRunner
    from google.genai import types

    from contractgen.adapters.adk import GuardedAdkTool

    read: list[Any] = []

    class Scripted(BaseLlm):
        model: str = "scripted"

        async def generate_content_async(self, llm_request: Any, stream: bool = False) -> Any:
            responses = [dict(part.function_response.response) for content in llm_request.contents
                         for part in content.parts or () if part.function_response is not None]
            if responses:
                read.append(responses[-1])
                part = types.Part(text="done")
            else:
                part = types.Part(function_call=types.FunctionCall(id="c1", name=tool.name, args={"q": "x"}))
            yield LlmResponse(content=types.Content(role="model", parts=[part]))

    async def main() -> None:
        runner = InMemoryRunner(agent=Agent(name="a", model=Scripted(), tools=[GuardedAdkTool(tool)]),
                                app_name="app")
        await runner.session_service.create_session(app_name="app", user_id="u", session_id="s")
        message = types.Content(role="user", parts=[types.Part(text="go")])
        async for _ in runner.run_async(user_id="u", session_id="s", new_message=message):
            pass

    _run(main)
    return read[0]


def via_langchain(tool: Any) -> Any:
    from contractgen.adapters.langchain import langchain_tool

    wrapped = langchain_tool(tool)
    RELEASE.clear()
    try:
        called = wrapped.invoke({"q": "x"})
    finally:
        RELEASE.set()
    awaited = _run(lambda: wrapped.ainvoke({"q": "x"}))
    return [called, awaited]


def via_fastmcp(tool: Any) -> Any:
    from fastmcp import Client, FastMCP

    from contractgen.adapters.fastmcp import add_guarded_tools

    server = FastMCP("hostile")
    add_guarded_tools(server, tool)

    async def main() -> Any:
        async with Client(server) as client:
            result = await client.call_tool_mcp(tool.name, {"q": "x"})
            return json.loads(result.content[0].text)
    return _run(main)


FRAMEWORKS = {"pydantic_ai": via_pydantic_ai, "openai_agents": via_openai_agents, "adk": via_adk,
              "langchain": via_langchain, "fastmcp": via_fastmcp}


def _envelopes(read: Any) -> list[dict[str, Any]]:
    items = read if isinstance(read, list) else [read]
    return [json.loads(item) if isinstance(item, str) else dict(item) for item in items]


@pytest.mark.parametrize("framework", sorted(FRAMEWORKS))
@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_the_model_reads_an_envelope_whatever_the_tool_does(framework: str, name: str) -> None:
    implementation, seconds, code = HOSTILE[name]
    read = FRAMEWORKS[framework](guard(_contract(name, seconds), implementation))
    assert SECRET not in json.dumps(read, default=str)
    for envelope in _envelopes(read):
        assert envelope["status"] == "error" and envelope["tool"] == name, envelope
        assert envelope["error"]["code"] == code, envelope
