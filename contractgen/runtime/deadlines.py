"""Deadlines for async work, and running a coroutine that was started outside an event loop.

A coroutine is first run to its first suspension with no timer (one that never waits costs
nothing); only then does ``with_deadline`` arm ``asyncio.timeout`` for the time that is left.
"""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

#: Python 3.11+: ``asyncio.timeout`` bounds work inside the current task; 3.10 needs a new task.
SAME_TASK_DEADLINES = hasattr(asyncio, "timeout")
NOT_STARTED: Any = object()

DEADLINE_PASSED: Any = object()


class Resumed:
    """Awaitable that continues a coroutine already run to its first suspension (what ``await``
    would have done): values go out to the task, sends and throws (cancellation) go back in."""

    __slots__ = ("coro", "first")

    def __init__(self, coro: Any, first: Any) -> None:
        self.coro, self.first = coro, first

    def __await__(self) -> Any:
        coro, value = self.coro, self.first
        while True:
            try:
                sent = yield value
            except GeneratorExit:
                coro.close()
                raise
            except BaseException as exc:  # noqa: B036, BLE001
                try:
                    value = coro.throw(exc)
                except StopIteration as done:
                    return done.value
            else:
                try:
                    value = coro.send(sent)
                except StopIteration as done:
                    return done.value


def settle_here(awaitable: Any) -> Any:
    """Run an awaitable a sync implementation returned, when this thread has no running loop."""
    if loop_running():
        if inspect.iscoroutine(awaitable):
            awaitable.close()  # never awaited otherwise: close it instead of leaking a warning
        raise TypeError("a sync implementation returned an awaitable inside a running event loop: "
                        "declare it `async def`, or call the tool with `acall`")

    async def wait() -> Any:
        return await awaitable

    return asyncio.run(wait())


def loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


async def with_deadline(awaitable: Any, seconds: float) -> tuple[Any, bool]:
    """(result, False), or (None, True) when our deadline (not the tool's own timeout) fired."""
    timeout_cm = getattr(asyncio, "timeout", None)
    if timeout_cm is not None:  # Python 3.11+: no extra task
        cm = timeout_cm(seconds)
        try:
            async with cm:
                return await awaitable, False
        except TimeoutError:
            if cm.expired():
                return None, True
            raise
    task = asyncio.ensure_future(awaitable)  # Python 3.10: no asyncio.timeout
    try:
        done, _ = await asyncio.wait({task}, timeout=seconds)
    except asyncio.CancelledError:  # our caller was cancelled: so is the work
        task.cancel()
        raise
    if not done:
        task.cancel()
        await asyncio.wait({task})  # let the work see its cancellation, as wait_for does
        return None, True
    return task.result(), False
