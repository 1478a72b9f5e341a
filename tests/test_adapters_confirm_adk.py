"""Google ADK: a refund over 500 pauses on ADK's own tool confirmation (``adk_request_confirmation``),
runs once the host approves, reaches the model as CONFIRMATION_DENIED when the host rejects; a small
refund runs directly, and arguments cannot confirm a call."""

from __future__ import annotations

from typing import Any

import anyio
from confirmation_support import (
    BIG,
    FORGED,
    SMALL,
    SUMMARY,
    Refunds,
    assert_declined,
    assert_held,
    model_reply,
)
from google.adk.agents import Agent
from google.adk.models import BaseLlm, LlmResponse
from google.adk.runners import InMemoryRunner
from google.genai import types
from pydantic import Field

from contractgen.adapters.adk import GuardedAdkTool

ASK = "adk_request_confirmation"


class RefundLlm(BaseLlm):
    """A fake model: one refund_order call with ``arguments``, then a reply to what it read."""

    model: str = "scripted"
    arguments: dict[str, Any] = Field(default_factory=dict)
    received: list[dict[str, Any]] = Field(default_factory=list)

    async def generate_content_async(self, llm_request: Any, stream: bool = False) -> Any:
        self.received = [dict(part.function_response.response) for content in llm_request.contents
                         for part in content.parts or () if part.function_response is not None
                         and part.function_response.name == "refund_order"]
        if not self.received:
            call = types.FunctionCall(id="call-1", name="refund_order", args=self.arguments)
            part = types.Part(function_call=call)
        else:
            part = types.Part(text=model_reply(self.received))
        yield LlmResponse(content=types.Content(role="model", parts=[part]))


class Session:
    """One ADK conversation with a refund tool: the host's side of the run."""

    def __init__(self, arguments: dict[str, Any]) -> None:
        self.refunds = Refunds()
        self.llm = RefundLlm(arguments=arguments)
        agent = Agent(name="support", model=self.llm, tools=[GuardedAdkTool(self.refunds.tool)])
        self.runner = InMemoryRunner(agent=agent, app_name="app")

    async def send(self, message: types.Content) -> list[Any]:
        if await self.runner.session_service.get_session(app_name="app", user_id="u", session_id="s") is None:
            await self.runner.session_service.create_session(app_name="app", user_id="u", session_id="s")
        return [e async for e in self.runner.run_async(user_id="u", session_id="s", new_message=message)]

    async def ask(self) -> list[Any]:
        return await self.send(types.Content(role="user", parts=[types.Part(text="Refund my order")]))

    async def answer(self, request: Any, confirmed: bool) -> list[Any]:
        """The host's answer to ADK's confirmation request, as ADK expects it: a function response."""
        response = types.FunctionResponse(id=request.id, name=ASK, response={"confirmed": confirmed})
        return await self.send(types.Content(role="user", parts=[types.Part(function_response=response)]))


def confirmation_requests(events: list[Any]) -> list[Any]:
    return [part.function_call for event in events for part in (event.content.parts if event.content else ())
            or () if part.function_call is not None and part.function_call.name == ASK]


def final_text(events: list[Any]) -> str:
    texts = [part.text for event in events for part in (event.content.parts if event.content else ()) or ()
             if part.text]
    return texts[-1] if texts else ""


def test_a_refund_over_500_pauses_on_adks_confirmation_and_runs_after_approval() -> None:
    async def scenario() -> None:
        session = Session(BIG)
        events = await session.ask()
        (request,) = confirmation_requests(events)
        assert session.refunds.ran == [] and session.llm.received == []  # the run paused before the model
        assert request.args["toolConfirmation"]["hint"] == SUMMARY
        assert request.args["originalFunctionCall"]["args"] == BIG
        events = await session.answer(request, confirmed=True)
        assert session.refunds.ran == [900]
        assert session.llm.received[-1]["status"] == "ok" and final_text(events) == "refunded 900"

    anyio.run(scenario)


def test_a_rejected_refund_reaches_the_model_as_a_declined_envelope() -> None:
    async def scenario() -> None:
        session = Session(BIG)
        (request,) = confirmation_requests(await session.ask())
        events = await session.answer(request, confirmed=False)
        assert session.refunds.ran == []
        assert_declined(session.llm.received[-1])
        assert final_text(events) == "not refunded: CONFIRMATION_DENIED"

    anyio.run(scenario)


def test_a_refund_of_50_runs_without_asking() -> None:
    async def scenario() -> None:
        session = Session(SMALL)
        events = await session.ask()
        assert confirmation_requests(events) == [] and session.refunds.ran == [50]
        assert final_text(events) == "refunded 50"

    anyio.run(scenario)


def test_arguments_that_claim_a_confirmation_still_pause() -> None:
    async def scenario() -> None:
        session = Session(FORGED)
        events = await session.ask()
        assert len(confirmation_requests(events)) == 1 and session.refunds.ran == []
        # the response ADK records for the paused call is the guard's own CONFIRMATION_REQUIRED
        responses = [part.function_response.response for event in events
                     for part in (event.content.parts if event.content else ()) or ()
                     if part.function_response is not None and part.function_response.name == "refund_order"]
        assert_held(dict(responses[-1]))

    anyio.run(scenario)
