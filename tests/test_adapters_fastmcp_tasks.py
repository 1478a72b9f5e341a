"""MCP Tasks through the FastMCP adapter: a long-running guarded tool registered on a FastMCP server
runs as a task for a client on the 2025-11-25 revision (FastMCP's legacy handshake), followed with the
official SDK session FastMCP's client holds; other tools and the 2026-07-28 revision answer directly."""

from __future__ import annotations

import asyncio
from typing import Any

import anyio
import pytest
from adapter_support import ServedOverHttp
from fastmcp import Client, FastMCP
from mcp import types
from mcp.shared.exceptions import MCPError
from test_runtime_mcp_tasks import (
    GATE,
    cancel,
    contract,
    crunch,
    envelope,
    flaky,
    quick,
    result,
    start,
    status,
    stuck,
    until,
)

from contractgen.adapters.fastmcp import add_guarded_tools
from contractgen.runtime import guard
from contractgen.runtime.mcp_tasks import RELATED_TASK
from contractgen.runtime.progress import report_progress


def server() -> FastMCP:
    mcp = FastMCP("tasks")
    add_guarded_tools(mcp, [guard(contract("crunch"), crunch), guard(contract("stuck", seconds=0.3), stuck),
                            guard(contract("flaky", budget=3), flaky),
                            guard(contract("quick", long_running=False), quick)])
    return mcp


def test_fastmcp_serves_long_running_tools_as_tasks() -> None:
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ProgressNotification):
            progress.append((message.params.progress, message.params.total, message.params.message))

    async def main() -> None:
        GATE["crunch"] = asyncio.Event()
        async with Client(server(), mode="legacy", message_handler=on_message) as client:
            session = client.session
            assert session.server_capabilities.tasks is not None
            support = {t.name: t.execution.task_support if t.execution else None for t in await client.list_tools()}
            assert support == {"crunch": "optional", "flaky": "optional", "quick": None, "stuck": "optional"}
            task = await start(session, "crunch", progress=True)
            assert task.status == "working"
            working = await until(session, task.task_id, "working")
            with anyio.fail_after(10):
                while working.status_message != "1/3: step 1 of 3":
                    working = await status(session, task.task_id)
            GATE["crunch"].set()
            answer = await result(session, task.task_id)
            assert (await status(session, task.task_id)).status == "completed"
            with anyio.fail_after(10):
                while len(progress) < 3:
                    await anyio.sleep(0.01)
        assert answer.is_error is False and answer.structured_content == {"rows": 3}
        assert answer.meta[RELATED_TASK] == {"taskId": task.task_id}
        assert progress == [(1, 3, "step 1 of 3"), (2, 3, "step 2 of 3"), (3, 3, "step 3 of 3")]

    anyio.run(main)


def test_fastmcp_tasks_cancel_time_out_and_count_against_the_budget() -> None:
    async def main() -> None:
        GATE["crunch"] = asyncio.Event()  # never set: only cancelling ends it
        async with Client(server(), mode="legacy") as client:
            session = client.session
            task = await start(session, "crunch")
            await until(session, task.task_id, "working")
            assert (await cancel(session, task.task_id)).status == "cancelled"
            with pytest.raises(MCPError, match="has no result"):
                await result(session, task.task_id)

            timed_out = await result(session, (await start(session, "stuck")).task_id)
            assert envelope(timed_out)["error"]["code"] == "TIMEOUT"

            failures = [envelope(await result(session, (await start(session, "flaky")).task_id)) for _ in range(2)]
            third = await client.call_tool_mcp("flaky", {})  # a plain call in the same session
            assert [e["error"]["action"] for e in failures] == ["retry_later", "retry_later"]
            assert envelope(third)["error"]["budget"] == {"consecutive_failures": 3, "limit": 3, "exhausted": True}

            direct = await client.call_tool("quick", {})
            assert direct.structured_content == {"fast": True}
            with pytest.raises(MCPError, match="does not run as a task"):
                await start(session, "quick")

    anyio.run(main)


def test_on_the_2026_revision_a_task_request_is_answered_directly() -> None:
    """FastMCP's default handshake speaks 2026-07-28, which has no Tasks in its core (the SDK serves
    none there): the server declares none and answers a call carrying ``task`` as a plain call."""

    async def main() -> None:
        GATE["crunch"] = asyncio.Event()
        GATE["crunch"].set()
        async with Client(server()) as client:
            assert client.session.protocol_version == "2026-07-28"
            assert client.session.server_capabilities.tasks is None
            answer = await client.session.send_request(types.CallToolRequest(params=types.CallToolRequestParams(
                name="crunch", arguments={}, task=types.TaskMetadata(ttl=1000))), types.CallToolResult)
            assert answer.structured_content == {"rows": 3}

    anyio.run(main)


async def steps(_: Any) -> dict[str, Any]:
    for step in (1, 2):
        report_progress(step, 2, f"step {step} of 2")
        await asyncio.sleep(0)
    return {"rows": 2}


def test_fastmcp_tasks_over_http() -> None:
    """Streamable HTTP on the legacy handshake: the task's progress reaches the client after the
    CreateTaskResult, on the session's own stream, and a stuck task ends with TIMEOUT."""
    mcp = FastMCP("tasks")
    add_guarded_tools(mcp, [guard(contract("steps"), steps), guard(contract("stuck", seconds=0.3), stuck)])
    progress: list[float] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ProgressNotification):
            progress.append(message.params.progress)

    async def main(url: str) -> tuple[Any, ...]:
        async with Client(url, mode="legacy", message_handler=on_message) as client:
            session = client.session
            assert session.protocol_version == "2025-11-25" and session.server_capabilities.tasks is not None
            task = await start(session, "steps", progress=True)
            done = await result(session, task.task_id)
            timed_out = await result(session, (await start(session, "stuck")).task_id)
            with anyio.fail_after(10):
                while len(progress) < 2:
                    await anyio.sleep(0.01)
            return task.status, done, (await status(session, task.task_id)).status, timed_out

    with ServedOverHttp(mcp) as served:
        created, done, ended, timed_out = anyio.run(main, served.url)
    assert (created, ended) == ("working", "completed") and done.structured_content == {"rows": 2}
    assert envelope(timed_out)["error"]["code"] == "TIMEOUT"
    assert progress == [1, 2]
