"""MCP end to end: the example server (`python examples/mcp_server.py`) runs as a real subprocess over
stdio and the official SDK client drives it: tool listing, good, bad and old-version calls, a failing
dependency until the failure budget stops the model. Plus the budget's session scoping, with two
real client connections to one in-process server."""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import jsonschema
import pytest
from conftest import ROOT
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError
from mcp_support import connected

from contractgen.runtime import Contract, RetryPolicy, Timeout, ToolError, guard
from contractgen.runtime.mcp_server import build_server

EXAMPLE = ROOT / "examples" / "mcp_server.py"
GOOD_MEETING = {"title": "Quarterly review", "start_date": "2026-12-01T15:00:00", "time_zone": "Europe/Paris",
                "duration_minutes": 60, "attendees": [{"email": "ana@example.com"}]}

Scenario = Callable[[ClientSession], Awaitable[None]]


def run_against_example(scenario: Scenario, env: dict[str, str] | None = None) -> None:
    """Start the example server as a subprocess, connect the SDK's stdio client, run ``scenario``."""
    async def main() -> None:
        params = StdioServerParameters(command=sys.executable, args=[str(EXAMPLE)], cwd=str(ROOT), env=env)
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            await scenario(session)

    anyio.run(main)


def envelope_of(result: Any) -> dict[str, Any]:
    """The envelope the model reads: the JSON text content (the same on success and failure)."""
    assert len(result.content) == 1 and result.content[0].type == "text"
    return json.loads(result.content[0].text)


def test_tools_are_listed_with_the_contracts_schemas_and_descriptions() -> None:
    import generated

    expected = {tool["name"]: tool for tool in generated.MCP_TOOLS}
    seen: dict[str, Any] = {}

    async def scenario(session: ClientSession) -> None:
        init = session.initialize_result
        assert init is not None and init.server_info.name == "contractgen-example"
        assert init.instructions == generated.AGENT_INSTRUCTIONS
        listed = await session.list_tools()
        seen.update({tool.name: tool for tool in listed.tools})

    run_against_example(scenario)
    assert sorted(seen) == sorted(expected) == ["book_meeting", "get_exchange_rate", "refund_order",
                                                 "refund_payment", "retrieve_chunks", "search_documents"]
    for name, tool in seen.items():
        wanted = expected[name]
        assert tool.description == wanted["description"]
        assert tool.input_schema == wanted["inputSchema"]
        assert tool.output_schema == wanted["outputSchema"]
        assert tool.title == wanted["title"]
        hints = tool.annotations
        assert hints is not None
        assert (hints.read_only_hint, hints.destructive_hint, hints.idempotent_hint, hints.open_world_hint) == (
            wanted["annotations"]["readOnlyHint"], wanted["annotations"]["destructiveHint"],
            wanted["annotations"]["idempotentHint"], wanted["annotations"]["openWorldHint"])
    module = generated.book_meeting_v2
    assert seen["book_meeting"].meta == {"contractgen/version": "2.0.0"}
    assert "start_date" in seen["book_meeting"].input_schema["required"]  # version 2, not 1
    assert seen["book_meeting"].description == module.DESCRIPTION


def test_good_bad_and_old_version_calls() -> None:
    import generated

    async def scenario(session: ClientSession) -> None:
        # good arguments: structuredContent is the output and conforms to outputSchema
        ok = await session.call_tool("book_meeting", GOOD_MEETING)
        assert ok.is_error is False
        jsonschema.Draft202012Validator(generated.book_meeting_v2.OUTPUT_SCHEMA).validate(ok.structured_content)
        assert ok.structured_content == {"meeting_id": ok.structured_content["meeting_id"],
                                         "starts_at": "2026-12-01T15:00:00+01:00", "status": "confirmed"}
        envelope = envelope_of(ok)
        assert envelope == {"status": "ok", "tool": "book_meeting", "version": "2.0.0",
                            "output": ok.structured_content, "empty": False}
        assert ok.meta == {"contractgen/envelope": {"status": "ok", "tool": "book_meeting", "version": "2.0.0",
                                                    "empty": False}}

        # the same slot again: the declared CONFLICT error, pointing at start_date
        taken = await session.call_tool("book_meeting", GOOD_MEETING)
        assert taken.is_error is True
        error = taken.structured_content["error"]
        assert (error["code"], error["action"], error["field"]) == ("CONFLICT", "fix_arguments", "/start_date")
        assert envelope_of(taken) == taken.structured_content

        # local times that name no instant in the zone: the declared error, not INTERNAL or a guess
        for no_such in ("2027-02-30T10:00:00", "2027-03-28T02:30:00"):  # 30 Feb; Paris's clocks skip 02:00-03:00
            missing = await session.call_tool("book_meeting", {**GOOD_MEETING, "start_date": no_such})
            error = missing.structured_content["error"]
            assert missing.is_error is True and (error["code"], error["field"]) == ("INVALID_ARGUMENT", "/start_date")
            assert error["message"].startswith("start_date does not exist in time_zone")

        # bad arguments: a tool-execution error naming the field, the constraint and what was sent
        bad = await session.call_tool("book_meeting", {**GOOD_MEETING, "duration_minutes": "60"})
        assert bad.is_error is True
        error = bad.structured_content["error"]
        assert error["code"] == "INVALID_ARGUMENT" and error["action"] == "fix_arguments"
        assert error["field"] == "/duration_minutes" and error["constraint"] == "type"
        assert error["attempted"] == "60"
        assert envelope_of(bad) == bad.structured_content

        misspelled = {key: value for key, value in GOOD_MEETING.items() if key != "title"} | {"titel": "Review"}
        unknown = await session.call_tool("book_meeting", misspelled)
        fields = {v.get("field") for v in unknown.structured_content["error"].get("violations", [])} | {
            unknown.structured_content["error"]["field"]}
        assert unknown.is_error is True and "/titel" in fields and "/title" in fields

        # no arguments at all: the required ones are reported, no protocol error
        empty = await session.call_tool("book_meeting")
        assert empty.is_error is True and empty.structured_content["error"]["code"] == "INVALID_ARGUMENT"

        # arguments shaped like version 1 (`date`): VERSION_MISMATCH with the migration, not INVALID_ARGUMENT
        old = await session.call_tool("book_meeting", {"title": "Review", "date": "2026-12-01T15:00:00+01:00",
                                                       "duration_minutes": 60})
        assert old.is_error is True
        error = old.structured_content["error"]
        assert error["code"] == "VERSION_MISMATCH" and error["action"] == "fix_arguments"
        assert error["expected_version"] == "2.0.0"
        assert "rename 'date' to 'start_date'" in error["migration"]

        # a caller that declares the version it was written against, in the request's _meta
        declared = await session.call_tool("book_meeting", GOOD_MEETING, meta={"contractgen/version": "1.2.0"})
        error = declared.structured_content["error"]
        assert declared.is_error is True and error["code"] == "VERSION_MISMATCH"
        assert (error["received_version"], error["expected_version"]) == ("1.2.0", "2.0.0")
        same_major = await session.call_tool("book_meeting", {**GOOD_MEETING, "start_date": "2026-12-02T09:00:00"},
                                             meta={"contractgen/version": "2.0.0"})
        assert same_major.is_error is False

    run_against_example(scenario)


def test_failing_dependency_until_the_budget_stops_the_model() -> None:
    """EXAMPLE_RATES_PROVIDER=down makes the example's remote rates provider fail on every call."""
    async def scenario(session: ClientSession) -> None:
        arguments = {"base": "EUR", "quote": "USD"}
        first = await session.call_tool("get_exchange_rate", arguments)
        error = first.structured_content["error"]
        assert first.is_error is True
        assert (error["code"], error["action"], error["retryable"]) == ("UNAVAILABLE", "retry_later", True)
        assert error["budget"] == {"consecutive_failures": 1, "limit": 2, "exhausted": False}
        assert "rates.example.com" not in first.content[0].text  # the transport's words stay in the log
        assert "ConnectionError" not in first.content[0].text and "Traceback" not in first.content[0].text

        second = await session.call_tool("get_exchange_rate", arguments)
        error = second.structured_content["error"]
        assert (error["code"], error["action"], error["retryable"]) == ("UNAVAILABLE", "stop_and_tell_user", False)
        assert error["budget"] == {"consecutive_failures": 2, "limit": 2, "exhausted": True}
        assert "failed 2 times in a row" in error["message"]
        assert envelope_of(second) == second.structured_content

        third = await session.call_tool("get_exchange_rate", arguments)
        assert third.structured_content["error"]["action"] == "stop_and_tell_user"

        # bad arguments are not counted against the budget, and other tools are not affected
        bad = await session.call_tool("get_exchange_rate", {"base": "eur", "quote": "USD"})
        assert bad.structured_content["error"]["code"] == "INVALID_ARGUMENT"
        assert "budget" not in bad.structured_content["error"]
        search = await session.call_tool("search_documents", {"query": "travel policy"})
        assert search.is_error is False

    run_against_example(scenario, env={"EXAMPLE_RATES_PROVIDER": "down"})


def test_a_success_resets_the_budget_and_sessions_are_separate() -> None:
    """Without the env var, base XXX makes one call fail; the budget counts per session."""
    async def scenario(session: ClientSession) -> None:
        failing = {"base": "XXX", "quote": "USD"}
        first = await session.call_tool("get_exchange_rate", failing)
        assert first.structured_content["error"]["budget"]["consecutive_failures"] == 1
        ok = await session.call_tool("get_exchange_rate", {"base": "EUR", "quote": "USD"})
        assert ok.is_error is False and ok.structured_content["rate"] == 1.08
        again = await session.call_tool("get_exchange_rate", failing)
        assert again.structured_content["error"]["budget"]["consecutive_failures"] == 1  # reset by the success
        # a caller-named session (e.g. one conversation) has its own budget
        other = await session.call_tool("get_exchange_rate", failing, meta={"contractgen/session": "chat-2"})
        assert other.structured_content["error"]["budget"]["consecutive_failures"] == 1
        stopped = await session.call_tool("get_exchange_rate", failing)
        assert stopped.structured_content["error"]["budget"] == {"consecutive_failures": 2, "limit": 2,
                                                                  "exhausted": True}

    run_against_example(scenario)


def test_empty_result_and_unknown_tool() -> None:
    async def scenario(session: ClientSession) -> None:
        empty = await session.call_tool("search_documents", {"query": "volcano insurance"})
        assert empty.is_error is False
        assert empty.structured_content == {"results": [], "complete": True, "next_cursor": None}
        envelope = envelope_of(empty)
        assert envelope["empty"] is True and "No document matches" in envelope["empty_meaning"]
        assert empty.meta["contractgen/envelope"]["empty"] is True
        with pytest.raises(MCPError) as caught:
            await session.call_tool("book_meetings", GOOD_MEETING)
        assert "Unknown tool: 'book_meetings'" in caught.value.message
        assert "book_meeting" in caught.value.message

    run_against_example(scenario)


# --- session scoping, with two real client connections to one server ---------------------------------

FLAKY = Contract(
    name="flaky", version="1.0.0", summary="Fails while the dependency is down.", description="A test tool.",
    input_schema={"type": "object", "additionalProperties": False, "properties": {"ok": {"type": "boolean"}}},
    output_schema={"type": "object", "required": ["done"], "properties": {"done": {"type": "boolean"}}},
    retry=RetryPolicy(failure_budget=3), timeout=Timeout(None))


def _flaky(arguments: dict[str, Any]) -> dict[str, Any]:
    if not arguments.get("ok"):
        raise ToolError(code="UNAVAILABLE")
    return {"done": True}


def test_budget_is_scoped_to_the_mcp_connection() -> None:
    server = build_server([guard(FLAKY, _flaky)], name="scoping")
    counts: dict[str, list[int]] = {"a": [], "b": []}

    async def connect(label: str, calls: int, ready: anyio.Event, go: anyio.Event) -> None:
        async with connected(server) as session:
            ready.set()
            await go.wait()
            for _ in range(calls):
                result = await session.call_tool("flaky", {})
                counts[label].append(result.structured_content["error"]["budget"]["consecutive_failures"])

    async def main() -> None:
        ready_a, ready_b, go = anyio.Event(), anyio.Event(), anyio.Event()
        async with anyio.create_task_group() as group:
            group.start_soon(connect, "a", 3, ready_a, go)
            group.start_soon(connect, "b", 2, ready_b, go)
            await ready_a.wait()
            await ready_b.wait()
            go.set()

    anyio.run(main)
    assert counts == {"a": [1, 2, 3], "b": [1, 2]}


def test_one_version_per_tool_name() -> None:
    newer = Contract(**{**FLAKY.__dict__, "version": "2.0.0"})
    with pytest.raises(ValueError, match="serve one version per name over MCP"):
        build_server([guard(FLAKY, _flaky), guard(newer, _flaky)])


def test_server_module_imports_no_compiler_code() -> None:
    """The MCP server is runtime: importing it loads no jinja2, typer, codegen or manifest loading."""
    import subprocess

    probe = ("import sys, contractgen.runtime.mcp_server\n"
             "print(sorted(m for m in ('jinja2', 'typer', 'datamodel_code_generator', 'contractgen.manifest',"
             " 'contractgen.compiler', 'contractgen.cli', 'contractgen.importer') if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


HTTP_SERVER = '''
import sys
import uvicorn
from contractgen.runtime import Contract, RetryPolicy, Timeout, ToolError, guard
from contractgen.runtime.mcp_server import build_server

contract = Contract(name="flaky", version="1.0.0", summary="s", description="d",
                    input_schema={"type": "object", "properties": {"ok": {"type": "boolean"}}},
                    output_schema={"type": "object", "properties": {"done": {"type": "boolean"}}},
                    retry=RetryPolicy(failure_budget=3), timeout=Timeout(None))

def flaky(arguments):
    if not arguments.get("ok"):
        raise ToolError(code="UNAVAILABLE")
    return {"done": True}

app = build_server([guard(contract, flaky)]).streamable_http_app()
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
'''


def test_budget_is_scoped_to_the_http_session(tmp_path: Any) -> None:
    """Streamable HTTP: each client session (Mcp-Session-Id) has its own budget."""
    import socket
    import subprocess
    import time

    from mcp.client.streamable_http import streamable_http_client

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    script = tmp_path / "http_server.py"
    script.write_text(HTTP_SERVER, "utf-8")
    process = subprocess.Popen([sys.executable, str(script), str(port)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while True:  # wait until it listens; not a timing assertion
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert process.poll() is None, process.stderr.read() if process.stderr else ""
                assert time.monotonic() < deadline, "the HTTP server did not start"
                time.sleep(0.1)

        async def one_session(calls: int) -> list[int]:
            seen = []
            async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write), \
                    ClientSession(read, write) as session:
                await session.initialize()
                for _ in range(calls):
                    result = await session.call_tool("flaky", {})
                    seen.append(result.structured_content["error"]["budget"]["consecutive_failures"])
            return seen

        async def main() -> tuple[list[int], list[int]]:
            return await one_session(3), await one_session(2)

        first, second = anyio.run(main)
        assert first == [1, 2, 3]
        assert second == [1, 2]
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_a_refund_needing_confirmation_is_held_by_a_server_that_asks_nobody() -> None:
    """The low-level server has no elicitation: over the official SDK client a refund above 500
    answers CONFIRMATION_REQUIRED with what to confirm, and a refund of 50 runs."""
    answers: list[dict[str, Any]] = []

    async def scenario(session: ClientSession) -> None:
        for amount in (900, 50):
            result = await session.call_tool("refund_order", {"order_id": "ord_Lk93aZ", "amount": amount,
                                                              "currency": "USD"})
            answers.append(envelope_of(result))

    run_against_example(scenario)
    held, ran = answers
    assert (held["error"]["code"], held["error"]["action"]) == ("CONFIRMATION_REQUIRED", "confirm_with_user")
    assert held["error"]["confirmation"] == {"summary": "Refund 900 USD to order ord_Lk93aZ"}
    assert ran["status"] == "ok" and ran["output"]["amount"] == 50
