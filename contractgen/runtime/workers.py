"""Worker threads for sync implementations that run under a deadline.

Python cannot stop a thread, so a sync call that passes its deadline is abandoned: the caller gets
TIMEOUT at once, while the worker thread keeps running the implementation to its end, and its
result or exception is then discarded (logged at DEBUG under the call's ref). Workers are daemon
threads, so an abandoned call never blocks interpreter exit. The pool grows when every worker is
busy (a hung call never starves the next one); at most ``MAX_IDLE`` idle workers stay, and one idle
for ``IDLE_SECONDS`` exits when another ends a call. Each tool also has its own bounded share
(``capacity.py``), so a stuck tool exhausts only itself.
"""

from __future__ import annotations

import contextvars
import logging
import os
import threading
import time
import weakref
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout  # builtin TimeoutError from 3.11
from typing import Any

IDLE_SECONDS = 60.0
#: Threads busy with calls (most of them abandoned after their deadline) before new calls are
#: refused with PoolBusy, so a tool that always hangs cannot exhaust the process.
MAX_WORKERS = 256
#: Idle workers kept waiting for calls (as many as a tool's slots, ``capacity.PER_TOOL_LIMIT``);
#: one more that ends a call exits. Each holds a thread and a pipe (two file descriptors).
MAX_IDLE = 32


class PoolBusy(RuntimeError):
    """Every worker is busy and the pool is at its limit."""


class Raised:
    """What a worker's call raised, handed back as a value. A tool's exception never travels
    through a future: asyncio refuses a StopIteration there (the caller then waited forever), and a
    GeneratorExit or SystemExit raised on a worker is the tool's failure, not the caller's own."""

    __slots__ = ("exc",)

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


def boxed(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)``, or ``Raised`` holding what it raised."""
    try:
        return fn(*args)
    except BaseException as exc:  # noqa: BLE001 - handed to the caller as a value, who decides
        return Raised(exc)


class Handoff:
    """What one sync caller waits on while a worker runs its call: the part of a ``Future`` the guard
    uses, kept by a plain lock the worker releases. A ``Future``'s wait (a condition and a lock made
    per wait) cost about 6 us of a 21 us round trip; this one costs one lock (``bench/guard_realistic.py``'s
    deadline column). Callers on an event loop keep the ``Future`` (``asyncio.wrap_future`` needs one)."""

    __slots__ = ("_callbacks", "_exception", "_finished", "_result", "_signal")

    def __init__(self) -> None:
        self._signal = threading.Lock()
        self._signal.acquire()  # released once, by the worker, when the call has ended
        self._finished = False
        self._result: Any = None
        self._exception: BaseException | None = None
        self._callbacks: list[Callable[[Handoff], Any]] = []

    # -- the worker's side (ElasticPool._loop) ------------------------------------------------
    def set_running_or_notify_cancel(self) -> bool:
        return True  # never cancelled: a guarded call that passed its deadline is abandoned instead

    def set_result(self, result: Any) -> None:
        self._result = result
        self._finish()

    def set_exception(self, exception: BaseException) -> None:
        self._exception = exception
        self._finish()

    def _finish(self) -> None:
        with _CALLBACKS:
            self._finished = True
            callbacks, self._callbacks = self._callbacks, []
        self._signal.release()
        for callback in callbacks:
            try:
                callback(self)
            except Exception as exc:  # noqa: BLE001 - as a Future's callbacks: one failing stops none; logged
                # (its type only: the text of an exception may quote a call's secret, see redaction.py)
                _logger.error("a done-callback of a worker's call failed (%s)", type(exc).__name__)

    # -- the caller's side ----------------------------------------------------------------------
    def result(self, timeout: float | None = None) -> Any:
        """What the call returned (or raises what it raised); ``concurrent.futures.TimeoutError`` when
        ``timeout`` seconds pass first, as a ``Future``'s wait raises."""
        if not self._finished:
            if not self._signal.acquire(timeout=-1 if timeout is None else max(timeout, 0.0)):
                raise FutureTimeout
            self._signal.release()  # later readers (a done-callback, a log line) see it ended
        if self._exception is not None:
            raise self._exception
        return self._result

    def done(self) -> bool:
        return self._finished

    def cancelled(self) -> bool:
        return False

    def exception(self) -> BaseException | None:
        """What the call raised, or None (waiting for it to end, as a ``Future``'s does)."""
        if not self._finished:
            self._signal.acquire()
            self._signal.release()
        return self._exception

    def add_done_callback(self, callback: Callable[[Handoff], Any]) -> None:
        with _CALLBACKS:
            if not self._finished:
                self._callbacks.append(callback)
                return
        callback(self)


_logger = logging.getLogger(__name__)
#: guards every Handoff's callbacks (taken only to add one and to finish, never around a call's work)
_CALLBACKS = threading.Lock()


class _Worker:
    """One worker thread, and the pipe it sleeps on between calls. A hand-off leaves the task in
    ``task`` and writes one byte to the pipe: ``os.write`` gives up the GIL before the kernel wakes
    the worker, so on a single CPU the worker runs the call at once. Woken through a lock (a
    ``queue.SimpleQueue``), it woke while the caller still held the GIL and the two threads traded
    the CPU 5-6 times per round trip instead of 2: a no-op's round trip took 16 us, now 10 us, with
    both threads on one CPU (docs/performance.md)."""

    __slots__ = ("idle_since", "sleep", "task", "wake")

    def __init__(self) -> None:
        self.sleep, self.wake = os.pipe()  # (not inherited by child processes: PEP 446)
        self.task: Any = None  # what the next byte on the pipe is for; None: exit
        self.idle_since = 0.0

    def give(self, task: Any) -> None:
        """Wake the worker for ``task`` (None: to exit)."""
        self.task = task
        os.write(self.wake, b"\0")

    def close(self) -> None:
        os.close(self.sleep)
        os.close(self.wake)


class ElasticPool:
    """A tiny thread pool: hand a task to an idle worker, or start a new one. At most ``MAX_IDLE``
    workers wait for work; one idle for ``idle_seconds`` exits when another ends a call."""

    def __init__(self, idle_seconds: float = IDLE_SECONDS, name: str = "contractgen-worker",
                 max_workers: int = MAX_WORKERS) -> None:
        self._idle: list[_Worker] = []  # the last to go idle is handed the next call
        self._lock = threading.Lock()
        self._idle_seconds = idle_seconds
        self._name = name
        self.max_workers = max_workers
        self.started = 0  # threads ever started (for tests and diagnostics)
        self.live = 0  # threads running now
        _POOLS.add(self)

    def submit(self, fn: Callable[..., Any], *args: Any, reserved: bool = False) -> Future[Any]:
        """Run ``fn(*args)`` on a worker. ``reserved``: the caller's tool holds no worker yet, so
        it gets one past the limit (the limit stops stuck tools, never a tool's first call)."""
        future: Future[Any] = Future()
        self._hand(future, fn, args, reserved)
        return future

    def hand_off(self, fn: Callable[..., Any], *args: Any, reserved: bool = False) -> Handoff:
        """``submit`` for a sync caller that waits for the answer in its own thread."""
        handoff = Handoff()
        self._hand(handoff, fn, args, reserved)
        return handoff

    def _hand(self, future: Any, fn: Callable[..., Any], args: tuple[Any, ...], reserved: bool) -> None:
        task = (future, contextvars.copy_context(), fn, args)
        with self._lock:
            worker = self._idle.pop() if self._idle else None
            if worker is None:
                if self.live >= self.max_workers and not reserved:
                    raise PoolBusy(f"{self.live} workers busy")
                self.live += 1
                self.started += 1
                number = self.started
        if worker is not None:
            worker.give(task)
            return
        try:
            worker = _Worker()
        except OSError as exc:  # no file descriptor left: busy, as at the limit
            self._ended()
            raise PoolBusy(f"no pipe for a new worker ({exc.strerror})") from None
        try:
            threading.Thread(target=self._run, args=(worker, task), name=f"{self._name}-{number}",
                             daemon=True).start()
        except BaseException:
            self._ended(worker)
            raise

    def _ended(self, worker: _Worker | None = None) -> None:
        """A worker's thread ended or never started: no longer counted, its pipe closed. It leaves
        the idle list first (only a failed loop leaves it there): no call may reach a closed pipe."""
        with self._lock:
            if worker in self._idle:
                self._idle.remove(worker)
            self.live -= 1
        if worker is not None:
            worker.close()

    def _run(self, worker: _Worker, task: Any) -> None:
        try:
            self._loop(worker, task)
        finally:
            self._ended(worker)

    def _loop(self, worker: _Worker, task: Any) -> None:
        while task is not None:
            future, ctx, fn, args = task
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(ctx.run(fn, *args))
                except BaseException as exc:  # noqa: BLE001 - handed to the waiting caller, who decides
                    future.set_exception(exc)
            del task, future, ctx, fn, args
            now = time.monotonic()
            with self._lock:
                if len(self._idle) >= MAX_IDLE:
                    return
                if self._idle and now - self._idle[0].idle_since > self._idle_seconds:
                    self._idle.pop(0).give(None)  # idle too long: it exits
                worker.idle_since = now
                self._idle.append(worker)
            os.read(worker.sleep, 1)
            task, worker.task = worker.task, None

    def _forget_threads(self) -> None:
        """In a child process after ``fork``: none of the parent's threads exist here (a call
        handed to one would wait for a worker that never wakes), and a lock one held stays held."""
        for worker in self._idle:
            worker.close()
        self._idle = []
        self._lock = threading.Lock()
        self.live = 0


def _after_fork_in_child() -> None:
    global _CALLBACKS
    _CALLBACKS = threading.Lock()
    for pool in list(_POOLS):
        pool._forget_threads()


_POOLS: weakref.WeakSet[ElasticPool] = weakref.WeakSet()
if hasattr(os, "register_at_fork"):  # (not on Windows, which has no fork)
    os.register_at_fork(after_in_child=_after_fork_in_child)
POOL = ElasticPool()
