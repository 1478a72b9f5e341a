"""Circuit breakers per dependency, shared by every session: in memory and on a real Redis server.

Many sessions fail together and open the breaker; while open, calls fail fast with UNAVAILABLE and
retry_after; after open_for exactly one half-open probe reaches the dependency, however many
sessions (threads and asyncio tasks) call at once; its success closes the breaker.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from contractgen.runtime import Breaker, Contract, Dependency, RetryPolicy, ToolError, guard
from contractgen.runtime.breaker import CLOSED, HALF_OPEN, OPEN, InMemoryBreakerStore
from contractgen.runtime.hooks import CallHooks
from contractgen.testing import assert_valid_envelope


def contract(name: str = "lookup", open_for: float = 0.4, policy: str = "allow") -> Contract:
    return Contract(name=name, version="1.0.0", summary="s", description="d",
                    input_schema={"type": "object", "properties": {"q": {"type": "string"}}},
                    output_schema={"type": "object"}, retry=RetryPolicy(failure_budget=None),
                    dependency=Dependency("geo-api", Breaker(failures=5, window=60, open_for=open_for)),
                    state_unreachable=policy)


class Upstream:
    """The dependency: down, or up but slow until released; counts the calls that reached it."""

    def __init__(self) -> None:
        self.down = True
        self.calls = 0
        self.lock = threading.Lock()
        self.release = threading.Event()

    def __call__(self, _: Any) -> Any:
        with self.lock:
            self.calls += 1
        if self.down:
            raise ToolError("geo-api is down", code="UNAVAILABLE")
        self.release.wait(10)
        return {"ok": True}


@pytest.fixture(params=["memory", "redis"])
def breakers(request: pytest.FixtureRequest) -> Any:
    if request.param == "memory":
        return InMemoryBreakerStore()
    pytest.importorskip("redis")
    from contractgen.runtime.stores.redis import RedisBreakerStore

    return RedisBreakerStore(request.getfixturevalue("redis_db"))


def test_sessions_open_it_together_and_exactly_one_probe_goes_out(
        breakers: Any, caplog: pytest.LogCaptureFixture) -> None:
    upstream = Upstream()
    c = contract(open_for=2.0)  # long enough that 20 fast failures finish inside it on a busy box
    tool = guard(c, upstream, hooks=CallHooks(breakers=breakers))
    other = guard(contract("reverse_lookup", open_for=2.0), upstream, hooks=CallHooks(breakers=breakers))
    # 30 sessions fail at once: consecutive across users, so the breaker opens, exactly once
    together = threading.Barrier(30)

    def first_call(i: int) -> dict[str, Any]:
        together.wait()
        return tool({"q": "x"}, session=f"user-{i}")
    with caplog.at_level("WARNING", logger="contractgen.runtime"), ThreadPoolExecutor(30) as pool:
        first = list(pool.map(first_call, range(30)))
    assert all(e["error"]["code"] == "UNAVAILABLE" for e in first) and 5 <= upstream.calls <= 30
    assert caplog.text.count("circuit breaker of geo-api: opened") == 1
    assert breakers.state("geo-api") == OPEN
    reached = upstream.calls
    # open: every session and every tool on the dependency fails fast, without calling it
    fast = [(t, t({"q": "x"}, session=f"user-{i}")) for i, t in enumerate([tool, other] * 10)]
    assert upstream.calls == reached
    for guarded, envelope in fast:
        error = envelope["error"]
        assert error["code"] == "UNAVAILABLE" and error["action"] == "retry_later"
        assert 0 < error["retry_after"] <= 2.0 and "geo-api" in error["message"]
        assert_valid_envelope(envelope, guarded.contract)
    # half-open: the dependency is back but slow; 60 callers at once, one probe
    upstream.down = False
    deadline = threading.Event()
    while breakers.state("geo-api") == OPEN:
        deadline.wait(0.02)
    assert breakers.state("geo-api") == HALF_OPEN
    start = threading.Barrier(22)
    answers: list[dict[str, Any]] = []
    lock = threading.Lock()

    def answered(envelope: dict[str, Any]) -> None:
        with lock:
            answers.append(envelope)

    def sync_call(i: int) -> None:
        start.wait()
        answered(tool({"q": "x"}, session=f"thread-{i}"))

    async def async_calls() -> None:
        async def one(i: int) -> None:
            answered(await other.acall({"q": "x"}, session=f"task-{i}"))
        start.wait()
        await asyncio.gather(*(one(i) for i in range(40)))

    with ThreadPoolExecutor(max_workers=21) as pool:
        callers = [pool.submit(sync_call, i) for i in range(20)]
        callers.append(pool.submit(asyncio.run, async_calls()))
        start.wait()
        # everyone but the probe has been answered while the probe holds the half-open slot; only
        # then does the dependency answer the probe (after it, a closed breaker admits everyone)
        give_up = time.monotonic() + 60  # a second probe would block: fail, do not hang
        # (the probe's worker may reach the dependency after the others are answered, on a busy box)
        while (len(answers) < 59 or upstream.calls < reached + 1) and time.monotonic() < give_up and \
                not any(f.done() and f.exception() for f in callers):
            deadline.wait(0.01)
        assert upstream.calls == reached + 1 and len(answers) == 59
        upstream.release.set()
        for caller_done in callers:
            caller_done.result(timeout=20)
    assert upstream.calls == reached + 1  # exactly one probe reached the dependency
    assert sum(e["status"] == "ok" for e in answers) == 1
    for envelope in answers:
        if envelope["status"] == "error":
            assert envelope["error"]["code"] == "UNAVAILABLE" and envelope["error"]["retry_after"] >= 0
    assert breakers.state("geo-api") == CLOSED
    assert tool({"q": "y"}, session="later")["status"] == "ok" and upstream.calls == reached + 2


def test_a_failed_probe_opens_it_again_and_a_bad_call_holds_no_probe(breakers: Any) -> None:
    upstream = Upstream()
    tool = guard(contract(open_for=0.2), upstream, hooks=CallHooks(breakers=breakers))
    for i in range(5):
        tool({}, session=f"s{i}")
    assert breakers.state("geo-api") == OPEN
    while breakers.state("geo-api") == OPEN:
        threading.Event().wait(0.02)
    bad = tool({"q": 3}, session="s")  # never reaches the dependency: releases the probe slot
    assert bad["error"]["code"] == "INVALID_ARGUMENT" and breakers.state("geo-api") == HALF_OPEN
    probe = tool({}, session="s")
    assert probe["error"]["code"] == "UNAVAILABLE" and upstream.calls == 6
    assert breakers.state("geo-api") == OPEN


def test_non_consecutive_failures_do_not_open_it(breakers: Any) -> None:
    upstream = Upstream()
    tool = guard(contract(), upstream, hooks=CallHooks(breakers=breakers))
    healthy = guard(contract("reverse_lookup"), lambda _: {}, hooks=CallHooks(breakers=breakers))
    for _ in range(3):
        for i in range(4):
            tool({}, session=f"s{i}")
        healthy({}, session="x")  # the dependency answered: the run of failures is broken
    assert breakers.state("geo-api") == CLOSED and upstream.calls == 12


def test_unreachable_breaker_store_follows_the_contract_policy() -> None:
    pytest.importorskip("redis")
    from redis_support import free_port

    from contractgen.runtime.stores.redis import RedisBreakerStore, RedisState

    dead = RedisBreakerStore(RedisState(f"redis://127.0.0.1:{free_port()}/0", timeout=0.2))
    calls = []
    allow = guard(contract(policy="allow"), lambda _: calls.append(1) or {}, hooks=CallHooks(breakers=dead))
    assert allow({}, session="s")["status"] == "ok" and calls == [1]
    refuse = guard(contract(policy="refuse"), lambda _: calls.append(1) or {}, hooks=CallHooks(breakers=dead))
    envelope = refuse({}, session="s")
    assert envelope["error"]["code"] == "UNAVAILABLE" and envelope["error"]["action"] == "stop_and_tell_user"
    assert calls == [1]
    envelope = asyncio.run(refuse.acall({}, session="s"))
    assert envelope["error"]["code"] == "UNAVAILABLE" and calls == [1]


def test_manifest_dependency_and_policy_reach_the_generated_contract(tmp_path: Path) -> None:
    from conftest import ROOT, run_cli

    source = ROOT / "tests" / "cases" / "diff" / "dependency-breaker-changed" / "new" / "demo.yaml"
    (tmp_path / "contracts" / "demo").mkdir(parents=True)
    (tmp_path / "contracts" / "demo" / "1.1.0.yaml").write_text(
        source.read_text("utf-8") + "state_unreachable: refuse\n", "utf-8")
    done = run_cli("build", "--contracts", "contracts", "--output", "gen", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    probe = ("import sys; sys.path.insert(0, '.'); import gen.demo_v1 as m; "
             "c = [v for v in vars(m).values() if type(v).__name__ == 'Contract'][0]; "
             "print(c.dependency.name, c.dependency.breaker.failures, c.dependency.breaker.window, "
             "c.dependency.breaker.open_for, c.state_unreachable)")
    out = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["search-api", "3", "60.0", "120", "refuse"]
    bad = source.read_text("utf-8").replace("failures: 3", "failures: 0")
    (tmp_path / "contracts" / "demo" / "1.1.0.yaml").write_text(bad, "utf-8")
    rejected = run_cli("check", "contracts", cwd=tmp_path)
    assert rejected.returncode == 2 and "/dependency/breaker/failures" in rejected.stderr + rejected.stdout
