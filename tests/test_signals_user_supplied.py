"""Arguments only the user can give (``user_supplied: [/account_number]``): a call without one answers
INVALID_ARGUMENT with the action ``ask_user``, telling the model to ask and not to invent it, on
every path the guard answers a bad call by (first, repeated, async, with other problems); the
description says so in one line; the OpenAI Agents SDK's own loop hands its model that action, and
in ADK's loop a scripted model that does what the action says asks the user instead of calling again
with a made-up account number (as it would after fix_arguments)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from signals_support import built_orders

from contractgen.compiler.describe import agent_instructions
from contractgen.runtime import ACTIONS

KEY = "k-7fQ2xLw9Zp4Rm8Tv"
NO_ACCOUNT = {"query": "blue kettle", "api_key": KEY}
ASK = (
    "Missing 'account_number', which only the user can give: ask the user for it; "
    "do not invent or guess a value. Then call again."
)


@pytest.fixture(scope="module")
def orders(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    yield from built_orders(tmp_path_factory.mktemp("orders"))


@pytest.fixture
def tool(orders: Any) -> Any:
    return orders.find_orders.implement(lambda args: {"orders": ["1"], "query_run": args.query})


def test_a_call_without_it_is_told_to_ask_the_user(tool: Any) -> None:
    error = tool(NO_ACCOUNT)["error"]
    assert error["code"] == "INVALID_ARGUMENT" and error["action"] == "ask_user"
    assert error["message"] == ASK and error["retryable"] is True
    assert error["field"] == "/account_number" and error["constraint"] == "required"
    assert KEY not in json.dumps(error)


def test_every_repeat_of_the_mistake_is_answered_alike(tool: Any) -> None:
    # the guard keeps envelopes per shape of mistake and per flat signature: none may lose the action
    first = tool(NO_ACCOUNT)
    for query in ("blue kettle", "red kettle", "green kettle", "blue kettle"):
        again = tool({**NO_ACCOUNT, "query": query})
        assert again["error"]["action"] == "ask_user" and again["error"]["message"] == ASK
    assert tool(NO_ACCOUNT) == first


def test_the_async_path_answers_the_same(tool: Any) -> None:
    assert asyncio.run(tool.acall(NO_ACCOUNT)) == tool(NO_ACCOUNT)


def test_other_problems_are_counted_and_listed(tool: Any) -> None:
    for _ in range(3):
        error = tool({"query": 7, "api_key": KEY})["error"]
        assert error["action"] == "ask_user" and error["field"] == "/account_number"
        assert error["message"] == ASK.replace(
            " Then", " Also fix 1 other problem in 'violations'. Then"
        )
        assert {v["field"] for v in error["violations"]} == {"/account_number", "/query"}


def test_a_missing_ordinary_argument_still_says_fix_arguments(tool: Any) -> None:
    error = tool({"api_key": KEY, "account_number": "12345678"})["error"]
    assert error["action"] == "fix_arguments" and error["field"] == "/query"


def test_a_wrong_value_given_is_not_an_ask(tool: Any) -> None:
    error = tool({**NO_ACCOUNT, "account_number": "12"})["error"]
    assert error["action"] == "fix_arguments" and error["constraint"] == "pattern"


def test_a_complete_call_runs(tool: Any) -> None:
    assert tool({**NO_ACCOUNT, "account_number": "12345678"})["status"] == "ok"


def test_the_description_and_the_shared_instructions_say_it(orders: Any) -> None:
    lines = orders.DESCRIPTION.splitlines()
    assert "Only the user can give account_number: ask the user, never invent or guess it." in lines
    assert "ask_user" in ACTIONS and "- ask_user: " + ACTIONS["ask_user"] in agent_instructions()


def test_openai_agents_loop_asks_the_user(tool: Any) -> None:
    from agents import Agent, RunConfig, Runner
    from agents.testing import ScriptedModel, assistant_message, function_call

    from contractgen.adapters.openai_agents import function_tool

    model = ScriptedModel(
        [
            [function_call("find_orders", NO_ACCOUNT, call_id="c1")],
            [assistant_message("What is your eight-digit account number?")],
        ]
    )
    agent = Agent(name="support", model=model, tools=[function_tool(tool)])
    result = asyncio.run(
        Runner.run(agent, "where is my blue kettle?", run_config=RunConfig(tracing_disabled=True))
    )
    model.assert_complete()
    outputs = [
        json.loads(item["output"])
        for item in model.calls[1].input
        if isinstance(item, dict) and item.get("type") == "function_call_output"
    ]
    assert [o["error"]["action"] for o in outputs] == ["ask_user"]
    assert outputs[0]["error"]["message"] == ASK
    assert result.final_output == "What is your eight-digit account number?"


def test_adk_loop_a_model_that_follows_the_action_asks_instead_of_inventing(tool: Any) -> None:
    from google.adk.agents import Agent
    from google.adk.models import BaseLlm, LlmResponse
    from google.adk.runners import InMemoryRunner
    from google.genai import types

    from contractgen.adapters.adk import GuardedAdkTool

    class FollowsActions(BaseLlm):
        """Calls without the account number, then does what the envelope's action says: on
        fix_arguments it would fill in a made-up number; on ask_user it asks the user."""

        model: str = "scripted"
        calls: int = 0

        async def generate_content_async(self, llm_request: Any, stream: bool = False) -> Any:
            answers = [
                dict(p.function_response.response)
                for c in llm_request.contents
                for p in c.parts or ()
                if p.function_response is not None
            ]
            action = (
                answers[-1]["error"]["action"]
                if answers and answers[-1]["status"] == "error"
                else None
            )
            if not answers or action == "fix_arguments":
                self.calls += 1
                made_up = {} if not answers else {"account_number": "00000000"}
                call = types.FunctionCall(
                    id=f"c{self.calls}", name="find_orders", args={**NO_ACCOUNT, **made_up}
                )
                part = types.Part(function_call=call)
            else:
                part = types.Part(
                    text="What is your account number?" if action == "ask_user" else "done"
                )
            yield LlmResponse(content=types.Content(role="model", parts=[part]))

    async def main() -> tuple[Any, list[Any]]:
        llm = FollowsActions()
        runner = InMemoryRunner(
            agent=Agent(name="support", model=llm, tools=[GuardedAdkTool(tool)]), app_name="app"
        )
        await runner.session_service.create_session(
            app_name="app", user_id="u", session_id="conv-1"
        )
        message = types.Content(role="user", parts=[types.Part(text="where is my kettle?")])
        events = [
            e async for e in runner.run_async(user_id="u", session_id="conv-1", new_message=message)
        ]
        return llm, events

    llm, events = asyncio.run(main())
    assert llm.calls == 1  # one call, no second one with an invented account number
    assert events[-1].content.parts[0].text == "What is your account number?"
