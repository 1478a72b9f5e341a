"""The worker pool's hand-off to a sync caller (``workers.Handoff``): the part of a ``Future`` the
guard's deadline path uses, kept by one lock, with a ``Future``'s semantics for each part."""

from __future__ import annotations

import contextvars
import os
import threading
import time
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

import pytest

from contractgen.runtime.workers import MAX_IDLE, ElasticPool, Handoff

WHO: contextvars.ContextVar[str] = contextvars.ContextVar("who", default="nobody")


def test_a_wait_times_out_while_the_call_runs_and_its_answer_stands_after() -> None:
    pool = ElasticPool(idle_seconds=1.0)
    release = threading.Event()
    handoff = pool.hand_off(lambda: (release.wait(5), 42)[1])
    with pytest.raises(FutureTimeout):
        handoff.result(timeout=0.05)
    assert not handoff.done()
    release.set()
    assert handoff.result(timeout=5) == 42 and handoff.done()
    assert handoff.result() == 42  # read again (a done-callback, a log line): the same answer
    assert not handoff.cancelled() and handoff.exception() is None


def test_what_the_call_raised_is_raised_to_the_reader() -> None:
    pool = ElasticPool(idle_seconds=1.0)

    def fails() -> Any:
        raise LookupError("gone")

    handoff = pool.hand_off(fails)
    with pytest.raises(LookupError, match="gone"):
        handoff.result(timeout=5)
    assert isinstance(handoff.exception(), LookupError)


def test_done_callbacks_run_once_each_whenever_they_are_added(caplog: pytest.LogCaptureFixture) -> None:
    handoff = Handoff()
    seen: list[str] = []

    def broken(_: Handoff) -> None:
        seen.append("broken")
        raise RuntimeError("a callback's own failure")

    handoff.add_done_callback(lambda h: seen.append(f"before {h.result()}"))
    handoff.add_done_callback(broken)
    handoff.add_done_callback(lambda h: seen.append("after the broken one"))
    assert handoff.set_running_or_notify_cancel() is True
    handoff.set_result("ok")
    handoff.add_done_callback(lambda h: seen.append(f"late {h.result()}"))
    assert seen == ["before ok", "broken", "after the broken one", "late ok"]
    assert "done-callback of a worker's call failed" in caplog.text  # logged, as a Future logs it


def test_the_call_runs_on_a_worker_in_the_callers_context() -> None:
    pool = ElasticPool(idle_seconds=1.0)
    WHO.set("the caller")
    handoff = pool.hand_off(lambda: (WHO.get(), threading.current_thread().name))
    who, thread = handoff.result(timeout=5)
    assert who == "the caller" and thread.startswith("contractgen-worker")


def _settles(predicate: Any, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True


def test_workers_past_the_idle_limit_exit_and_the_rest_take_the_next_calls() -> None:
    pool = ElasticPool(idle_seconds=60.0)
    release = threading.Event()
    busy = [pool.hand_off(release.wait, 5) for _ in range(MAX_IDLE + 4)]
    assert pool.live == MAX_IDLE + 4  # every worker was busy: the pool grew
    release.set()
    assert all(handoff.result(timeout=5) for handoff in busy)
    assert _settles(lambda: pool.live == MAX_IDLE), pool.live
    started = pool.started
    assert [pool.hand_off(lambda n=n: n * 2).result(timeout=5) for n in range(50)] == [n * 2 for n in range(50)]
    assert pool.started == started and pool.live == MAX_IDLE  # the idle workers took them: no new thread


def test_a_worker_idle_past_its_time_exits_when_another_ends_a_call() -> None:
    pool = ElasticPool(idle_seconds=0.05)
    release = threading.Event()
    first = [pool.hand_off(release.wait, 5) for _ in range(2)]
    release.set()
    assert all(handoff.result(timeout=5) for handoff in first) and _settles(lambda: pool.live == 2)
    time.sleep(0.1)
    assert pool.hand_off(lambda: "again").result(timeout=5) == "again"  # the last to go idle takes it
    assert _settles(lambda: pool.live == 1), pool.live  # and retires the one idle for too long


def test_a_child_process_after_fork_starts_its_own_workers() -> None:
    """The parent's idle workers were kept as idle in a forked child, where their threads do not
    exist: a call there waited for a worker that never woke."""
    pool = ElasticPool(idle_seconds=60.0)
    assert pool.hand_off(lambda: "parent").result(timeout=5) == "parent"
    assert _settles(lambda: pool.live == 1)
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child reports through the pipe
        try:
            answer = pool.hand_off(lambda: "child").result(timeout=5)
            os.write(write, f"{answer} {pool.live}".encode())
        finally:
            os._exit(0)
    os.close(write)
    os.waitpid(child, 0)
    with os.fdopen(read) as reply:
        assert reply.read() == "child 1"


def test_callers_on_many_threads_each_get_their_own_answer() -> None:
    """Each hand-off leaves its task on the worker it took and wakes it with one byte: with callers
    on many threads at once, every answer must still be its own call's, and idle workers are reused."""
    pool = ElasticPool(idle_seconds=60.0)
    wrong: list[tuple[int, int, Any]] = []

    def caller(k: int) -> None:
        for i in range(400):
            token = (k, i)
            answer = pool.hand_off(lambda t=token: (t, WHO.get())).result(timeout=5)
            if answer != (token, f"caller {k}"):
                wrong.append((k, i, answer))

    def in_context(k: int) -> None:
        WHO.set(f"caller {k}")
        caller(k)

    threads = [threading.Thread(target=in_context, args=(k,)) for k in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert not wrong, wrong[:3]
    assert pool.started <= 12 < MAX_IDLE  # no more workers than callers at once: each was reused
