"""Deadlines for async work, and running a coroutine that was started outside an event loop.

A coroutine is first run to its first suspension with no timer (one that never waits costs
nothing); only then does ``with_deadline`` arm ``asyncio.timeout`` for the time that is left.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from typing import Any

from .interrupts import ToolStop, owner_stop

#: Python 3.11+: ``asyncio.timeout`` bounds work inside the current task; 3.10 needs a new task.
SAME_TASK_DEADLINES = hasattr(asyncio, "timeout")
NOT_STARTED: Any = object()

DEADLINE_PASSED: Any = object()


class Resumed:
    """Awaitable that continues a coroutine already run to its first suspension (what ``await``
    would have done): values go out to the task, sends and throws (cancellation) go back in.

    ``abandoned``: the work already swallowed its deadline's cancellation and nobody awaits its
    result. Cancelling it again (``asyncio.run`` does at loop shutdown; so may its owner) is then a
    demand to stop: if it swallows that too, it is closed (``GeneratorExit`` at its await), so that
    its task ends and a loop's shutdown never waits on it forever."""

    __slots__ = ("abandoned", "coro", "first")

    def __init__(self, coro: Any, first: Any, *, abandoned: bool = False) -> None:
        self.coro, self.first, self.abandoned = coro, first, abandoned

    def __await__(self) -> Any:
        coro, value = self.coro, self.first
        while True:
            try:
                sent = yield value
            except GeneratorExit:
                coro.close()
                raise
            except BaseException as exc:
                try:
                    value = coro.throw(exc)
                except StopIteration as done:
                    return done.value
                if self.abandoned and isinstance(exc, asyncio.CancelledError):
                    try:
                        coro.close()
                    except RuntimeError:  # it ignored GeneratorExit as well: its task ends all the same
                        pass
                    raise
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
    return run_here(awaitable)


class _Outcome:
    """A tool's result or exception as a plain value (its repr reads neither)."""

    __slots__ = ("raised", "value")

    def __init__(self, value: Any, raised: BaseException | None) -> None:
        self.value, self.raised = value, raised


def run_here(awaitable: Any) -> Any:
    """``asyncio.run(awaitable)`` in a thread with no running loop, returning or raising what it does.

    The outcome is caught inside the coroutine, so the main task never holds the tool's result or
    exception: on the main thread ``asyncio.run`` reads the task's repr when it puts SIGINT's handler
    back, and a result or exception whose repr raises left its own handler installed, so every later
    ``asyncio.run`` of the process failed. A cancellation still ends the task as one (Ctrl-C).
    """

    async def outcome() -> _Outcome:
        try:
            return _Outcome(await awaitable, None)
        except asyncio.CancelledError:
            raise
        except (KeyboardInterrupt, SystemExit) as exc:
            # decided here, while asyncio.run's SIGINT handler is installed (Ctrl-C cancels instead)
            return _Outcome(None, exc if owner_stop(exc) else ToolStop(exc))
        except BaseException as exc:  # noqa: BLE001 - raised again below, outside the loop
            return _Outcome(None, exc)

    done = asyncio.run(outcome())
    if done.raised is not None:
        raise done.raised
    return done.value


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


class _Abandoned(Exception):
    """The work swallowed the deadline's cancellation and went on waiting: it was left behind."""


class _Watch:
    """The deadline's timer: it cancels the caller's task once, and remembers that it did."""

    __slots__ = ("expired", "task")

    def __init__(self, task: Any) -> None:
        self.task = task
        self.expired = False

    def expire(self) -> None:
        self.expired = True
        self.task.cancel()


#: abandoned work still running; a strong reference, so the loop does not drop a pending task
_LEFT_BEHIND: set[Any] = set()


class _Driven:
    """Awaits ``it`` (an awaitable's iterator, maybe run to ``first`` already) in the caller's task,
    and leaves it to run alone when it swallows the deadline's cancellation and waits again.
    ``longest`` is the longest the work held the event loop in one step (no timer fires then)."""

    __slots__ = ("cancelled", "first", "it", "left_behind", "longest", "watch")

    def __init__(self, it: Any, first: Any, watch: _Watch) -> None:
        self.it, self.first, self.watch = it, first, watch
        self.left_behind: Any = None
        self.cancelled: asyncio.CancelledError | None = None  # the cancellation the work swallowed
        self.longest = 0.0

    def __await__(self) -> Any:
        it, value, clock = self.it, self.first, time.monotonic
        if value is NOT_STARTED:
            began = clock()
            try:
                value = it.send(None)
            except StopIteration as done:
                return done.value
            finally:
                self.longest = max(self.longest, clock() - began)
        while True:
            try:
                sent = yield value
            except GeneratorExit:
                it.close()
                raise
            except BaseException as exc:  # noqa: B036, BLE001 - handed to the work, as await does
                began = clock()
                try:
                    value = it.throw(exc)
                except StopIteration as done:
                    return done.value
                finally:
                    self.longest = max(self.longest, clock() - began)
                if isinstance(exc, asyncio.CancelledError):
                    # the work caught the cancellation (the deadline's or the caller's) and waits
                    # on: it runs on as its own task
                    self.left_behind = asyncio.ensure_future(Resumed(it, value, abandoned=True))
                    _LEFT_BEHIND.add(self.left_behind)
                    self.left_behind.add_done_callback(_LEFT_BEHIND.discard)
                    self.cancelled = exc
                    raise _Abandoned from None
            else:
                began = clock()
                try:
                    value = it.send(sent)
                except StopIteration as done:
                    return done.value
                finally:
                    self.longest = max(self.longest, clock() - began)


async def within_deadline(awaitable: Any, first: Any, seconds: float,
                          hold: Any = None) -> tuple[Any, bool, Any, float]:
    """Await work under a deadline that does not rely on its cooperation.

    ``awaitable`` is a coroutine already run to its first suspension (``first`` is what it yielded)
    or any awaitable (``first`` is NOT_STARTED). Returns ``(result, False, None, longest)``, or
    ``(None, True, task, longest)`` once the deadline passed: the work is cancelled, and if it
    swallows the cancellation and waits on, it is left running as ``task`` (else ``task`` is None).
    Outcomes of the work after the deadline (a value, an exception) are not the caller's: it gets
    the deadline, also when the work held the event loop past it, so that no timer could fire.
    ``longest``: the longest step in which the work held the event loop, in seconds. When the
    caller itself is cancelled and the work swallows that, the work is left running too, given to
    ``hold`` (which counts it against the tool's capacity), and the caller's own cancellation
    propagates as it came (anyio tells its cancel scopes' cancellations by their message).
    """
    task = asyncio.current_task()
    if task is None or not hasattr(task, "uncancel"):  # Python 3.10: the work runs as its own task
        return (*await _own_task_deadline(awaitable, first, seconds), 0.0)
    watch = _Watch(task)
    it = awaitable if first is not NOT_STARTED else awaitable.__await__()
    driven = _Driven(it, first, watch)
    loop = asyncio.get_running_loop()
    ends = loop.time() + seconds
    handle = loop.call_at(ends, watch.expire)
    try:
        result = await driven
    except _Abandoned:
        if not watch.expired:  # the caller itself was cancelled: so it stays
            if hold is not None:
                hold(driven.left_behind)
            raise driven.cancelled or asyncio.CancelledError() from None
        _deadline_passed(task, watch)
        return None, True, driven.left_behind, driven.longest
    except BaseException:
        if not (watch.expired or loop.time() >= ends):
            raise
        _deadline_passed(task, watch)
        return None, True, None, driven.longest
    finally:
        handle.cancel()
    if watch.expired or loop.time() >= ends:  # answered our cancellation, or held the loop past it
        _deadline_passed(task, watch)
        return None, True, None, driven.longest
    return result, False, None, driven.longest


def _deadline_passed(task: Any, watch: _Watch) -> None:
    if watch.expired:
        task.uncancel()  # the deadline's own cancellation is spent
    if task.cancelling():  # someone else cancelled the caller as well: that wins
        raise asyncio.CancelledError


async def _own_task_deadline(awaitable: Any, first: Any, seconds: float) -> tuple[Any, bool, Any]:
    work = asyncio.ensure_future(awaitable if first is NOT_STARTED else Resumed(awaitable, first))
    try:
        done, _ = await asyncio.wait({work}, timeout=seconds)
    except asyncio.CancelledError:
        work.cancel()
        raise
    if done:
        return work.result(), False, None
    work.cancel()
    _LEFT_BEHIND.add(work)
    work.add_done_callback(_LEFT_BEHIND.discard)
    return None, True, work


def cancelled_here() -> bool:
    """Whether the current task is being cancelled (a CancelledError then is a real cancellation,
    not one a tool raised on its own). Python 3.10 cannot tell: there it is always real."""
    task = asyncio.current_task() if loop_running() else None
    if task is None:
        return False
    cancelling = getattr(task, "cancelling", None)
    return True if cancelling is None else bool(cancelling())
