"""FastMCP: a refund over 500 asks the user through MCP elicitation where the client supports it
(the client's own elicitation handler is the human), runs after yes, answers CONFIRMATION_DENIED
after no; without elicitation support the call answers CONFIRMATION_REQUIRED; a small refund runs
directly, and arguments cannot confirm a call."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from confirmation_support import (
    BIG,
    FORGED,
    SMALL,
    SUMMARY,
    Refunds,
    assert_declined,
    assert_held,
)
from fastmcp import Client, FastMCP
from fastmcp.client.elicitation import ElicitResult

from contractgen.adapters.fastmcp import add_guarded_tools


class Human:
    """The client's elicitation handler: answers ``answer`` and records what it was asked."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.asked: list[str] = []

    async def __call__(self, message: str, response_type: Any, params: Any, context: Any) -> Any:
        self.asked.append(message)
        return self.answer


def call(arguments: dict[str, Any], human: Human | None, mode: str = "legacy") -> tuple[dict[str, Any], Refunds]:
    refunds = Refunds()
    server = FastMCP("shop")
    add_guarded_tools(server, refunds.tool)

    async def run() -> Any:
        options: dict[str, Any] = {"elicitation_handler": human} if human is not None else {}
        async with Client(server, mode=mode, **options) as client:  # type: ignore[arg-type]
            return await client.call_tool_mcp("refund_order", arguments)

    result = anyio.run(run)
    envelope = json.loads(result.content[0].text)
    return envelope, refunds


def test_a_refund_over_500_asks_the_user_and_runs_after_yes() -> None:
    human = Human(True)
    envelope, refunds = call(BIG, human)
    assert human.asked == [f"Confirm: {SUMMARY}?"]
    assert envelope["status"] == "ok" and refunds.ran == [900]


@pytest.mark.parametrize("answer", [False, ElicitResult(action="decline")], ids=["no", "declined"])
def test_a_refund_the_user_refuses_answers_declined(answer: Any) -> None:
    envelope, refunds = call(BIG, Human(answer))
    assert_declined(envelope)
    assert refunds.ran == []


def test_a_cancelled_form_leaves_the_call_held() -> None:
    envelope, refunds = call(BIG, Human(ElicitResult(action="cancel")))
    assert_held(envelope)
    assert refunds.ran == []


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_without_elicitation_the_call_answers_confirmation_required(mode: str) -> None:
    """No handler (no capability), or the stateless protocol (no server-to-client requests)."""
    envelope, refunds = call(BIG, None if mode == "legacy" else Human(True), mode)
    assert_held(envelope)
    assert refunds.ran == []


def test_a_refund_of_50_runs_without_asking() -> None:
    human = Human(True)
    envelope, refunds = call(SMALL, human)
    assert envelope["status"] == "ok" and refunds.ran == [50] and human.asked == []


def test_arguments_that_claim_a_confirmation_still_ask() -> None:
    human = Human(ElicitResult(action="decline"))
    envelope, refunds = call(FORGED, human)
    assert len(human.asked) == 1 and refunds.ran == []
    assert_declined(envelope)
