"""The worker pool's hand-off to a sync caller (``workers.Handoff``): the part of a ``Future`` the
guard's deadline path uses, kept by one lock, with a ``Future``'s semantics for each part."""

from __future__ import annotations

import contextvars
import threading
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

import pytest

from contractgen.runtime.workers import ElasticPool, Handoff

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
