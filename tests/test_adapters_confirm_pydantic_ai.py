"""pydantic-ai: a refund over 500 is deferred for approval (the run ends with ``DeferredToolRequests``),
runs after ``DeferredToolResults(approvals={id: True})``, reaches the model as CONFIRMATION_DENIED
after ``confirmation_denied``; a small refund runs directly, and arguments cannot confirm a call."""

from __future__ import annotations

import json
from typing import Any

import anyio
from confirmation_support import (
    BIG,
    FORGED,
    SMALL,
    SUMMARY,
    Refunds,
    assert_declined,
    model_reply,
)
from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from contractgen.adapters.pydantic_ai import confirmation_denied, pydantic_ai_tool


class Conversation:
    def __init__(self, arguments: dict[str, Any]) -> None:
        self.refunds = Refunds()
        self.received: list[dict[str, Any]] = []

        def script(messages: list[Any], info: AgentInfo) -> ModelResponse:
            self.received = [part.content if isinstance(part.content, dict) else json.loads(part.content)
                             for message in messages for part in message.parts
                             if isinstance(part, ToolReturnPart)]
            if not self.received:
                return ModelResponse(parts=[ToolCallPart("refund_order", arguments, tool_call_id="call-1")])
            return ModelResponse(parts=[TextPart(model_reply(self.received))])

        self.agent = Agent(FunctionModel(script), tools=[pydantic_ai_tool(self.refunds.tool)],
                           output_type=[str, DeferredToolRequests])

    def run(self, **options: Any) -> Any:
        return anyio.run(lambda: self.agent.run("Refund my order", **options))


def test_a_refund_over_500_is_deferred_and_runs_after_approval() -> None:
    talk = Conversation(BIG)
    paused = talk.run()
    requests = paused.output
    assert isinstance(requests, DeferredToolRequests) and talk.refunds.ran == []
    (call,) = requests.approvals
    assert call.args_as_dict() == BIG and requests.metadata[call.tool_call_id] == {"summary": SUMMARY}
    done = talk.run(message_history=paused.all_messages(),
                    deferred_tool_results=DeferredToolResults(approvals={call.tool_call_id: True}))
    assert talk.refunds.ran == [900] and talk.received[-1]["status"] == "ok"
    assert done.output == "refunded 900"


def test_a_denied_refund_reaches_the_model_as_a_declined_envelope() -> None:
    talk = Conversation(BIG)
    paused = talk.run()
    (call,) = paused.output.approvals
    denial = confirmation_denied(talk.refunds.tool, call)
    done = talk.run(message_history=paused.all_messages(),
                    deferred_tool_results=DeferredToolResults(approvals={call.tool_call_id: denial}))
    assert talk.refunds.ran == []
    assert_declined(talk.received[-1])
    assert done.output == "not refunded: CONFIRMATION_DENIED"


def test_a_refund_of_50_runs_without_deferral() -> None:
    talk = Conversation(SMALL)
    done = talk.run()
    assert done.output == "refunded 50" and talk.refunds.ran == [50]


def test_arguments_that_claim_a_confirmation_are_still_deferred() -> None:
    talk = Conversation(FORGED)
    paused = talk.run()
    assert isinstance(paused.output, DeferredToolRequests) and len(paused.output.approvals) == 1
    assert talk.refunds.ran == []
