"""Escalation through the framework, opt-in per tool or per code: an error whose action is escalate
tells a human (a WARNING with the envelope's ref in the ``contractgen.adapters`` log, and
``on_escalate``) and triggers the framework's own mechanism, tested in each framework's loop with its
scripted model: ADK's ``escalate`` action (a LoopAgent around the agent stops) and its transfer to
another agent, and the OpenAI Agents SDK's ``tool_use_behavior`` ending the run."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from google.adk.agents import Agent, LoopAgent
from google.adk.models import BaseLlm, LlmResponse
from google.adk.runners import InMemoryRunner
from google.genai import types
from pydantic import Field
from signals_support import built_orders

from contractgen.adapters.adk import Escalation, GuardedAdkTool

# LoopAgent warns that ADK's Workflow replaces it, but a Workflow cannot hold an LlmAgent yet
pytestmark = pytest.mark.filterwarnings("ignore:LoopAgent is deprecated:DeprecationWarning")

CALL = {"query": "blue kettle", "api_key": "k-7fQ2xLw9Zp4Rm8Tv", "account_number": "12345678"}


@pytest.fixture(scope="module")
def orders(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    yield from built_orders(tmp_path_factory.mktemp("orders"))


def locked(orders: Any) -> Any:
    def find(args: Any) -> Any:
        raise orders.AccountLocked()

    return orders.find_orders.implement(find)


class OrdersLlm(BaseLlm):
    """Calls find_orders once per turn of its agent, then answers with text."""

    model: str = "scripted"
    seen: list[Any] = Field(default_factory=list)

    async def generate_content_async(self, llm_request: Any, stream: bool = False) -> Any:
        self.seen.append(llm_request.model_copy(deep=True))
        last = llm_request.contents[-1].parts[0] if llm_request.contents else None
        if last is not None and last.function_response is not None:
            part = types.Part(text="An operator has to unlock your account.")
        else:
            part = types.Part(
                function_call=types.FunctionCall(
                    id=f"c{len(self.seen)}", name="find_orders", args=CALL
                )
            )
        yield LlmResponse(content=types.Content(role="model", parts=[part]))


class DeskLlm(BaseLlm):
    model: str = "desk"
    seen: list[Any] = Field(default_factory=list)

    async def generate_content_async(self, llm_request: Any, stream: bool = False) -> Any:
        self.seen.append(llm_request)
        yield LlmResponse(
            content=types.Content(role="model", parts=[types.Part(text="A person will call you.")])
        )


def run_adk(agent: Any) -> list[Any]:
    async def main() -> list[Any]:
        runner = InMemoryRunner(agent=agent, app_name="app")
        await runner.session_service.create_session(
            app_name="app", user_id="u", session_id="conv-1"
        )
        message = types.Content(role="user", parts=[types.Part(text="where is my kettle?")])
        return [
            event
            async for event in runner.run_async(
                user_id="u", session_id="conv-1", new_message=message
            )
        ]

    return asyncio.run(main())


def responses(events: list[Any]) -> list[dict[str, Any]]:
    return [
        dict(p.function_response.response)
        for e in events
        for p in (e.content.parts if e.content else ())
        if p.function_response is not None
    ]


def test_adk_escalate_stops_the_loop_and_tells_a_human(
    orders: Any, caplog: pytest.LogCaptureFixture
) -> None:
    told: list[Any] = []
    llm = OrdersLlm()
    tool = GuardedAdkTool(locked(orders), escalate={"PERMISSION_DENIED"}, on_escalate=told.append)
    loop = LoopAgent(
        name="desk_loop",
        max_iterations=3,
        sub_agents=[Agent(name="support", model=llm, tools=[tool])],
    )
    with caplog.at_level(logging.WARNING, logger="contractgen.adapters"):
        events = run_adk(loop)
    [envelope] = responses(events)  # one iteration: without the escalation the loop runs three
    ref = envelope["error"]["ref"]
    assert envelope["error"]["action"] == "escalate" and len(ref) == 8
    assert [e.actions.escalate for e in events if e.actions.escalate] == [True]
    assert [(t.tool, t.code, t.ref, t.session) for t in told] == [
        ("find_orders", "PERMISSION_DENIED", ref, "conv-1")
    ]
    assert [r.levelname for r in caplog.records if ref in r.getMessage()] == ["WARNING"]


def test_adk_without_the_option_the_loop_goes_on_and_nobody_is_paged(
    orders: Any, caplog: pytest.LogCaptureFixture
) -> None:
    loop = LoopAgent(
        name="desk_loop",
        max_iterations=3,
        sub_agents=[
            Agent(name="support", model=OrdersLlm(), tools=[GuardedAdkTool(locked(orders))])
        ],
    )
    with caplog.at_level(logging.WARNING, logger="contractgen.adapters"):
        events = run_adk(loop)
    assert len(responses(events)) == 3 and not any(e.actions.escalate for e in events)
    assert not [r for r in caplog.records if "escalated" in r.getMessage()]


def test_adk_an_escalation_of_other_codes_leaves_this_one(orders: Any) -> None:
    told: list[Any] = []
    tool = GuardedAdkTool(locked(orders), escalate={"FAILED_PRECONDITION"}, on_escalate=told.append)
    loop = LoopAgent(
        name="desk_loop",
        max_iterations=2,
        sub_agents=[Agent(name="support", model=OrdersLlm(), tools=[tool])],
    )
    assert len(responses(run_adk(loop))) == 2 and told == []


def test_adk_transfer_hands_the_conversation_to_another_agent(orders: Any) -> None:
    desk = DeskLlm()
    tool = GuardedAdkTool(locked(orders), escalate=Escalation(transfer_to="human_desk"))
    root = Agent(
        name="support",
        model=OrdersLlm(),
        tools=[tool],
        sub_agents=[
            Agent(name="human_desk", model=desk, description="People who unlock accounts.")
        ],
    )
    events = run_adk(root)
    assert [e.actions.transfer_to_agent for e in events if e.actions.transfer_to_agent] == [
        "human_desk"
    ]
    assert len(desk.seen) == 1
    assert (
        events[-1].author == "human_desk"
        and events[-1].content.parts[0].text == "A person will call you."
    )


def test_a_failing_on_escalate_changes_nothing(
    orders: Any, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(event: Any) -> None:
        raise RuntimeError("pager down")

    loop = LoopAgent(
        name="desk_loop",
        max_iterations=3,
        sub_agents=[
            Agent(
                name="support",
                model=OrdersLlm(),
                tools=[GuardedAdkTool(locked(orders), escalate=True, on_escalate=broken)],
            )
        ],
    )
    with caplog.at_level(logging.WARNING, logger="contractgen.adapters"):
        events = run_adk(loop)
    assert len(responses(events)) == 1
    assert any(
        r.levelname == "ERROR" and "on_escalate failed" in r.getMessage() for r in caplog.records
    )


def test_unknown_codes_are_refused_when_the_option_is_made() -> None:
    with pytest.raises(ValueError, match="expected codes of the closed set"):
        Escalation(frozenset({"PERMISSION_DENEID"}))


def openai_run(tool: Any) -> tuple[Any, Any]:
    from agents import Agent as OaiAgent
    from agents import RunConfig, Runner
    from agents.testing import ScriptedModel, assistant_message, function_call

    from contractgen.adapters.openai_agents import stop_on_escalation

    model = ScriptedModel(
        [
            [function_call("find_orders", CALL, call_id="c1")],
            [assistant_message("I looked into it.")],
        ]
    )
    agent = OaiAgent(
        name="support", model=model, tools=[tool], tool_use_behavior=stop_on_escalation
    )
    result = asyncio.run(
        Runner.run(agent, "where is my kettle?", run_config=RunConfig(tracing_disabled=True))
    )
    return result, model


def test_openai_agents_run_ends_on_escalation(
    orders: Any, caplog: pytest.LogCaptureFixture
) -> None:
    from contractgen.adapters.openai_agents import function_tool

    told: list[Any] = []
    with caplog.at_level(logging.WARNING, logger="contractgen.adapters"):
        result, model = openai_run(
            function_tool(locked(orders), escalate=True, on_escalate=told.append)
        )
    assert len(model.calls) == 1  # the model never improvises an answer after the escalation
    envelope = json.loads(result.final_output)
    assert (
        envelope["error"]["code"] == "PERMISSION_DENIED" and envelope["error"]["ref"] == told[0].ref
    )
    assert any(r.levelname == "WARNING" and told[0].ref in r.getMessage() for r in caplog.records)


def test_openai_agents_other_errors_go_back_to_the_model(orders: Any) -> None:
    from contractgen.adapters.openai_agents import function_tool

    def missing(args: Any) -> Any:
        raise orders.ArchiveMissing()

    result, model = openai_run(function_tool(orders.find_orders.implement(missing), escalate=True))
    assert len(model.calls) == 2 and result.final_output == "I looked into it."
    result, model = openai_run(function_tool(locked(orders)))  # not opted in: the model answers
    assert len(model.calls) == 2 and result.final_output == "I looked into it."


def test_pydantic_ai_defers_the_call_to_a_person(
    orders: Any, caplog: pytest.LogCaptureFixture
) -> None:
    from pydantic_ai import Agent as PaiAgent
    from pydantic_ai import DeferredToolRequests
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    from contractgen.adapters.pydantic_ai import pydantic_ai_tool

    turns: list[Any] = []

    def model(messages: list[Any], info: AgentInfo) -> ModelResponse:
        turns.append(messages)
        if len(turns) == 1:
            return ModelResponse(parts=[ToolCallPart("find_orders", CALL, tool_call_id="c1")])
        return ModelResponse(parts=[TextPart("I looked into it.")])

    told: list[Any] = []
    tool = pydantic_ai_tool(locked(orders), escalate=True, on_escalate=told.append)
    agent = PaiAgent(FunctionModel(model), tools=[tool], output_type=[str, DeferredToolRequests])
    with caplog.at_level(logging.WARNING, logger="contractgen.adapters"):
        result = asyncio.run(agent.run("where is my kettle?", conversation_id="conv-1"))
    assert isinstance(result.output, DeferredToolRequests) and len(turns) == 1
    [call] = result.output.calls
    envelope = result.output.metadata[call.tool_call_id]["envelope"]
    assert (
        envelope["error"]["code"] == "PERMISSION_DENIED" and envelope["error"]["ref"] == told[0].ref
    )
    assert told[0].session == "conversation:conv-1"
    assert any(r.levelname == "WARNING" and told[0].ref in r.getMessage() for r in caplog.records)


def test_langchain_tells_a_human_and_the_model_reads_the_ref(
    orders: Any, caplog: pytest.LogCaptureFixture
) -> None:
    from contractgen.adapters.langchain import langchain_tool

    told: list[Any] = []
    tool = langchain_tool(locked(orders), escalate={"PERMISSION_DENIED"}, on_escalate=told.append)
    config = {"configurable": {"session_id": "conv-1"}}
    with caplog.at_level(logging.WARNING, logger="contractgen.adapters"):
        message = tool.invoke(
            {"name": "find_orders", "args": CALL, "id": "c1", "type": "tool_call"}, config
        )
    envelope = json.loads(message.content)
    assert message.status == "error" and envelope["error"]["ref"] == told[0].ref
    assert told[0].session == "session:conv-1"
    assert any(told[0].ref in r.getMessage() for r in caplog.records if r.levelname == "WARNING")
    plain = langchain_tool(locked(orders)).invoke(
        {"name": "find_orders", "args": CALL, "id": "c2", "type": "tool_call"}, config
    )
    assert "ref" not in json.loads(plain.content)["error"]  # not opted in: nobody is told


def test_fastmcp_tells_a_human(orders: Any, caplog: pytest.LogCaptureFixture) -> None:
    from fastmcp import Client, FastMCP

    from contractgen.adapters.fastmcp import add_guarded_tools

    told: list[Any] = []
    server = FastMCP("orders")
    add_guarded_tools(server, locked(orders), escalate=True, on_escalate=told.append)

    async def main() -> Any:
        async with Client(server) as client:
            return await client.call_tool_mcp("find_orders", CALL)

    with caplog.at_level(logging.WARNING, logger="contractgen.adapters"):
        result = asyncio.run(main())
    assert result.is_error and result.structured_content["error"]["ref"] == told[0].ref
    assert any(told[0].ref in r.getMessage() for r in caplog.records if r.levelname == "WARNING")
