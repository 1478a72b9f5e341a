"""Each framework's own agent loop around one guarded tool, with a scripted model that reads only
what its framework hands it: ``decide(read)`` is the model, given the envelopes read so far (decoded
from the tool results as the model got them), answering the next call's arguments or None to stop.
Each loop returns what the model read. With ``app_session`` the application names the conversation
(pydantic-ai's ``conversation_id``, the OpenAI run context, LangChain's ``configurable``); without it
each framework is left to its defaults. ADK's session (its runner's) and FastMCP's default client
(its default protocol) are their defaults either way."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import anyio

from contractgen.runtime import GuardedTool

#: the scripted model: the envelopes read so far -> the next call's arguments, or None to answer
Decide = Callable[[list[dict[str, Any]]], "dict[str, Any] | None"]


def as_read(output: Any) -> dict[str, Any]:
    """A tool result as the model got it, decoded: JSON text, a content item or a list of them
    (MCP hosts), or an object."""
    if isinstance(output, list):
        output = output[0]
    if isinstance(output, dict) and isinstance(output.get("text"), str):
        output = output["text"]
    return json.loads(output) if isinstance(output, str) else dict(output)


def pydantic_ai_model(name: str, decide: Decide, read: list[dict[str, Any]]) -> Any:
    """pydantic-ai's scripted model, keeping in ``read`` the tool returns it was handed."""
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.function import FunctionModel

    def respond(messages: list[Any], info: Any) -> ModelResponse:
        read[:] = [
            as_read(p.content) for m in messages for p in m.parts if isinstance(p, ToolReturnPart)
        ]
        arguments = decide(read)
        if arguments is None:
            return ModelResponse(parts=[TextPart("done")])
        return ModelResponse(parts=[ToolCallPart(name, arguments, tool_call_id=f"c{len(read)}")])

    return FunctionModel(respond)


def openai_agents_model(name: str, decide: Decide, read: list[dict[str, Any]]) -> Any:
    """The OpenAI Agents SDK's scripted model, keeping in ``read`` the tool outputs it was handed."""
    from agents.testing import ModelStep, ScriptedModel, assistant_message, function_call

    def respond(call: Any) -> Any:
        read[:] = [
            as_read(item["output"])
            for item in call.input
            if isinstance(item, dict) and item.get("type") == "function_call_output"
        ]
        arguments = decide(read)
        if arguments is None:
            return [assistant_message("done")]
        return [function_call(name, arguments, call_id=f"c{len(read)}")]

    return ScriptedModel([ModelStep.respond(respond) for _ in range(8)])


def via_pydantic_ai(
    tool: GuardedTool[Any, Any], decide: Decide, *, app_session: bool = True
) -> list[dict[str, Any]]:
    from pydantic_ai import Agent

    from contractgen.adapters.pydantic_ai import pydantic_ai_tool

    read: list[dict[str, Any]] = []
    agent = Agent(pydantic_ai_model(tool.name, decide, read), tools=[pydantic_ai_tool(tool)])
    anyio.run(lambda: agent.run("go", conversation_id="conv-1" if app_session else None))
    return read


def via_openai_agents(
    tool: GuardedTool[Any, Any], decide: Decide, *, app_session: bool = True
) -> list[dict[str, Any]]:
    from agents import Agent, RunConfig, Runner

    from contractgen.adapters.openai_agents import function_tool

    read: list[dict[str, Any]] = []
    agent = Agent(
        name="fx", model=openai_agents_model(tool.name, decide, read), tools=[function_tool(tool)]
    )
    anyio.run(
        lambda: Runner.run(
            agent,
            "go",
            context={"session_id": "conv-1"} if app_session else None,
            run_config=RunConfig(tracing_disabled=True),
        )
    )
    return read


def via_adk(
    tool: GuardedTool[Any, Any], decide: Decide, *, app_session: bool = True
) -> list[dict[str, Any]]:
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
            arguments = decide(read)
            part = (
                types.Part(text="done")
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
        message = types.Content(role="user", parts=[types.Part(text="go")])
        async for _ in runner.run_async(user_id="u", session_id="conv-1", new_message=message):
            pass

    anyio.run(main)
    return read


def via_langchain(
    tool: GuardedTool[Any, Any], decide: Decide, *, app_session: bool = True
) -> list[dict[str, Any]]:
    """LangChain's tool-calling loop as its docs write it: the model's tool calls are invoked and
    their ToolMessages appended until the model answers (asynchronously: ``ainvoke``)."""
    from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

    from contractgen.adapters.langchain import langchain_tool

    wrapped = langchain_tool(tool)
    config: Any = {"configurable": {"session_id": "conv-1"}} if app_session else None

    def model(messages: list[BaseMessage]) -> AIMessage:  # the scripted chat model's turn
        read = [json.loads(str(m.content)) for m in messages if isinstance(m, ToolMessage)]
        arguments = decide(read)
        if arguments is None:
            return AIMessage("done")
        return AIMessage(
            "", tool_calls=[{"name": tool.name, "args": arguments, "id": f"c{len(read)}"}]
        )

    async def main() -> list[BaseMessage]:
        messages: list[BaseMessage] = [HumanMessage("go")]
        while (reply := model(messages)).tool_calls:
            messages.append(reply)
            messages += [
                await wrapped.ainvoke({**call, "type": "tool_call"}, config)
                for call in reply.tool_calls
            ]
        return messages

    return [json.loads(str(m.content)) for m in anyio.run(main) if isinstance(m, ToolMessage)]


def via_fastmcp(
    tool: GuardedTool[Any, Any], decide: Decide, *, app_session: bool = True
) -> list[dict[str, Any]]:
    """A host over FastMCP's default client (its default, stateless protocol; no ``_meta``)."""
    from fastmcp import Client, FastMCP

    from contractgen.adapters.fastmcp import add_guarded_tools

    server = FastMCP("fx")
    add_guarded_tools(server, tool)
    read: list[dict[str, Any]] = []

    async def main() -> None:
        async with Client(server) as client:
            while (arguments := decide(read)) is not None:
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
