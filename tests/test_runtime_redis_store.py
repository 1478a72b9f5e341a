"""The failure budget on a real Redis server: atomic counts, TTL, sync and asyncio clients, several
processes sharing one session's budget, and what the model is told when Redis is unreachable."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("redis")

from contractgen.runtime import Contract, RetryPolicy, ToolError, guard
from contractgen.runtime.budget import budget_key
from contractgen.runtime.stores.redis import RedisBudgetStore, RedisState
from contractgen.testing import assert_valid_envelope

WORKER = Path(__file__).with_name("redis_budget_worker.py")


def contract(budget: int | None = 3, policy: str = "allow") -> Contract:
    return Contract(name="flaky", version="1.0.0", summary="s", description="d",
                    input_schema={"type": "object"}, output_schema={"type": "object"},
                    retry=RetryPolicy(failure_budget=budget), state_unreachable=policy)


def fail(_: Any) -> Any:
    raise ToolError("the upstream is down", code="UNAVAILABLE")


async def afail(_: Any) -> Any:
    raise ToolError("the upstream is down", code="UNAVAILABLE")


def test_counts_are_namespaced_by_tool_and_session_and_reset_on_success(redis_db: str) -> None:
    store = RedisBudgetStore(redis_db)
    key_a, key_b = budget_key("flaky", "a"), budget_key("flaky", "b")
    assert [store.record_failure(key_a) for _ in range(3)] == [1, 2, 3]
    assert store.record_failure(key_b) == 1
    assert store.record_failure(budget_key("other", "a")) == 1
    store.reset(key_a)
    assert (store.failures(key_a), store.failures(key_b)) == (0, 1)
    import redis

    raw = redis.Redis.from_url(redis_db)
    assert raw.exists("cg:" + key_b) == 1 and 0 < raw.pttl("cg:" + key_b) <= 3_600_000
    raw.close()


def test_abandoned_sessions_expire(redis_db: str) -> None:
    store = RedisBudgetStore(redis_db, ttl=0.1)
    key = budget_key("flaky", "gone")
    store.record_failure(key)
    store.record_failure(key)
    deadline = time.monotonic() + 5
    while store.failures(key) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert store.failures(key) == 0
    assert store.record_failure(key) == 1


def test_guard_stops_the_model_at_the_budget_sync_and_async(redis_db: str) -> None:
    store = RedisBudgetStore(redis_db)
    c = contract(budget=2)
    sync_tool = guard(c, fail, state=store)
    first, second = sync_tool({}, session="s"), sync_tool({}, session="s")
    assert first["error"]["budget"] == {"consecutive_failures": 1, "limit": 2, "exhausted": False}
    assert second["error"]["action"] == "stop_and_tell_user" and second["error"]["budget"]["exhausted"]
    async_tool = guard(c, afail, state=store)  # the asyncio client counts in the same keys
    third = asyncio.run(async_tool.acall({}, session="s"))
    assert third["error"]["budget"]["consecutive_failures"] == 3
    ok = guard(c, lambda _: {}, state=store)
    assert asyncio.run(ok.acall({}, session="s"))["status"] == "ok"
    assert store.failures(budget_key("flaky", "s")) == 0
    for envelope in (first, second, third):
        assert_valid_envelope(envelope, c)


def test_four_processes_share_one_session_budget_exactly(redis_db: str) -> None:
    """4 processes x 250 concurrent failing calls for one session: counts 1..1000, each once; the
    1,000th call is the one told to stop, and every process's next call finds the budget spent."""
    procs = [subprocess.Popen([sys.executable, str(WORKER), redis_db, mode, "250", "1000"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for mode in ("async", "async", "sync", "sync")]
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        results.append(json.loads(out))
    counts = sorted(c for r in results for c in r["counts"])
    assert counts == list(range(1, 1001))
    stops = [c for r in results for c, a in zip(r["counts"], r["actions"]) if a == "stop_and_tell_user"]
    assert stops == [1000]
    for result in results:
        after = result["after"]
        assert after["action"] == "stop_and_tell_user" and after["budget"]["exhausted"] is True
        assert after["budget"]["consecutive_failures"] > 1000
    assert sorted(r["after"]["budget"]["consecutive_failures"] for r in results) == [1001, 1002, 1003, 1004]
    assert RedisBudgetStore(redis_db).failures(budget_key("flaky", "s1")) == 1004


def test_many_concurrent_async_calls_are_exact_with_a_bounded_pool(redis_db: str) -> None:
    store = RedisBudgetStore(RedisState(redis_db, max_connections=4))
    tool = guard(contract(budget=None), afail, state=store)
    tool_counted = guard(contract(budget=500), afail, state=store)

    async def burst() -> list[dict[str, Any]]:
        await asyncio.gather(*(tool.acall({}, session="x") for _ in range(50)))
        return await asyncio.gather(*(tool_counted.acall({}, session="x") for _ in range(300)))
    envelopes = asyncio.run(burst())
    assert sorted(e["error"]["budget"]["consecutive_failures"] for e in envelopes) == list(range(1, 301))


# -- Redis unreachable: the contract's state_unreachable decides -------------------------------
def _dead_url() -> str:
    from redis_support import free_port

    return f"redis://127.0.0.1:{free_port()}/0"


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_unreachable_allow_fails_open_and_says_so(mode: str, caplog: pytest.LogCaptureFixture) -> None:
    store = RedisBudgetStore(RedisState(_dead_url(), timeout=0.2))
    c = contract(budget=2, policy="allow")
    tool = guard(c, fail if mode == "sync" else afail, state=store)
    with caplog.at_level("WARNING", logger="contractgen.runtime"):
        envelope = tool({}, session="s") if mode == "sync" else asyncio.run(tool.acall({}, session="s"))
    error = envelope["error"]
    assert error["action"] == "retry_later" and error["retryable"] is True
    assert error["budget"] == {"store": "unreachable", "policy": "allow", "limit": 2, "exhausted": False}
    assert "store unreachable, policy allow" in caplog.text
    assert_valid_envelope(envelope, c)
    ok = guard(c, lambda _: {"fine": True}, state=store)
    assert ok({}, session="s")["status"] == "ok"  # a success is answered; the reset is only logged


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_unreachable_refuse_fails_closed(mode: str) -> None:
    store = RedisBudgetStore(RedisState(_dead_url(), timeout=0.2))
    c = contract(budget=5, policy="refuse")
    tool = guard(c, fail if mode == "sync" else afail, state=store)
    envelope = tool({}, session="s") if mode == "sync" else asyncio.run(tool.acall({}, session="s"))
    error = envelope["error"]
    assert error["action"] == "stop_and_tell_user" and error["retryable"] is False
    assert error["budget"]["store"] == "unreachable" and error["budget"]["exhausted"] is True
    assert "retry_after" not in error
    assert_valid_envelope(envelope, c)



_CLOSE_SCENARIO = """
import asyncio, json, os, sys
import redis
from contractgen.runtime import Contract, RetryPolicy, ToolError, guard
from contractgen.runtime.stores.redis import RedisBudgetStore, RedisState

url = sys.argv[1]
def mine():
    with redis.Redis.from_url(url) as observer:
        return sum(c.get("name") == f"contractgen-{os.getpid()}" for c in observer.client_list())
def fail(_):
    raise ToolError("down", code="UNAVAILABLE")
async def afail(_):
    raise ToolError("down", code="UNAVAILABLE")
contract = Contract(name="flaky", version="1.0.0", summary="s", description="d",
                    input_schema={"type": "object"}, output_schema={"type": "object"},
                    retry=RetryPolicy(failure_budget=1000))
state = RedisState(url, max_connections=4)
store = RedisBudgetStore(state)
tool, sync_tool = guard(contract, afail, state=store), guard(contract, fail, state=store)
counts = {}
sync_tool({}, session="c")
async def burst_then_close():
    await asyncio.gather(*(tool.acall({}, session="c") for _ in range(20)))
    counts["during"] = mine()
    await state.aclose()
    counts["after_aclose"] = mine()
asyncio.run(burst_then_close())
state.close()
counts["after_close"] = mine()
counts["next"] = asyncio.run(tool.acall({}, session="c"))["error"]["budget"]["consecutive_failures"]
print(json.dumps(counts))
"""


def test_close_and_aclose_release_every_connection(redis_db: str) -> None:
    # a process of its own: connections are told apart by the pid in their name
    run = subprocess.run([sys.executable, "-c", _CLOSE_SCENARIO, redis_db], capture_output=True,
                         text=True, timeout=60, check=True)
    counts = json.loads(run.stdout)
    # the asyncio pool's connections and the sync one; the sync one alone; none
    assert counts["during"] >= 2 and counts["after_aclose"] == 1 and counts["after_close"] == 0
    assert counts["next"] == 22  # closed is not broken: the next call connects again


@pytest.mark.parametrize("garbage", [b"abc", b"1.5", b"--5", b"9" * 40, b"\xff\xfe", b""])
def test_a_count_that_is_not_a_whole_number_is_state_unavailable_not_a_crash(redis_db: str, garbage: bytes) -> None:
    """Something else wrote the budget key: reading it names the key (StateUnavailable, as any
    Redis failure), and a guarded call follows the contract's state_unreachable instead of raising."""
    import redis

    from contractgen.runtime.budget import StateUnavailable

    key = budget_key("flaky", "garbage")
    raw = redis.Redis.from_url(redis_db)
    raw.set("cg:" + key, garbage)
    raw.close()
    store = RedisBudgetStore(redis_db)
    with pytest.raises(StateUnavailable, match="budget count at 'contractgen.budget:garbage:flaky' is not a whole number"):
        store.failures(key)
    envelope = guard(contract(budget=3), fail, state=store)({}, session="garbage")
    assert envelope["error"]["code"] == "UNAVAILABLE"
    assert envelope["error"]["budget"] == {"store": "unreachable", "policy": "allow", "limit": 3, "exhausted": False}
    assert_valid_envelope(envelope, contract(budget=3))
