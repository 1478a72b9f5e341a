"""Worker threads for sync implementations that run under a deadline.

Python cannot stop a thread, so a sync call that passes its deadline is abandoned: the caller gets
TIMEOUT at once, while the worker thread keeps running the implementation to its end, and its
result or exception is then discarded (logged at DEBUG under the call's ref). Workers are daemon
threads, so an abandoned call never blocks interpreter exit. The pool grows when every worker is
busy (a hung call never starves the next one) and idle workers exit after ``IDLE_SECONDS``. Each
tool also has its own bounded share (``capacity.py``), so a stuck tool exhausts only itself.
"""

from __future__ import annotations

import contextvars
import logging
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout  # builtin TimeoutError from 3.11
from typing import Any

IDLE_SECONDS = 60.0
#: Threads busy with calls (most of them abandoned after their deadline) before new calls are
#: refused with PoolBusy, so a tool that always hangs cannot exhaust the process.
MAX_WORKERS = 256


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
    __slots__ = ("mailbox", "pool")

    def __init__(self, pool: ElasticPool) -> None:
        self.mailbox: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self.pool = pool


class ElasticPool:
    """A tiny thread pool: hand a task to an idle worker, or start a new one."""

    def __init__(self, idle_seconds: float = IDLE_SECONDS, name: str = "contractgen-worker",
                 max_workers: int = MAX_WORKERS) -> None:
        self._idle: list[_Worker] = []
        self._lock = threading.Lock()
        self._idle_seconds = idle_seconds
        self._name = name
        self.max_workers = max_workers
        self.started = 0  # threads ever started (for tests and diagnostics)
        self.live = 0  # threads running now

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
            worker.mailbox.put(task)
        else:
            worker = _Worker(self)
            thread = threading.Thread(target=self._run, args=(worker, task),
                                      name=f"{self._name}-{number}", daemon=True)
            thread.start()

    def _run(self, worker: _Worker, task: Any) -> None:
        try:
            self._loop(worker, task)
        finally:
            with self._lock:
                self.live -= 1

    def _loop(self, worker: _Worker, task: Any) -> None:
        while True:
            future, ctx, fn, args = task
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(ctx.run(fn, *args))
                except BaseException as exc:  # noqa: BLE001 - handed to the waiting caller, who decides
                    future.set_exception(exc)
            del task, future, ctx, fn, args
            with self._lock:
                self._idle.append(worker)
            try:
                task = worker.mailbox.get(timeout=self._idle_seconds)
            except queue.Empty:
                with self._lock:
                    if worker in self._idle:
                        self._idle.remove(worker)
                        return
                task = worker.mailbox.get()  # a submitter took us just now: its task is coming


POOL = ElasticPool()
