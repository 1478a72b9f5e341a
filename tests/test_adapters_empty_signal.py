"""The empty signal reaches the model on each framework's own tool-result path: search_documents
finds nothing, and what the framework's agent loop (scripted model) hands the model holds
``empty: true`` and the contract's ``empty_meaning`` beside the output. (ADK:
tests/test_adapters_adk_foreign.py; MCP hosts: tests/test_adapters_signals.py.)"""

from __future__ import annotations

import json
from typing import Any

import anyio

from generated import search_documents_v1 as search

NOTHING = {"results": [], "complete": True}
CALL = {"query": "travel policy"}


def empty_search() -> Any:
    return search.search_documents.implement(lambda args: NOTHING)


def assert_empty_signal(seen: dict[str, Any]) -> None:
    assert seen["status"] == "ok" and seen["output"] == NOTHING and seen["empty"] is True
    assert seen["empty_meaning"] == search.CONTRACT.empty_result.meaning


def test_openai_agents() -> None:
    from agents import Agent, RunConfig, Runner
    from agents.testing import ScriptedModel, assistant_message, function_call

    from contractgen.adapters.openai_agents import function_tool

    model = ScriptedModel([[function_call("search_documents", CALL, call_id="c1")], [assistant_message("done")]])
    agent = Agent(name="fx", model=model, tools=[function_tool(empty_search())])
    anyio.run(lambda: Runner.run(agent, "find it", run_config=RunConfig(tracing_disabled=True)))
    outputs = [item["output"] for item in model.calls[1].input
               if isinstance(item, dict) and item.get("type") == "function_call_output"]
    assert_empty_signal(json.loads(outputs[0]))


def test_pydantic_ai() -> None:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    from contractgen.adapters.pydantic_ai import pydantic_ai_tool

    returns: list[Any] = []

    def model(messages: list[Any], info: AgentInfo) -> ModelResponse:
        returns.extend(p for m in messages for p in m.parts if isinstance(p, ToolReturnPart))
        if not returns:
            return ModelResponse(parts=[ToolCallPart("search_documents", CALL, tool_call_id="c1")])
        return ModelResponse(parts=[TextPart("done")])

    anyio.run(lambda: Agent(FunctionModel(model), tools=[pydantic_ai_tool(empty_search())]).run("find it"))
    assert_empty_signal(json.loads(returns[0].model_response_str()))  # the text the model is sent


def test_langchain() -> None:
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
    from test_adapters_langchain import ScriptedChat

    from contractgen.adapters.langchain import langchain_tool

    class SearchOnce(ScriptedChat):
        def _generate(self, messages: list[Any], *args: Any, **kwargs: Any) -> Any:
            self.seen.append(list(messages))
            done = any(isinstance(m, ToolMessage) for m in messages)
            self.messages = iter([AIMessage("done") if done else AIMessage(
                "", tool_calls=[{"name": "search_documents", "args": CALL, "id": "c1"}])])
            return super(ScriptedChat, self)._generate(messages, *args, **kwargs)

    tool = langchain_tool(empty_search())
    chat = SearchOnce(seen=[], bound=[])
    model = chat.bind_tools([tool])
    messages: list[Any] = [HumanMessage("find it")]
    config = {"configurable": {"session_id": "conv-1"}}
    while (reply := model.invoke(messages, config)).tool_calls:
        messages += [reply, *(tool.invoke({**call, "type": "tool_call"}, config) for call in reply.tool_calls)]
    sent = [m for m in chat.seen[-1] if isinstance(m, ToolMessage)]
    assert sent[0].status == "success"
    assert_empty_signal(json.loads(sent[0].content))
