"""Shared state inside the call's deadline: a Redis server that stalls (SIGSTOP: the process is
alive, its socket accepts, nothing answers) delays neither sync nor asyncio callers past the tool's
deadline plus the store's margin, under either ``state_unreachable`` policy, and the URL the
warnings print never holds a credential the client library accepts."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("redis")

from redis_support import redis_binary, redis_server

from contractgen.runtime import Contract, RetryPolicy, ToolError, guard
from contractgen.runtime.contract import Breaker, Dependency, Timeout
from contractgen.runtime.stores.redis import RedisBreakerStore, RedisState, share_state

DEADLINE = 1.0
#: what the caller may wait past the deadline: the store's margin and the machine's noise
SLACK = 0.5


@pytest.fixture
def stalled(tmp_path: Path) -> Iterator[tuple[str, Any]]:
    """A private redis-server (the session's shared one is never stopped) and a function that stops it."""
    binary = redis_binary()
    if binary is None:
        pytest.skip("no redis-server (install the test extra, or set REDIS_SERVER_BIN)")
    with redis_server(binary, tmp_path) as url:
        import redis

        port = int(url.rsplit(":", 1)[1].split("/")[0])
        pid = int(redis.Redis(port=port).info("server")["process_id"])
        stopped = []

        def stop(resume: bool = False) -> None:
            os.kill(pid, signal.SIGCONT if resume else signal.SIGSTOP)
            if resume:
                stopped.clear()
            else:
                stopped.append(pid)

        try:
            yield url, stop
        finally:
            if stopped:
                os.kill(pid, signal.SIGCONT)


def contract(policy: str) -> Contract:
    return Contract(
        name="charge",
        version="1.0.0",
        summary="s",
        description="d",
        input_schema={"type": "object"},
        output_schema={"type": "object"},
        retry=RetryPolicy(failure_budget=3),
        state_unreachable=policy,
        timeout=Timeout(DEADLINE),
        dependency=Dependency("payments", Breaker(failures=3)),
    )


def ok(_: Any) -> Any:
    return {"charged": True}


async def aok(_: Any) -> Any:
    return {"charged": True}


def fails(_: Any) -> Any:
    raise ToolError("the payments service is down", code="UNAVAILABLE")


async def afails(_: Any) -> Any:
    raise ToolError("the payments service is down", code="UNAVAILABLE")


def timed(call: Any) -> tuple[dict[str, Any], float]:
    began = time.monotonic()
    envelope = call()
    return envelope, time.monotonic() - began


@pytest.mark.parametrize("policy", ["allow", "refuse"])
@pytest.mark.parametrize("implementation", [ok, fails], ids=["succeeds", "fails"])
def test_a_stalled_redis_delays_a_sync_call_no_longer_than_its_deadline(
    stalled: tuple[str, Any], policy: str, implementation: Any
) -> None:
    url, stop = stalled
    state = RedisState(url)
    (tool,) = share_state([guard(contract(policy), implementation)], state)
    assert tool({}, session="warm")["tool"] == "charge"  # connections made while the server answers
    stop()
    for _ in range(2):  # the second call finds the same stuck connections in the pool
        envelope, took = timed(lambda: tool({}, session="s"))
        assert took < DEADLINE + SLACK, (policy, took, envelope)
        if policy == "refuse":
            assert (
                envelope["status"] == "error"
                and envelope["error"]["action"] == "stop_and_tell_user"
            )
        elif implementation is ok:
            assert envelope["status"] == "ok"  # uncounted, but answered


@pytest.mark.parametrize("policy", ["allow", "refuse"])
@pytest.mark.parametrize("implementation", [aok, afails], ids=["succeeds", "fails"])
def test_a_stalled_redis_delays_an_asyncio_call_no_longer_than_its_deadline(
    stalled: tuple[str, Any], policy: str, implementation: Any
) -> None:
    url, stop = stalled
    state = RedisState(url)
    (tool,) = share_state([guard(contract(policy), implementation)], state)

    async def main() -> list[tuple[dict[str, Any], float]]:
        await tool.acall({}, session="warm")
        stop()
        answers = []
        for _ in range(2):
            began = time.monotonic()
            envelope = await tool.acall({}, session="s")
            answers.append((envelope, time.monotonic() - began))
        return answers

    for envelope, took in asyncio.run(main()):
        assert took < DEADLINE + SLACK, (policy, took, envelope)
        if policy == "allow" and implementation is aok:
            assert envelope["status"] == "ok"


def test_concurrent_callers_of_a_stalled_redis_all_answer_within_the_deadline(
    stalled: tuple[str, Any],
) -> None:
    """Twenty callers at once (as many as the pool's connections): none queues behind another's
    stuck round trip past its own deadline."""
    from concurrent.futures import ThreadPoolExecutor

    url, stop = stalled
    (tool,) = share_state([guard(contract("allow"), ok)], RedisState(url, max_connections=4))
    tool({}, session="warm")
    stop()
    with ThreadPoolExecutor(12) as pool:
        timings = list(pool.map(lambda i: timed(lambda: tool({}, session=f"s{i}"))[1], range(24)))
    assert max(timings) < DEADLINE + SLACK, sorted(timings)


def test_a_healthy_redis_still_counts_every_call(stalled: tuple[str, Any]) -> None:
    """The bound is no excuse to skip the store: with the server answering, the budget and the
    breaker see every failure."""
    url, _ = stalled
    state = RedisState(url)
    (tool,) = share_state([guard(contract("allow"), fails)], state)
    counts = [
        tool({}, session="s")["error"]["budget"].get("consecutive_failures") for _ in range(3)
    ]
    assert counts == [1, 2, 3]
    assert RedisBreakerStore(state).state("payments") == "open"
    refused = tool({}, session="other")["error"]
    assert "not being called right now" in refused["message"] and refused["retry_after"] > 0


def test_after_a_stall_the_counts_are_read_right_again(stalled: tuple[str, Any]) -> None:
    """Operations given up at the window's end were still on their connections: once the server
    answers again, no later call may read an earlier call's reply (a connection left mid-command
    would hand the budget the breaker's answer), sync and asyncio alike."""
    url, stop = stalled
    state = RedisState(url)
    (sync_tool,) = share_state([guard(contract("allow"), fails)], state)
    (async_tool,) = share_state([guard(contract("allow"), afails)], state)
    sync_tool({}, session="warm")

    async def stalled_then_resumed() -> list[Any]:
        await async_tool.acall({}, session="warm")
        stop()
        for _ in range(3):
            sync_tool({}, session="lost")
            await async_tool.acall({}, session="lost")
        stop(resume=True)
        await asyncio.sleep(2.5)  # the abandoned sync operations end at their socket timeout
        counted = []
        for _ in range(2):
            counted.append(
                sync_tool({}, session="after")["error"]["budget"].get("consecutive_failures")
            )
            answer = await async_tool.acall({}, session="after")
            counted.append(answer["error"]["budget"].get("consecutive_failures"))
        return counted

    assert asyncio.run(stalled_then_resumed()) == [1, 2, 3, 4]


CREDENTIALS = [
    "redis://127.0.0.1:{port}/0?password=hunter2-secret",
    "redis://:hunter2-secret@127.0.0.1:{port}/0",
    "redis://admin:hunter2-secret@127.0.0.1:{port}/0",
    "redis://127.0.0.1:{port}/0?username=admin&password=hunter2-secret",
    "rediss://127.0.0.1:{port}/0?password=hunter2-secret&ssl_cert_reqs=none",
    "unix:///tmp/nowhere/redis.sock?db=0&password=hunter2-secret",
    "unix://:hunter2-secret@/tmp/nowhere/redis.sock?db=0",
    "redis://127.0.0.1:{port}/0?password=hunter2%2Dsecret",
]


@pytest.mark.parametrize("template", CREDENTIALS)
def test_no_credential_of_a_redis_url_reaches_a_log_or_an_envelope(
    template: str, caplog: pytest.LogCaptureFixture
) -> None:
    from redis_support import free_port

    url = template.format(port=free_port())  # nothing listens there: every call logs the store
    state = RedisState(url, timeout=0.2)
    (tool,) = share_state([guard(contract("allow"), fails)], state)
    with caplog.at_level(logging.DEBUG, logger="contractgen"):
        envelope = tool({}, session="s")
        asyncio.run(tool.acall({}, session="s"))
    assert caplog.records, "the unreachable store was not logged"
    logged = "\n".join(
        r.getMessage()
        + "\n"
        + (logging.Formatter().formatException(r.exc_info) if r.exc_info else "")
        for r in caplog.records
    )
    for secret in ("hunter2", "secret"):
        assert secret not in logged, logged
        assert secret not in repr(envelope)
    assert "127.0.0.1" in logged or "/tmp/nowhere/redis.sock" in logged  # the server is still named


def _count_in_a_forked_worker(state: RedisState, answers: Any) -> None:
    from contractgen.runtime.budget import store_window
    from contractgen.runtime.stores.redis import RedisBudgetStore

    try:
        with store_window(DEADLINE):
            answers.put(RedisBudgetStore(state).record_failure("forked"))
    except Exception as exc:  # noqa: BLE001 - reported to the parent
        answers.put(repr(exc))


def test_a_worker_forked_after_the_state_was_made_still_reaches_redis(
    stalled: tuple[str, Any],
) -> None:
    """uvicorn and gunicorn fork workers after the app module made its RedisState: a forked child
    inherits the state's thread pool but none of its threads, so a bounded operation queued there
    would never run."""
    import multiprocessing

    url, _ = stalled
    state = RedisState(url)
    (tool,) = share_state([guard(contract("allow"), fails)], state)
    assert (
        tool({}, session="parent")["error"]["budget"]["consecutive_failures"] == 1
    )  # threads started here
    context = multiprocessing.get_context("fork")
    answers = context.Queue()
    child = context.Process(target=_count_in_a_forked_worker, args=(state, answers))
    child.start()
    child.join(30)
    assert answers.get(timeout=5) == 1


@pytest.mark.parametrize("how", ["call", "acall"])
def test_a_bare_redis_budget_without_hooks_is_kept_inside_the_deadline(stalled: tuple[str, Any], how: str) -> None:
    """``guard(..., state=RedisBudgetStore(url))`` with no CallHooks: the budget's operations get the
    call's window too (they waited each its own socket timeout before)."""
    from contractgen.runtime.stores.redis import RedisBudgetStore

    url, stop = stalled
    plain = Contract(**{**contract("allow").__dict__, "dependency": None})
    tool = guard(plain, fails if how == "call" else afails, state=RedisBudgetStore(url))
    assert tool({}, session="warm")["error"]["budget"]["consecutive_failures"] == 1
    stop()
    for _ in range(2):
        envelope, took = timed(lambda: tool({}, session="s") if how == "call"
                               else asyncio.run(tool.acall({}, session="s")))
        assert took < DEADLINE + SLACK, (took, envelope)
        assert envelope["error"]["code"] == "UNAVAILABLE"


@pytest.mark.parametrize("how", ["call", "acall"])
def test_admission_and_the_call_share_one_deadline(stalled: tuple[str, Any], how: str) -> None:
    """The breaker's admission on a stalled store takes its margin; the implementation then gets what
    is left of the deadline, not all of it again: the caller waits the deadline plus one margin."""
    url, stop = stalled
    state = RedisState(url)

    def slow(_: Any) -> Any:
        time.sleep(DEADLINE * 0.95)
        return {"charged": True}

    async def aslow(_: Any) -> Any:
        await asyncio.sleep(DEADLINE * 0.95)
        return {"charged": True}

    (tool,) = share_state([guard(contract("allow"), slow if how == "call" else aslow)], state)
    assert tool({}, session="warm")["status"] == "ok"
    stop()
    envelope, took = timed(lambda: tool({}, session="s") if how == "call"
                           else asyncio.run(tool.acall({}, session="s")))
    # the admission's margin (STORE_SHARE of the deadline) was taken from the implementation's time:
    # 0.95 s of work no longer fits, and the caller waits the deadline plus one margin, plus noise
    assert envelope["status"] == "error" and envelope["error"]["code"] == "TIMEOUT", envelope
    assert took < DEADLINE + 0.1 + 0.3, (took, envelope)
