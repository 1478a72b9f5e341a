"""ADK: a guard around a tool written for ADK by someone else keeps every flag and hook ADK reads
(a long-running tool stays long-running, its ``process_llm_request`` edit reaches the request, its
``tool_context`` arrives), and ``ContractPlugin`` turns an unwrapped tool's exception into an
INTERNAL envelope with a reference, so the run goes on: all in ADK's own runner with a scripted model."""

from __future__ import annotations

import logging
from typing import Any

import anyio
import pytest
from google.adk.agents import Agent
from google.adk.apps import App
from google.adk.models import BaseLlm, LlmResponse
from google.adk.runners import InMemoryRunner
from google.adk.tools import BaseTool, FunctionTool, ToolContext
from google.genai import types
from pydantic import Field

from contractgen.adapters.adk import ContractPlugin, GuardedForeignAdkTool

NOTE = "Tickets are answered within a day."


class Ticketing(BaseTool):
    """A foreign long-running tool: it edits the request, reads the tool_context, answers later."""

    def __init__(self) -> None:
        super().__init__(name="open_ticket", description="Open a support ticket.", is_long_running=True,
                         custom_metadata={"team": "support"})
        self.contexts: list[Any] = []

    def _get_declaration(self) -> types.FunctionDeclaration:
        return types.FunctionDeclaration(name=self.name, description=self.description, parameters_json_schema={
            "type": "object", "properties": {"subject": {"type": "string"}}, "required": ["subject"]})

    async def process_llm_request(self, *, tool_context: ToolContext, llm_request: Any) -> None:
        llm_request.append_instructions([NOTE])
        await super().process_llm_request(tool_context=tool_context, llm_request=llm_request)

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        self.contexts.append(tool_context)
        if args["subject"] == "later":
            return None  # pending: the result comes later
        return {"ticket": "T-1", "user": tool_context.user_id}


class Scripted(BaseLlm):
    """Calls ``calls`` (tool name, arguments) one per turn, then answers with what it last read."""

    model: str = "scripted"
    calls: list[Any] = Field(default_factory=list)
    seen: list[Any] = Field(default_factory=list)

    async def generate_content_async(self, llm_request: Any, stream: bool = False) -> Any:
        self.seen.append(llm_request)
        turn = len(self.seen) - 1
        if turn < len(self.calls):
            name, args = self.calls[turn]
            part = types.Part(function_call=types.FunctionCall(id=f"c{turn}", name=name, args=args))
        else:
            part = types.Part(text="done")
        yield LlmResponse(content=types.Content(role="model", parts=[part]))


def responses(llm_request: Any) -> list[dict[str, Any]]:
    return [dict(part.function_response.response) for content in llm_request.contents
            for part in content.parts or () if part.function_response is not None]


async def run(tools: list[Any], calls: list[Any], plugins: list[Any] = ()) -> tuple[Scripted, list[Any]]:
    llm = Scripted(calls=calls, seen=[])
    app = App(name="app", root_agent=Agent(name="fx", model=llm, tools=tools), plugins=list(plugins))
    runner = InMemoryRunner(app=app)
    await runner.session_service.create_session(app_name="app", user_id="alice", session_id="s")
    message = types.Content(role="user", parts=[types.Part(text="hi")])
    events = [e async for e in runner.run_async(user_id="alice", session_id="s", new_message=message)]
    return llm, events


def test_a_wrapped_foreign_long_running_tool_keeps_its_flag_hook_and_context() -> None:
    inner = Ticketing()
    wrapped = GuardedForeignAdkTool(inner)
    assert wrapped.is_long_running is True and wrapped.custom_metadata == {"team": "support"}
    llm, events = anyio.run(lambda: run([wrapped], [("open_ticket", {"subject": "printer"})]))
    request = llm.seen[0]
    assert NOTE in str(request.config.system_instruction)  # the wrapped tool's edit reached the request
    assert request.tools_dict["open_ticket"] is wrapped  # calls land on the guard, not on the inner tool
    assert [d.name for d in request.config.tools[0].function_declarations] == ["open_ticket"]
    assert len(inner.contexts) == 1 and inner.contexts[0].user_id == "alice"  # its tool_context arrived
    answer = responses(llm.seen[1])[0]
    assert (answer["status"], answer["output"]) == ("ok", {"ticket": "T-1", "user": "alice"})
    # ADK marks the call long-running on the event, as it would for the tool unwrapped
    assert any(e.long_running_tool_ids for e in events)


def test_a_pending_long_running_answer_stays_pending() -> None:
    llm, _ = anyio.run(lambda: run([GuardedForeignAdkTool(Ticketing())], [("open_ticket", {"subject": "later"})]))
    assert len(llm.seen) == 1  # no function response was sent: ADK waits for the result, as unwrapped


def test_the_guard_checks_the_foreign_tools_arguments() -> None:
    inner = Ticketing()
    llm, _ = anyio.run(lambda: run([GuardedForeignAdkTool(inner)], [("open_ticket", {"topic": "x"})]))
    error = responses(llm.seen[1])[0]["error"]
    assert (error["code"], error["action"]) == ("INVALID_ARGUMENT", "fix_arguments") and inner.contexts == []


def lookup_orders(customer: str) -> dict[str, Any]:
    """Look up a customer's orders."""
    raise RuntimeError("syntax error near 'SELECT * FROM orders WHERE customer = 'bob''")


def test_without_the_plugin_an_unwrapped_throwing_tool_ends_the_run() -> None:
    with pytest.raises(RuntimeError, match="SELECT"):
        anyio.run(lambda: run([FunctionTool(lookup_orders)], [("lookup_orders", {"customer": "bob"})]))


def test_the_plugin_turns_the_exception_into_an_envelope_and_the_run_goes_on(
        caplog: pytest.LogCaptureFixture) -> None:
    tools = [FunctionTool(lookup_orders)]
    calls = [("lookup_orders", {"customer": "bob"}), ("lookup_orders", {"customer": "eve"})]
    with caplog.at_level(logging.ERROR, logger="contractgen.adapters"):
        llm, events = anyio.run(lambda: run(tools, calls, plugins=[ContractPlugin()]))
    first, second = responses(llm.seen[-1])
    error = first["error"]
    assert first["status"] == "error" and (error["code"], error["action"]) == ("INTERNAL", "stop_and_tell_user")
    assert error["ref"] and error["ref"] in error["message"] and second["error"]["ref"] != error["ref"]
    assert "SELECT" not in str(llm.seen[-1].contents) and "RuntimeError" not in str(llm.seen[-1].contents)
    assert events[-1].content.parts[0].text == "done"  # the run went on to the model's answer
    logged = [r for r in caplog.records if r.name == "contractgen.adapters"]
    assert [error["ref"] in r.getMessage() for r in logged][:1] == [True]
    assert logged[0].exc_info is not None  # the traceback is in the log, under the reference


def test_a_long_running_contract_is_long_running_to_adk() -> None:
    from contractgen.adapters.adk import GuardedAdkTool
    from generated import get_exchange_rate_v1, search_documents_v1

    search = GuardedAdkTool(search_documents_v1.search_documents.implement(
        lambda args: {"results": [], "complete": True}))
    assert search.is_long_running is True
    assert GuardedAdkTool(get_exchange_rate_v1.get_exchange_rate.implement(lambda args: None)).is_long_running is False
    llm, events = anyio.run(lambda: run([search], [("search_documents", {"query": "travel policy"})]))
    assert any(e.long_running_tool_ids for e in events)  # ADK marks the call long-running
    answer = responses(llm.seen[1])[0]  # and the model still gets its response, then answers
    assert answer["status"] == "ok" and answer["output"] == {"results": [], "complete": True}
    assert answer["empty"] is True and "nothing was found" in answer["empty_meaning"]
    assert events[-1].content.parts[0].text == "done"
