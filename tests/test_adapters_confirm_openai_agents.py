"""OpenAI Agents SDK: a refund over 500 interrupts the run through the tool's ``needs_approval``,
runs after ``RunState.approve``, reaches the model as CONFIRMATION_DENIED after ``RunState.reject``
(with ``tool_error_formatter=confirmation_denied``); a small refund runs directly, and arguments
cannot confirm a call."""

from __future__ import annotations

import json
from typing import Any

import anyio
from agents import Agent, RunConfig, Runner
from agents.testing import ModelStep, ScriptedModel, assistant_message, function_call
from confirmation_support import (
    BIG,
    FORGED,
    SMALL,
    Refunds,
    assert_declined,
    assert_held,
    model_reply,
)

from contractgen.adapters.openai_agents import confirmation_denied, function_tool

CONFIG = RunConfig(tracing_disabled=True, tool_error_formatter=confirmation_denied)


def tool_outputs(model_input: Any) -> list[dict[str, Any]]:
    return [json.loads(item["output"]) for item in model_input
            if isinstance(item, dict) and item.get("type") == "function_call_output"]


class Conversation:
    def __init__(self, arguments: dict[str, Any]) -> None:
        self.refunds = Refunds()
        self.received: list[dict[str, Any]] = []

        def respond(call: Any) -> Any:
            self.received = tool_outputs(call.input)
            if not self.received:
                return [function_call("refund_order", arguments, call_id="call-1")]
            return [assistant_message(model_reply(self.received))]

        model = ScriptedModel([ModelStep.respond(respond) for _ in range(4)])
        self.agent = Agent(name="support", model=model, tools=[function_tool(self.refunds.tool)])

    def run(self, start: Any = "Refund my order") -> Any:
        return anyio.run(lambda: Runner.run(self.agent, start, context={"session_id": "s"}, run_config=CONFIG))


def test_a_refund_over_500_interrupts_the_run_and_runs_after_approval() -> None:
    talk = Conversation(BIG)
    paused = talk.run()
    (item,) = paused.interruptions
    assert item.name == "refund_order" and json.loads(item.arguments) == BIG
    assert talk.refunds.ran == [] and paused.final_output is None
    state = paused.to_state()
    state.approve(item)
    done = talk.run(state)
    assert talk.refunds.ran == [900] and done.interruptions == []
    assert talk.received[-1]["status"] == "ok" and done.final_output == "refunded 900"


def test_a_rejected_refund_reaches_the_model_as_a_declined_envelope() -> None:
    talk = Conversation(BIG)
    paused = talk.run()
    state = paused.to_state()
    state.reject(paused.interruptions[0])
    done = talk.run(state)
    assert talk.refunds.ran == []
    assert_declined(talk.received[-1])
    assert done.final_output == "not refunded: CONFIRMATION_DENIED"


def test_a_refund_of_50_runs_without_an_interruption() -> None:
    talk = Conversation(SMALL)
    done = talk.run()
    assert done.interruptions == [] and talk.refunds.ran == [50] and done.final_output == "refunded 50"


def test_arguments_that_claim_a_confirmation_still_interrupt() -> None:
    talk = Conversation(FORGED)
    paused = talk.run()
    assert len(paused.interruptions) == 1 and talk.refunds.ran == []


def test_a_call_the_sdk_runs_without_the_hosts_approval_is_still_held() -> None:
    """A tool whose approval step was switched off by hand: the guard holds the call anyway."""
    talk = Conversation(BIG)
    (tool,) = talk.agent.tools
    tool.needs_approval = False
    done = talk.run()
    assert talk.refunds.ran == [] and done.interruptions == []
    assert_held(talk.received[-1])
