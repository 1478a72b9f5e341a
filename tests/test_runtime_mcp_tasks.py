"""MCP Tasks (2025-11-25) on the low-level server, driven by the official SDK client: a long-running
tool started as a task, followed, cancelled, timed out and counted by the budget like any call."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, types
from mcp.client.extension import NotificationBinding
from mcp.shared.exceptions import MCPError
from mcp_support import connected

from contractgen.runtime import (
    Breaker,
    Contract,
    Dependency,
    RetryPolicy,
    Timeout,
    ToolError,
    guard,
)
from contractgen.runtime.breaker import InMemoryBreakerStore
from contractgen.runtime.hooks import CallHooks
from contractgen.runtime.mcp_server import build_server
from contractgen.runtime.mcp_tasks import DEFAULT_TTL_MS, MAX_TTL_MS, RELATED_TASK, TaskStore
from contractgen.runtime.progress import report_progress

#: released by the test: ``crunch`` waits on it after its first step
GATE: dict[str, asyncio.Event] = {}


def contract(name: str, *, seconds: float | None = 30, long_running: bool = True, budget: int | None = 2) -> Contract:
    return Contract(name=name, version="1.0.0", summary="s", description="d",
                    input_schema={"type": "object"}, output_schema={"type": "object"},
                    timeout=Timeout(seconds=seconds, long_running=long_running),
                    retry=RetryPolicy(failure_budget=budget))


async def crunch(_: Any) -> dict[str, Any]:
    report_progress(1, 3, "step 1 of 3")
    await GATE["crunch"].wait()
    for step in (2, 3):
        report_progress(step, 3, f"step {step} of 3")
    return {"rows": 3}


async def stuck(_: Any) -> dict[str, Any]:
    await asyncio.sleep(3600)
    return {}


async def flaky(_: Any) -> dict[str, Any]:
    raise ToolError("Backend down.", code="UNAVAILABLE")


def quick(_: Any) -> dict[str, Any]:
    return {"fast": True}


def server() -> Any:
    return build_server([guard(contract("crunch"), crunch), guard(contract("stuck", seconds=0.3), stuck),
                         guard(contract("flaky", budget=3), flaky), guard(contract("quick", long_running=False), quick)])


async def start(session: ClientSession, name: str, ttl: int | None = None, progress: bool = False) -> types.Task:
    params = types.CallToolRequestParams(name=name, arguments={}, task=types.TaskMetadata(ttl=ttl),
                                         _meta={"progressToken": f"p-{name}"} if progress else None)
    created = await session.send_request(types.CallToolRequest(params=params), types.CreateTaskResult)
    return created.task


async def status(session: ClientSession, task_id: str) -> types.GetTaskResult:
    return await session.send_request(types.GetTaskRequest(params=types.GetTaskRequestParams(task_id=task_id)),
                                      types.GetTaskResult)


async def result(session: ClientSession, task_id: str) -> types.CallToolResult:
    request = types.GetTaskPayloadRequest(params=types.GetTaskPayloadRequestParams(task_id=task_id))
    return await session.send_request(request, types.CallToolResult)


async def cancel(session: ClientSession, task_id: str) -> types.CancelTaskResult:
    request = types.CancelTaskRequest(params=types.CancelTaskRequestParams(task_id=task_id))
    return await session.send_request(request, types.CancelTaskResult)


def envelope(answer: types.CallToolResult) -> dict[str, Any]:
    return json.loads(answer.content[0].text)  # type: ignore[union-attr]


async def until(session: ClientSession, task_id: str, wanted: str) -> types.GetTaskResult:
    with anyio.fail_after(10):
        while (found := await status(session, task_id)).status != wanted:
            await anyio.sleep(0.01)
    return found


def test_long_running_tools_advertise_tasks_and_the_server_declares_them() -> None:
    async def main() -> None:
        async with connected(server()) as session:
            capability = session.server_capabilities.tasks
            assert capability is not None and capability.cancel is not None and capability.list is not None
            assert capability.requests.tools.call is not None
            listed = {t.name: t for t in (await session.list_tools()).tools}
            assert {n: t.execution.task_support if t.execution else None for n, t in listed.items()} == {
                "crunch": "optional", "flaky": "optional", "quick": None, "stuck": "optional"}

    anyio.run(main)
    plain = build_server([guard(contract("quick", long_running=False), quick)])
    assert plain.create_initialization_options().capabilities.tasks is None


def test_a_task_works_reports_progress_and_completes_with_the_envelope() -> None:
    progress: list[tuple[float, float | None, str | None]] = []

    statuses: list[tuple[str, str]] = []

    async def on_status(params: types.TaskStatusNotificationParams) -> None:
        statuses.append((params.task_id, params.status))

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ProgressNotification) and message.params.progress_token == "p-crunch":
            progress.append((message.params.progress, message.params.total, message.params.message))

    async def main() -> None:
        GATE["crunch"] = asyncio.Event()
        srv = server()
        async with anyio.create_task_group() as group:
            from mcp.shared.memory import create_client_server_memory_streams

            async with create_client_server_memory_streams() as (client_streams, server_streams):
                group.start_soon(lambda: srv.run(server_streams[0], server_streams[1],
                                                 srv.create_initialization_options()))
                bindings = [NotificationBinding(method="notifications/tasks/status",
                                                params_type=types.TaskStatusNotificationParams,
                                                handler=on_status)]
                async with ClientSession(*client_streams, message_handler=on_message,
                                         notification_bindings=bindings) as session:
                    await session.initialize()
                    task = await start(session, "crunch", progress=True)
                    assert task.status == "working" and task.ttl == DEFAULT_TTL_MS and task.poll_interval
                    working = await until(session, task.task_id, "working")
                    with anyio.fail_after(10):
                        while working.status_message != "1/3: step 1 of 3":
                            working = await status(session, task.task_id)
                    GATE["crunch"].set()
                    answer = await result(session, task.task_id)  # waits for the end
                    done = await status(session, task.task_id)
                    with anyio.fail_after(10):
                        while len(progress) < 3 or not statuses:
                            await anyio.sleep(0.01)
                group.cancel_scope.cancel()
        assert answer.is_error is False and answer.structured_content == {"rows": 3}
        assert envelope(answer)["status"] == "ok"
        assert answer.meta[RELATED_TASK] == {"taskId": task.task_id}
        assert done.status == "completed" and done.last_updated_at >= done.created_at
        assert progress == [(1, 3, "step 1 of 3"), (2, 3, "step 2 of 3"), (3, 3, "step 3 of 3")]
        assert statuses == [(task.task_id, "completed")]  # notifications/tasks/status at the end

    anyio.run(main)


def test_cancel_ends_the_work_and_the_task_has_no_result() -> None:
    async def main() -> None:
        GATE["crunch"] = asyncio.Event()  # never set: only cancelling ends it
        async with connected(server()) as session:
            task = await start(session, "crunch")
            await until(session, task.task_id, "working")
            cancelled = await cancel(session, task.task_id)
            assert cancelled.status == "cancelled"
            assert (await status(session, task.task_id)).status == "cancelled"
            with pytest.raises(MCPError, match="has no result") as no_result:
                await result(session, task.task_id)
            assert no_result.value.code == types.INVALID_PARAMS
            with pytest.raises(MCPError, match="already ended") as again:
                await cancel(session, task.task_id)
            assert again.value.code == types.INVALID_PARAMS
        work = [t for t in asyncio.all_tasks() if t.get_coro().__qualname__ == "_run_task"]
        assert all(t.done() for t in work), "the cancelled task's work still runs"

    anyio.run(main)


def test_the_deadline_ends_a_stuck_task_with_timeout() -> None:
    async def main() -> None:
        async with connected(server()) as session:
            task = await start(session, "stuck")
            assert task.status == "working"
            answer = await result(session, task.task_id)
            failed = await status(session, task.task_id)
        assert answer.is_error is True and envelope(answer)["error"]["code"] == "TIMEOUT"
        assert failed.status == "failed" and "TIMEOUT" in (failed.status_message or "")

    anyio.run(main)


def test_the_budget_counts_failing_tasks_like_any_call() -> None:
    async def main() -> list[dict[str, Any]]:
        async with connected(server()) as session:
            first = envelope(await result(session, (await start(session, "flaky")).task_id))
            second = envelope(await result(session, (await start(session, "flaky")).task_id))
            direct = await session.call_tool("flaky", {})  # the same session's plain call: the third failure
            return [first, second, envelope(direct)]

    first, second, third = anyio.run(main)
    assert [e["error"]["action"] for e in (first, second)] == ["retry_later", "retry_later"]
    assert third["error"]["action"] == "stop_and_tell_user"
    assert third["error"]["budget"] == {"consecutive_failures": 3, "limit": 3, "exhausted": True}


def test_the_breaker_fails_a_task_fast_without_running_the_tool() -> None:
    """Tasks in two sessions fail a shared dependency and open its breaker; the next task, in a
    third session, fails fast with the breaker's UNAVAILABLE and never reaches the implementation."""
    reached: list[str] = []

    async def geo(_: Any) -> dict[str, Any]:
        reached.append("geo")
        raise ToolError("geo-api is down", code="UNAVAILABLE")

    down = Contract(name="geo", version="1.0.0", summary="s", description="d", input_schema={"type": "object"},
                    output_schema={"type": "object"}, timeout=Timeout(seconds=30, long_running=True),
                    retry=RetryPolicy(failure_budget=None),
                    dependency=Dependency("geo-api", Breaker(failures=2, window=60, open_for=60)))
    srv = build_server([guard(down, geo, hooks=CallHooks(breakers=InMemoryBreakerStore()))])

    async def main() -> list[dict[str, Any]]:
        answers = []
        for _ in range(3):
            async with connected(srv) as session:  # a new connection: a new budget session
                answers.append(envelope(await result(session, (await start(session, "geo")).task_id)))
        return answers

    first, second, third = anyio.run(main)
    assert reached == ["geo", "geo"]
    assert [e["error"]["code"] for e in (first, second, third)] == ["UNAVAILABLE"] * 3
    assert "geo-api" in third["error"]["message"] and third["error"]["retry_after"] > 0


def test_other_tools_answer_directly_and_refuse_to_run_as_tasks() -> None:
    async def main() -> None:
        async with connected(server()) as session:
            direct = await session.call_tool("quick", {})
            assert direct.is_error is False and direct.structured_content == {"fast": True}
            plain = await session.call_tool("flaky", {})  # a long-running tool called without a task
            assert plain.is_error is True and envelope(plain)["error"]["code"] == "UNAVAILABLE"
            with pytest.raises(MCPError, match="does not run as a task") as refused:
                await start(session, "quick")
            assert refused.value.code == types.METHOD_NOT_FOUND
            with pytest.raises(MCPError, match="Unknown task") as unknown:
                await status(session, "no-such-task")
            assert unknown.value.code == types.INVALID_PARAMS

    anyio.run(main)


def test_tasks_belong_to_their_session_and_list_there() -> None:
    srv = server()

    async def main() -> None:
        async with connected(srv) as one, connected(srv) as other:
            task = await start(one, "flaky", ttl=10 * MAX_TTL_MS)
            assert task.ttl == MAX_TTL_MS  # the client's ttl is clamped
            await result(one, task.task_id)
            listed = await one.send_request(types.ListTasksRequest(), types.ListTasksResult)
            assert [t.task_id for t in listed.tasks] == [task.task_id]
            with pytest.raises(MCPError, match="Unknown task"):
                await status(other, task.task_id)
            assert (await other.send_request(types.ListTasksRequest(), types.ListTasksResult)).tasks == []

    anyio.run(main)


def test_ended_tasks_expire_after_their_ttl() -> None:
    async def main() -> None:
        async with connected(server()) as session:
            task = await start(session, "flaky", ttl=1)
            with anyio.fail_after(10), pytest.raises(MCPError, match="Unknown task"):
                while True:  # it fails at once, and is forgotten 1 ms after its creation
                    await status(session, task.task_id)
                    await anyio.sleep(0.01)

    anyio.run(main)

    async def by_the_clock() -> None:
        now = [0.0]
        store = TaskStore(clock=lambda: now[0])
        running, ended = store.create("s", "t", 1000), store.create("s", "t", 1000)
        ended.settle("completed", None, None)
        now[0] = 0.999
        assert len(store) == 2
        now[0] = 1.0
        assert store.of("s") == [running]  # ended and past its ttl: gone; a running task stays
        with pytest.raises(MCPError, match="Unknown task"):
            store.find("s", ended.task_id)

    anyio.run(by_the_clock)


def test_the_store_is_bounded() -> None:
    async def main() -> None:
        store = TaskStore(max_tasks=2)
        first, second = store.create("s", "t", None), store.create("s", "t", None)
        with pytest.raises(MCPError, match="already runs 2 tasks"):
            store.create("s", "t", None)  # both still run: none is evicted
        first.settle("completed", None, None)
        third = store.create("s", "t", None)  # the ended one makes room
        assert [t.task_id for t in store.of("s")] == [second.task_id, third.task_id]

    anyio.run(main)


STDIO_SERVER = """
import asyncio
from contractgen.runtime import Contract, Timeout, guard
from contractgen.runtime.mcp_server import serve_stdio
from contractgen.runtime.progress import report_progress

async def stuck(_):
    report_progress(1, 2, "started")
    await asyncio.sleep(3600)

async def done(_):
    report_progress(1, 1, "all of it")
    return {"ok": True}

def contract(name, seconds):
    return Contract(name=name, version="1.0.0", summary="s", description="d", input_schema={"type": "object"},
                    output_schema={"type": "object"}, timeout=Timeout(seconds=seconds, long_running=True))

serve_stdio([guard(contract("stuck", 0.5), stuck), guard(contract("done", 30), done)])
"""


def test_tasks_over_stdio(tmp_path: Path) -> None:
    from mcp.client.stdio import StdioServerParameters, stdio_client

    script = tmp_path / "server.py"
    script.write_text(STDIO_SERVER, "utf-8")

    async def main() -> tuple[Any, ...]:
        # this checkout's contractgen, not an installed one (the SDK passes a minimal environment)
        params = StdioServerParameters(command=sys.executable, args=[str(script)],
                                       env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])})
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            with anyio.fail_after(20):
                stuck_task, done_task = await start(session, "stuck"), await start(session, "done")
                timed_out, finished = await result(session, stuck_task.task_id), await result(
                    session, done_task.task_id)
                states = [(await status(session, t.task_id)).status for t in (stuck_task, done_task)]
            return timed_out, finished, states

    timed_out, finished, states = anyio.run(main)
    assert envelope(timed_out)["error"]["code"] == "TIMEOUT"
    assert finished.structured_content == {"ok": True}
    assert states == ["failed", "completed"]
