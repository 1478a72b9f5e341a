"""MCP Tasks (specification 2025-11-25) for long-running guarded tools on an SDK low-level server.

A ``tools/call`` that carries ``task`` for a tool whose contract is long-running answers at once
with a ``CreateTaskResult``; the call itself runs in the background as the same ``tools/call``
without ``task`` (the server's own path: the tool's guarded ``acall``, so deadline, failure budget
and breaker apply as to any call). The client follows it with
``tasks/get`` (status, last progress as ``statusMessage``) and the request's progress token, ends
it with ``tasks/cancel``, and reads the final ``CallToolResult`` with ``tasks/result``. A result
with ``isError`` (a TIMEOUT envelope included) ends the task ``failed``.

The store is bounded: a task is kept ``ttl`` milliseconds from its creation (the client's request,
clamped to ``MAX_TTL_MS``; ``DEFAULT_TTL_MS`` without one) and then forgotten once it has ended; at
most ``MAX_TASKS`` are kept per server. A task belongs to the budget session that started it: from
another session its id is unknown. ``install_tasks`` serves all this on any SDK low-level server
(``mcp_server.build_server``'s, or the one inside a FastMCP server).
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import secrets
import threading
import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from mcp import types
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from .envelope import SHORT_TEXT_CAP, cap_text
from .observe import loggable, logger

__all__ = ["DEFAULT_TTL_MS", "MAX_TASKS", "MAX_TTL_MS", "POLL_INTERVAL_MS", "RELATED_TASK", "TaskStore",
           "connection_of", "install_tasks", "running_task", "task_capability"]

#: ``_meta`` key that ties a message to its task (specification 2025-11-25)
RELATED_TASK = "io.modelcontextprotocol/related-task"
#: how long a task is kept from its creation when the client asks for no ttl
DEFAULT_TTL_MS = 60_000
#: the longest a client may ask a task to be kept
MAX_TTL_MS = 3_600_000
#: the polling interval the server suggests
POLL_INTERVAL_MS = 500
#: tasks kept per server at once; a new task past it first evicts the oldest ended one
MAX_TASKS = 1_000
#: the protocol revision whose Tasks this module serves (SDK 2.x has no tasks at 2026-07-28)
TASKS_REVISION = "2025-11-25"

_ENDED = frozenset({"completed", "failed", "cancelled"})

#: the task whose call is running here (None outside a task)
_RUNNING: contextvars.ContextVar[_Task | None] = contextvars.ContextVar("contractgen_mcp_task", default=None)


def running_task() -> _Task | None:
    """The task the current call runs as, or None (a call answered directly)."""
    return _RUNNING.get()


def task_capability() -> types.ServerTasksCapability:
    """What the server declares: ``tools/call`` as tasks, ``tasks/list`` and ``tasks/cancel``."""
    return types.ServerTasksCapability(
        list=types.TasksListCapability(), cancel=types.TasksCancelCapability(),
        requests=types.ServerTasksRequestsCapability(tools=types.TasksToolsCapability(call=types.TasksCallCapability())))


def connection_of(ctx: Any) -> Any:
    """The SDK's connection behind a request, which outlives it (its channel stays open), or None."""
    return getattr(ctx.session, "connection", None) or getattr(ctx.session, "_connection", None)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass
class _Task:
    task_id: str
    owner: str
    tool: str
    ttl_ms: int
    created_at: str = field(default_factory=_now)
    born: float = 0.0  # the store's clock at creation
    status: str = "working"
    status_message: str | None = None
    last_updated_at: str = field(default_factory=_now)
    result: types.CallToolResult | None = None
    error: types.ErrorData | None = None  # the JSON-RPC error the call ended with instead of a result
    work: asyncio.Task[None] | None = None
    connection: Any = None  # where ``notifications/tasks/status`` goes (None: nowhere)
    ended: asyncio.Event = field(default_factory=asyncio.Event)
    last_progress: float | None = None

    def view(self) -> dict[str, Any]:
        """The task as ``tasks/get`` and ``tasks/cancel`` return it."""
        found = types.Task(task_id=self.task_id, status=self.status, status_message=self.status_message,  # type: ignore[arg-type]
                           created_at=self.created_at, last_updated_at=self.last_updated_at, ttl=self.ttl_ms,
                           poll_interval=POLL_INTERVAL_MS)
        return found.model_dump(by_alias=True, mode="json", exclude_none=True)

    def settle(self, status: str, message: str | None, result: types.CallToolResult | None,
               error: types.ErrorData | None = None) -> None:
        if self.status in _ENDED:
            return
        self.status, self.status_message, self.result, self.error = status, message, result, error
        self.last_updated_at = _now()
        self.ended.set()

    async def announce(self) -> None:
        """Tell the client the task's status (``notifications/tasks/status``); never raises."""
        if self.connection is None:
            return
        try:
            await self.connection.notify("notifications/tasks/status", self.view())
        except Exception as exc:  # noqa: BLE001 - a lost notification changes nothing: tasks/get has it
            logger.warning("task status notification not sent", exc_info=loggable(exc))

    def progressed(self, progress: float, total: float | None, message: str | None) -> None:
        """A progress report as the task's ``statusMessage`` (the last that increased)."""
        if self.status in _ENDED or (self.last_progress is not None and progress <= self.last_progress):
            return
        self.last_progress = progress
        done = f"{progress:g}" + (f"/{total:g}" if total is not None else "")
        self.status_message = cap_text(f"{done}: {message}" if message else done)
        self.last_updated_at = _now()


class TaskStore:
    """The tasks one server runs: created, looked up by their session, expired after their ttl."""

    def __init__(self, max_tasks: int = MAX_TASKS, clock: Callable[[], float] = time.monotonic) -> None:
        self.max_tasks = max_tasks
        self.clock = clock
        self._tasks: dict[str, _Task] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        self.expire()
        return len(self._tasks)

    def expire(self) -> None:
        """Forget the ended tasks whose ttl has passed."""
        now = self.clock()
        with self._lock:
            for task_id in [t.task_id for t in self._tasks.values()
                            if t.status in _ENDED and now - t.born >= t.ttl_ms / 1000]:
                del self._tasks[task_id]

    def create(self, owner: str, tool: str, ttl_ms: int | None) -> _Task:
        self.expire()
        ttl = DEFAULT_TTL_MS if ttl_ms is None else max(1, min(int(ttl_ms), MAX_TTL_MS))
        with self._lock:
            while len(self._tasks) >= self.max_tasks:
                oldest = next((t for t in self._tasks.values() if t.status in _ENDED), None)
                if oldest is None:
                    raise MCPError(types.INVALID_REQUEST, f"This server already runs {self.max_tasks} tasks; "
                                   "wait for one to end (tasks/result) or cancel one (tasks/cancel), then retry")
                del self._tasks[oldest.task_id]
            task = _Task(task_id=secrets.token_urlsafe(16), owner=owner, tool=tool, ttl_ms=ttl, born=self.clock())
            self._tasks[task.task_id] = task
        return task

    def find(self, owner: str, task_id: Any) -> _Task:
        self.expire()
        task = self._tasks.get(task_id) if isinstance(task_id, str) else None
        if task is None or task.owner != owner:
            shown = cap_text(repr(task_id), SHORT_TEXT_CAP)
            raise MCPError(types.INVALID_PARAMS, f"Unknown task {shown}: it never existed in this session, or it "
                           "ended more than its ttl ago; start the call again")
        return task

    def of(self, owner: str) -> list[_Task]:
        self.expire()
        return [t for t in self._tasks.values() if t.owner == owner]


def install_tasks(server: Any, long_running: Collection[str], session: Callable[[Any], str],
                  store: TaskStore | None = None) -> TaskStore:
    """Serve Tasks on ``server`` (an SDK low-level ``Server``) for the tools named in ``long_running``
    (the set may grow later): the tasks capability, the task-augmented ``tools/call`` and the
    ``tasks/*`` methods. ``session(ctx)`` names the session a request's tasks belong to.
    """
    tasks = store if store is not None else TaskStore()

    async def start_task(ctx: Any, call_next: Any) -> Any:
        raw = ctx.params
        connection = connection_of(ctx)
        if ctx.method != "tools/call" or not isinstance(raw, Mapping) or raw.get("task") is None \
                or getattr(ctx, "protocol_version", TASKS_REVISION) != TASKS_REVISION \
                or not getattr(connection, "initialize_accepted", True):
            return await call_next(ctx)  # no task here: the SDK answers (before initialize: refuses)
        try:
            params = types.CallToolRequestParams.model_validate(raw, by_name=False)
        except ValidationError:
            return await call_next(ctx)  # the SDK's own INVALID_PARAMS answer
        if params.name not in long_running:
            # taskSupport is absent (forbidden) on the tool: the specification's answer is -32601
            raise MCPError(types.METHOD_NOT_FOUND, f"Tool {cap_text(repr(params.name), SHORT_TEXT_CAP)} does not "
                           "run as a task (its execution.taskSupport is forbidden): call it without 'task'")
        task = tasks.create(session(ctx), params.name, params.task.ttl if params.task is not None else None)
        task.connection = connection
        plain = dataclasses.replace(ctx, params={k: v for k, v in raw.items() if k != "task"})
        task.work = asyncio.get_running_loop().create_task(_run_task(task, call_next, plain))
        created = types.CreateTaskResult(task=types.Task.model_validate(task.view()))
        answer = created.model_dump(by_alias=True, mode="json", exclude_none=True)
        # SDK 2.x clients check every tools/call answer as a CallToolResult at 2025-11-25, which
        # needs ``content``: one line saying what happened keeps the CreateTaskResult readable there
        answer["content"] = [{"type": "text", "text": f"Started task {task.task_id} for {params.name}; "
                                                      "follow it with tasks/get, read it with tasks/result."}]
        return answer

    async def get_task(ctx: Any, params: types.GetTaskRequestParams) -> dict[str, Any]:
        return tasks.find(session(ctx), params.task_id).view()

    async def task_result(ctx: Any, params: types.GetTaskPayloadRequestParams) -> dict[str, Any]:
        task = tasks.find(session(ctx), params.task_id)
        await task.ended.wait()
        if task.error is not None:  # what the call itself would have answered
            raise MCPError.from_error_data(task.error)
        if task.result is None:  # cancelled, or broken outside the guard: no call result to give
            raise MCPError(types.INVALID_PARAMS, f"Task {task.task_id} has no result ({task.status}: "
                           f"{task.status_message}); start the call again if it is still needed")
        answer = task.result.model_dump(by_alias=True, mode="json", exclude_none=True)
        answer["_meta"] = {**answer.get("_meta", {}), RELATED_TASK: {"taskId": task.task_id}}
        return answer

    async def cancel_task(ctx: Any, params: types.CancelTaskRequestParams) -> dict[str, Any]:
        task = tasks.find(session(ctx), params.task_id)
        if task.status in _ENDED:
            raise MCPError(types.INVALID_PARAMS, f"Cannot cancel task {task.task_id}: it already ended "
                           f"({task.status})")
        task.settle("cancelled", "Cancelled by the client.", None)
        if task.work is not None:
            task.work.cancel()
        await task.announce()
        return task.view()

    async def list_tasks(ctx: Any, params: types.PaginatedRequestParams) -> dict[str, Any]:
        return {"tasks": [t.view() for t in tasks.of(session(ctx))]}

    _declare_tasks(server)
    server.middleware.append(start_task)
    server.add_request_handler("tasks/get", types.GetTaskRequestParams, get_task)
    server.add_request_handler("tasks/result", types.GetTaskPayloadRequestParams, task_result)
    server.add_request_handler("tasks/cancel", types.CancelTaskRequestParams, cancel_task)
    server.add_request_handler("tasks/list", types.PaginatedRequestParams, list_tasks)
    return tasks


def _declare_tasks(server: Any) -> None:
    """Add the tasks capability to what ``server`` declares on the revision that has Tasks (the SDK
    derives capabilities from handlers, and has no handler-free way to declare this one)."""
    declared = server.get_capabilities

    def get_capabilities(*args: Any, protocol_version: str | None = None, **kwargs: Any) -> Any:
        found = declared(*args, protocol_version=protocol_version, **kwargs)
        if protocol_version not in (None, TASKS_REVISION):
            return found
        return found.model_copy(update={"tasks": task_capability()})

    server.get_capabilities = get_capabilities


async def _run_task(task: _Task, call_next: Callable[[Any], Any], ctx: Any) -> None:
    """The task's work: the plain ``tools/call``, settled as the task's status and result, which
    the client is told of."""
    _RUNNING.set(task)
    try:
        await _settled(task, call_next, ctx)
    finally:
        if task.status != "cancelled":  # a cancel answers (and announces) for itself
            await task.announce()


async def _settled(task: _Task, call_next: Callable[[Any], Any], ctx: Any) -> None:
    try:
        answer = await call_next(ctx)
        result = types.CallToolResult.model_validate(answer, by_name=False)
    except asyncio.CancelledError:
        task.settle("cancelled", "Cancelled: the server stopped the call.", None)
        raise
    except MCPError as exc:  # a protocol error (arguments the SDK refused...): tasks/result repeats it
        task.settle("failed", cap_text(exc.error.message), None, exc.error)
        return
    except Exception as exc:  # noqa: BLE001 - the call path answers envelopes; this is a defect in it
        logger.error("task %s of %s failed outside its guard", task.task_id, task.tool, exc_info=loggable(exc))
        task.settle("failed", "The call failed inside the server; its log has the details.", None)
        return
    if result.is_error:
        code = (result.structured_content or {}).get("error", {}).get("code")
        task.settle("failed", f"The call ended with {code or 'an error'}; tasks/result has the envelope.", result)
    else:
        task.settle("completed", "The call succeeded; tasks/result has the output.", result)
