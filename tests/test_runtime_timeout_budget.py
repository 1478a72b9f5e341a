"""Deadlines (sync worker threads, async cancellation) and the failure budget, incl. concurrency."""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from contractgen.runtime import (
    CallRecord,
    Contract,
    InMemoryBudgetStore,
    RetryPolicy,
    Timeout,
    ToolError,
    guard,
)
from contractgen.runtime.budget import MappingBudgetStore, StateUnavailable
from contractgen.testing import assert_valid_envelope


def contract(seconds: float | None = 0.05, budget: int | None = 3) -> Contract:
    return Contract(name="slow", version="1.0.0", summary="s", description="d",
                    input_schema={"type": "object"}, output_schema={"type": "object"},
                    timeout=Timeout(seconds=seconds), retry=RetryPolicy(failure_budget=budget))


def test_sync_deadline_abandons_the_worker_which_keeps_running() -> None:
    release, finished = threading.Event(), threading.Event()

    def stuck(_: Any) -> Any:
        release.wait(10)
        finished.set()
        return {}
    c = contract()
    envelope = guard(c, stuck)({})
    assert_valid_envelope(envelope, c)
    error = envelope["error"]
    assert (error["code"], error["action"], error["retryable"]) == ("TIMEOUT", "retry_later", True)
    assert not finished.is_set()  # the caller got its answer while the worker was still busy
    release.set()
    assert finished.wait(5)  # ... and the worker ran to its end afterwards


def test_async_deadline_cancels_the_work() -> None:
    cancelled = asyncio.Event()

    async def stuck(_: Any) -> Any:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return {}

    async def main() -> dict[str, Any]:
        envelope = await guard(contract(), stuck).acall({})
        assert cancelled.is_set()
        return envelope
    assert asyncio.run(main())["error"]["code"] == "TIMEOUT"


def test_sync_implementation_called_async_times_out_without_blocking_the_loop() -> None:
    release = threading.Event()

    async def main() -> dict[str, Any]:
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while not release.is_set():
                ticks += 1
                await asyncio.sleep(0.001)
        task = asyncio.create_task(ticker())
        envelope = await guard(contract(), lambda a: release.wait(10) and {}).acall({})
        release.set()
        await task
        assert ticks > 1  # the loop kept running while the sync implementation blocked
        return envelope
    assert asyncio.run(main())["error"]["code"] == "TIMEOUT"


def test_tools_own_timeout_error_is_not_our_deadline() -> None:
    async def own(_: Any) -> Any:
        raise TimeoutError("upstream socket timed out")
    envelope = asyncio.run(guard(contract(seconds=5), own).acall({}))
    # an upstream timeout (the transport mapping), not the guard's deadline of 5 s, which has a ref
    assert envelope["error"]["code"] == "TIMEOUT" and "ref" not in envelope["error"]
    assert envelope["error"]["message"] == "The service did not answer in time. Wait a moment and call again unchanged."
    envelope = asyncio.run(guard(contract(seconds=5), own, transport_errors=False).acall({}))
    assert envelope["error"]["code"] == "INTERNAL"  # no mapping: an unexpected exception
    assert "socket" not in envelope["error"]["message"]


def test_no_deadline_runs_inline() -> None:
    seen = []
    guard(contract(seconds=None), lambda a: seen.append(threading.current_thread()) or {})({})
    assert seen == [threading.current_thread()]


def failing(_: Any) -> Any:
    raise ToolError("Backend down.", code="UNAVAILABLE")


def test_budget_stops_at_limit_resets_on_success_and_ignores_bad_arguments() -> None:
    c = Contract(name="flaky", version="1.0.0", summary="s", description="d",
                 input_schema={"type": "object", "additionalProperties": False,
                               "properties": {"ok": {"type": "boolean"}}},
                 output_schema={"type": "object"}, timeout=Timeout(None),
                 retry=RetryPolicy(failure_budget=3))
    mode = {"fail": True}

    def impl(_: Any) -> Any:
        if mode["fail"]:
            raise ToolError("Backend down.", code="UNAVAILABLE", retry_after=2)
        return {}
    records: list[CallRecord] = []
    tool = guard(c, impl, on_call=records.append)
    first, second = tool({}), tool({})
    assert [e["error"]["action"] for e in (first, second)] == ["retry_later", "retry_later"]
    assert tool({"bogus": 1})["error"]["code"] == "INVALID_ARGUMENT"  # not counted
    third = tool({})
    assert_valid_envelope(third, c)
    err = third["error"]
    assert err["retryable"] is False and err["action"] == "stop_and_tell_user"
    assert "failed 3 times in a row" in err["message"] and "retry_after" not in err
    assert err["budget"] == {"consecutive_failures": 3, "limit": 3, "exhausted": True}
    assert tool({}, session="other")["error"]["action"] == "retry_later"  # per session
    mode["fail"] = False
    assert tool({})["status"] == "ok"
    mode["fail"] = True
    assert tool({})["error"]["budget"]["consecutive_failures"] == 1  # success reset it
    assert [r.code for r in records] == ["UNAVAILABLE"] * 2 + ["INVALID_ARGUMENT"] + ["UNAVAILABLE"] * 2 + ["OK", "UNAVAILABLE"]
    assert records[3].budget_exhausted and records[3].budget_failures == 3


def test_non_transient_errors_are_not_counted() -> None:
    def missing(_: Any) -> Any:
        raise ToolError(code="NOT_FOUND")
    store = InMemoryBudgetStore()
    tool = guard(contract(None, 1), missing, state=store)
    for _ in range(3):
        assert "budget" not in tool({})["error"]
    assert store.failures("contractgen.budget:default:slow") == 0


def test_mutable_mapping_backs_the_budget() -> None:
    session_state: dict[str, Any] = {}
    tool = guard(contract(None, 2), failing, state=session_state)
    tool({}, session="s1")
    assert session_state == {"contractgen.budget:s1:slow": 1}
    assert tool({}, session="s1")["error"]["action"] == "stop_and_tell_user"


@pytest.mark.parametrize("kept", [2, 2.0, "2", b"2", "-0"])
def test_a_mapping_store_reads_whole_numbers_in_the_forms_stores_keep(kept: Any) -> None:
    """A framework's session state may hold the count as an int, a whole float or text."""
    key = "contractgen.budget:s1:slow"
    store = MappingBudgetStore({key: kept})
    assert store.failures(key) == int(float(kept))
    assert store.record_failure(key) == int(float(kept)) + 1


@pytest.mark.parametrize("garbage", ["abc", "--5", "1.5", 2.5, float("nan"), True, [3], {"n": 1}, "9" * 40, "\u0662"])
def test_a_mapping_store_holding_no_count_is_state_unavailable(garbage: Any) -> None:
    """Something else wrote the budget key: reading it names the key instead of raising ValueError
    (or counting ``True`` as 1), and a guarded call follows state_unreachable instead of raising."""
    key = "contractgen.budget:s1:slow"
    session_state: dict[str, Any] = {key: garbage}
    with pytest.raises(StateUnavailable, match=f"budget count at '{key}' is not a whole number"):
        MappingBudgetStore(session_state).failures(key)
    envelope = guard(contract(None, 2), failing, state=session_state)({}, session="s1")
    assert envelope["error"]["code"] == "UNAVAILABLE"
    assert envelope["error"]["budget"] == {"store": "unreachable", "policy": "allow", "limit": 2, "exhausted": False}
    assert session_state[key] is garbage  # nothing was made up in its place


def test_thousand_concurrent_async_calls_count_exactly() -> None:
    async def afailing(_: Any) -> Any:
        await asyncio.sleep(0)
        raise ToolError("Backend down.", code="UNAVAILABLE")
    store = InMemoryBudgetStore()
    tool = guard(contract(seconds=30, budget=10), afailing, state=store)

    async def main() -> list[dict[str, Any]]:
        return await asyncio.gather(*(tool.acall({}) for _ in range(1000)))
    envelopes = asyncio.run(main())
    counts = sorted(e["error"]["budget"]["consecutive_failures"] for e in envelopes)
    assert counts == list(range(1, 1001))
    actions = Counter(e["error"]["action"] for e in envelopes)
    assert actions == {"retry_later": 9, "stop_and_tell_user": 991}
    assert store.failures("contractgen.budget:default:slow") == 1000


def test_thread_pool_calls_count_exactly_on_a_mapping_store() -> None:
    state: dict[str, Any] = {}
    tool = guard(contract(None, 5), failing, state=state)
    with ThreadPoolExecutor(8) as pool:
        envelopes = list(pool.map(lambda _: tool({}), range(400)))
    assert sorted(e["error"]["budget"]["consecutive_failures"] for e in envelopes) == list(range(1, 401))


def test_broken_store_never_breaks_the_call() -> None:
    class Broken:
        def record_failure(self, key: str) -> int:
            raise OSError("redis down")

        def reset(self, key: str) -> None:
            raise OSError("redis down")

        def failures(self, key: str) -> int:
            return 0
    assert guard(contract(None), failing, state=Broken())({})["error"]["code"] == "UNAVAILABLE"
    calls: list[Any] = []
    assert guard(contract(None), lambda a: calls.append(a) or {}, state=Broken())({})["status"] == "ok"
    assert len(calls) == 1  # a failure after the call never makes the guard call it again
    with pytest.raises(TypeError):
        guard(contract(None), failing, state=42)


def test_retryable_codes_are_honoured_for_runtime_made_errors() -> None:
    """A refund must not be retried after a TIMEOUT: its contract lists only UNAVAILABLE."""
    refund = Contract(name="refund", version="1.0.0", summary="s", description="d",
                      input_schema={"type": "object"}, output_schema={"type": "object"},
                      timeout=Timeout(seconds=0.05),
                      retry=RetryPolicy(retryable_codes=("UNAVAILABLE",), failure_budget=5))
    release = threading.Event()
    envelope = guard(refund, lambda a: release.wait(10) and {})({})
    release.set()
    assert_valid_envelope(envelope, refund)
    error = envelope["error"]
    assert (error["code"], error["retryable"], error["action"]) == ("TIMEOUT", False, "stop_and_tell_user")
    assert "retry_after" not in error and "budget" not in error

    def limited(_: Any) -> Any:
        raise ToolError("Too many calls.", code="RATE_LIMITED")  # not listed either
    error = guard(refund, limited)({})["error"]
    assert (error["retryable"], error["action"]) == (False, "stop_and_tell_user")
    assert error["message"].startswith("Too many calls.")
    # listed codes keep their defaults, and an explicit choice on the error always wins
    error = guard(refund, failing)({})["error"]
    assert (error["retryable"], error["action"]) == (True, "retry_later")

    def explicit(_: Any) -> Any:
        raise ToolError("Slow down.", code="RATE_LIMITED", retryable=True, action="retry_later")
    assert guard(refund, explicit)({})["error"]["action"] == "retry_later"


@pytest.mark.parametrize(("raised", "kept"), [
    ({"code": "RATE_LIMITED"}, False),  # left out of retry.retryable_codes: the runtime withholds the retry
    ({"code": "UNAVAILABLE", "retryable": False, "action": "stop_and_tell_user"}, False),  # the error says so itself
    ({"code": "NOT_FOUND"}, False),  # not transient at all
    ({"code": "UNAVAILABLE"}, True),  # listed: retried after retry_after
    ({"code": "RATE_LIMITED", "retryable": True, "action": "retry_later"}, True),  # its own choice wins
])
@pytest.mark.parametrize("how", ["call", "acall"])
def test_retry_after_comes_only_with_an_invitation_to_retry(raised: dict[str, Any], kept: bool, how: str) -> None:
    """An envelope that tells the model not to call again never also says when to call again."""
    refund = Contract(name="refund", version="1.0.0", summary="s", description="d",
                      input_schema={"type": "object"}, output_schema={"type": "object"},
                      retry=RetryPolicy(retryable_codes=("UNAVAILABLE",)))

    def raising(_: Any) -> Any:
        raise ToolError("Busy.", retry_after=30, **raised)
    tool = guard(refund, raising)
    envelope = tool({}) if how == "call" else asyncio.run(tool.acall({}))
    assert_valid_envelope(envelope, refund)
    error = envelope["error"]
    assert error["retryable"] is kept and error.get("retry_after") == (30 if kept else None), error


def test_async_implementations_that_suspend_work_under_a_deadline() -> None:
    async def busy(args: Any) -> Any:
        queue: asyncio.Queue[int] = asyncio.Queue()
        for i in range(3):
            await asyncio.sleep(0)
            loop = asyncio.get_running_loop()
            loop.call_soon(queue.put_nowait, i)
            await queue.get()
        future = asyncio.get_running_loop().create_future()
        asyncio.get_running_loop().call_later(0.001, future.set_result, {"done": args["n"]})
        return await future

    async def fails_later(_: Any) -> Any:
        await asyncio.sleep(0)
        raise ToolError(code="CONFLICT")

    async def main() -> list[dict[str, Any]]:
        return [await guard(contract(seconds=5), busy).acall({"n": 1}),
                await guard(contract(seconds=5), fails_later).acall({}),
                *await asyncio.gather(*(guard(contract(seconds=5), busy).acall({"n": i}) for i in range(20)))]
    first, failed, *many = asyncio.run(main())
    assert first["output"] == {"done": 1}
    assert failed["error"]["code"] == "CONFLICT"
    assert [e["output"]["done"] for e in many] == list(range(20))


def test_cancelling_the_caller_propagates_and_cancels_the_work() -> None:
    cancelled = threading.Event()

    async def slow(_: Any) -> Any:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return {}

    async def main() -> None:
        task = asyncio.create_task(guard(contract(seconds=10), slow).acall({}))
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    asyncio.run(main())
    assert cancelled.is_set()


def test_a_tool_that_always_hangs_cannot_exhaust_the_process(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from contractgen.runtime import workers

    small = workers.ElasticPool(max_workers=3)
    monkeypatch.setattr(sys.modules["contractgen.runtime.stage_run"], "POOL", small)
    release = threading.Event()
    tool = guard(contract(seconds=0.02, budget=None), lambda a: release.wait(10) and {})
    codes = [tool({})["error"]["code"] for _ in range(5)]
    assert codes == ["TIMEOUT"] * 3 + ["UNAVAILABLE"] * 2
    assert small.live == 3
    release.set()
    for _ in range(200):  # the abandoned workers finish and become idle again
        if len(small._idle) == 3:
            break
        threading.Event().wait(0.01)
    assert guard(contract(seconds=5), lambda a: {})({})["status"] == "ok"
    assert small.started == 3  # the next call reused an idle worker


def test_async_implementation_called_synchronously_times_out_as_timeout() -> None:
    cancelled = threading.Event()

    async def stuck(_: Any) -> Any:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return {}
    for _ in range(5):  # the worker's own deadline and the caller's race: both must say TIMEOUT
        cancelled.clear()
        assert guard(contract(seconds=0.02), stuck)({})["error"]["code"] == "TIMEOUT"
        assert cancelled.wait(5)  # the coroutine in the worker was cancelled too


def test_an_in_memory_budget_keeps_a_bounded_number_of_sessions(monkeypatch: pytest.MonkeyPatch) -> None:
    """A client names its own sessions, and every failing call under a new name kept a count in
    the in-memory store for good: the store grew without end. Past SESSIONS_KEPT the longest-held
    count goes; a session counted lately keeps counting toward its budget."""
    from contractgen.runtime import budget

    monkeypatch.setattr(budget, "SESSIONS_KEPT", 50)
    store = budget.InMemoryBudgetStore()
    tool = guard(contract(None, budget=3), failing, state=store)
    tool({}, session="steady")
    for i in range(200):
        tool({}, session=f"client-{i}")
        if i % 40 == 0:
            tool({}, session="steady")  # counted lately: kept
    assert len(store._counts) <= 50
    envelope = tool({}, session="steady")
    assert envelope["error"]["budget"]["exhausted"] is True, envelope
