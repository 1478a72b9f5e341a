"""Deadlines and capacity that do not rely on the tool's cooperation: coroutines that swallow their
cancellation in many ways, sync tools that never return, and a healthy tool beside them."""

from __future__ import annotations

import asyncio
import json
import logging
import math
import sys
import threading
import time
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contractgen.runtime import Contract, RetryPolicy, Timeout, guard
from contractgen.runtime.capacity import PER_TOOL_LIMIT, stuck_tools
from contractgen.runtime.contract import LONGEST_DEADLINE

DEADLINE = 0.05


def contract(name: str, seconds: float | None = DEADLINE) -> Contract:
    return Contract(name=name, version="1.0.0", summary="s", description="d",
                    input_schema={"type": "object"}, output_schema={"type": "object"},
                    timeout=Timeout(seconds), retry=RetryPolicy(failure_budget=None))


# how a coroutine may misbehave once cancelled: keep awaiting (n more times), return a value,
# raise something else, await a shielded future, or do nothing special (the cooperative case)
BEHAVIOURS = st.sampled_from(["swallow_and_wait", "swallow_and_return", "raise_other", "shielded",
                              "cooperative"])


def misbehaving(behaviour: str, swallows: int, release: threading.Event) -> Any:
    async def tool(_: Any) -> Any:
        left = swallows
        while True:
            try:
                if behaviour == "shielded":
                    await asyncio.shield(asyncio.sleep(0.1 + 0.02 * swallows))
                    return {"late": True}
                await asyncio.sleep(0.02)
                if release.is_set():
                    return {"late": True}
            except asyncio.CancelledError:
                if behaviour == "cooperative":
                    raise
                if behaviour == "swallow_and_return":
                    return {"swallowed": True}
                if behaviour == "raise_other":
                    raise RuntimeError("cleanup failed") from None
                left -= 1
                if left <= 0 and behaviour != "swallow_and_wait":
                    raise
    return tool


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(behaviour=BEHAVIOURS, swallows=st.integers(1, 6))
def test_the_caller_gets_timeout_at_the_deadline_whatever_the_coroutine_does(
        behaviour: str, swallows: int) -> None:
    release = threading.Event()
    tool = guard(contract("uncooperative"), misbehaving(behaviour, swallows, release))

    async def main() -> dict[str, Any]:
        envelope = await tool.acall({})
        release.set()  # the abandoned work may end now (asyncio.run waits for it on exit)
        return envelope
    envelope = asyncio.run(main())
    assert envelope["error"]["code"] == "TIMEOUT"


def test_abandoned_work_is_logged_under_the_timeouts_ref(caplog: pytest.LogCaptureFixture) -> None:
    release = threading.Event()
    tool = guard(contract("swallower"), misbehaving("swallow_and_wait", 1, release))

    async def main() -> dict[str, Any]:
        envelope = await tool.acall({})
        assert stuck_tools()["swallower"]["abandoned"] == 1
        release.set()
        await asyncio.sleep(0.1)  # the work ends: the slot is given back
        assert "swallower" not in stuck_tools()
        return envelope
    with caplog.at_level(logging.INFO, logger="contractgen.runtime"):
        envelope = asyncio.run(main())
    ref = envelope["error"]["ref"]
    lines = [r.getMessage() for r in caplog.records if ref in r.getMessage()]
    assert any("abandoned" in line and "deadline" in line for line in lines)
    assert any("ended after its deadline" in line for line in lines)


def test_cancelling_the_caller_still_cancels_even_when_the_work_swallows() -> None:
    release = threading.Event()
    tool = guard(contract("swallower", seconds=30), misbehaving("swallow_and_wait", 1, release))

    async def main() -> None:
        task = asyncio.create_task(tool.acall({}))
        await asyncio.sleep(0.05)
        task.cancel()
        try:
            with pytest.raises(asyncio.CancelledError):
                await asyncio.wait_for(task, 5)
        finally:
            release.set()
    asyncio.run(main())


def test_a_stuck_sync_tool_exhausts_only_its_own_capacity() -> None:
    release = threading.Event()
    stuck = guard(contract("never_returns"), lambda a: release.wait(30) and {})
    healthy = guard(contract("healthy"), lambda a: {"fine": True})
    try:
        codes = [stuck({})["error"]["code"] for _ in range(PER_TOOL_LIMIT + 3)]
        assert codes == ["TIMEOUT"] * PER_TOOL_LIMIT + ["UNAVAILABLE"] * 3
        refused = stuck({})["error"]
        assert "not responding" in refused["message"] and refused["action"] == "retry_later"
        assert stuck_tools()["never_returns"]["abandoned"] == PER_TOOL_LIMIT
        for _ in range(20):  # a healthy tool beside it keeps its own share
            assert healthy({})["output"] == {"fine": True}
            assert asyncio.run(healthy.acall({}))["output"] == {"fine": True}
    finally:
        release.set()
    for _ in range(500):  # once the stuck calls end, the tool gets its slots back
        if stuck.capacity.held == 0:
            break
        time.sleep(0.01)
    assert stuck.capacity.held == 0 and "never_returns" not in stuck_tools()


def test_a_full_process_pool_never_refuses_a_tool_holding_no_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    from contractgen.runtime import workers

    small = workers.ElasticPool(max_workers=4)
    monkeypatch.setattr(sys.modules["contractgen.runtime.stage_run"], "POOL", small)
    release = threading.Event()
    stuck = [guard(contract(f"stuck_{i}"), lambda a: release.wait(30) and {}) for i in range(4)]
    try:
        assert [tool({})["error"]["code"] for tool in stuck] == ["TIMEOUT"] * 4
        assert stuck[0]({})["error"]["code"] == "UNAVAILABLE"  # the pool is full for a busy tool
        healthy = guard(contract("healthy"), lambda a: {"fine": True})
        assert healthy({})["output"] == {"fine": True}  # but not for a tool that holds nothing
    finally:
        release.set()


@settings(max_examples=15, deadline=None)
@given(calls=st.integers(1, 12), limit=st.integers(1, 6))
def test_capacity_counts_exactly(calls: int, limit: int) -> None:
    from contractgen.runtime.capacity import Capacity

    capacity = Capacity("counted", limit)
    slots = [capacity.acquire() for _ in range(calls)]
    granted = [s for s in slots if s is not None]
    assert len(granted) == min(calls, limit) and capacity.held == len(granted)
    for slot in granted[::2]:
        slot.abandon()
    assert capacity.abandoned == len(granted[::2])
    for slot in granted:
        slot.release()
        slot.release()  # a second release (a done-callback racing a caller) changes nothing
    assert (capacity.held, capacity.abandoned) == (0, 0)


def test_a_thread_that_cannot_start_answers_internal_and_gives_its_slot_back(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The operating system refusing a thread (its limit reached) is the guard's failure: the call
    gets INTERNAL, and the tool's slot is not lost with it."""
    from contractgen.runtime.workers import POOL

    tool = guard(contract("no_threads", seconds=5), lambda a: {"fine": True})

    def refused(self: threading.Thread) -> None:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(POOL, "_idle", [])  # no idle worker: the call needs a new thread
    monkeypatch.setattr(threading.Thread, "start", refused)
    envelope = tool({})
    assert envelope["error"]["code"] == "INTERNAL", envelope
    assert tool.capacity.held == 0
    monkeypatch.undo()
    assert tool({})["output"] == {"fine": True}


HOSTILE_DEADLINES = (st.floats(allow_nan=True, allow_infinity=True) | st.integers(-(10 ** 400), 10 ** 400)
                     | st.sampled_from([0, -0.0, math.nan, math.inf, -math.inf, 1e300, True, False, "5",
                                        LONGEST_DEADLINE, LONGEST_DEADLINE + 1, 5e-324, 0.001]))


@settings(max_examples=60, deadline=None)
@given(seconds=HOSTILE_DEADLINES)
def test_a_deadline_is_usable_on_every_path_or_refused_when_the_contract_is_built(seconds: Any) -> None:
    """0, negative and NaN deadlines answered TIMEOUT to calls that ran to their end; 1e300 or inf
    answered INTERNAL to every sync call (a timer cannot wait that long)."""
    usable = seconds is None or (isinstance(seconds, (int, float)) and not isinstance(seconds, bool)
                                 and (0 < seconds <= LONGEST_DEADLINE or seconds == math.inf))
    try:
        timeout = Timeout(seconds)
    except (TypeError, ValueError) as exc:
        assert not usable and "timeout seconds" in str(exc)
        return
    assert usable
    quick = Contract(name="quick", version="1.0.0", summary="s", description="d",
                     input_schema={"type": "object"}, output_schema={"type": "object"}, timeout=timeout,
                     retry=RetryPolicy(failure_budget=None))

    async def answers(_: Any) -> Any:
        await asyncio.sleep(0)
        return {"done": True}
    for tool in (guard(quick, lambda a: {"done": True}), guard(quick, answers)):
        for envelope in (tool({}), asyncio.run(tool.acall({}))):
            if timeout.seconds is None or timeout.seconds >= 1:
                assert envelope["output"] == {"done": True}
            else:  # the author's very short deadline may pass: TIMEOUT, never a failure of the guard
                assert envelope["status"] == "ok" or envelope["error"]["code"] == "TIMEOUT"


# -- async code that blocks the event loop (time.sleep inside async def) --------------------------

HELD = 0.3  # the deadline of the loop-blocking tools below; each first call blocks for twice that


def holding(where: str, release: threading.Event, seconds: float,
            started: threading.Event | None = None) -> Any:
    """An async tool that blocks its thread (as time.sleep would) before or after an await, or a
    plain function returning such a coroutine; it sets ``started`` when it begins to block."""
    began = started or threading.Event()

    async def before(_: Any) -> Any:
        began.set()
        release.wait(seconds)
        await asyncio.sleep(0)
        return {"late": True}

    async def after(_: Any) -> Any:
        await asyncio.sleep(0)
        began.set()
        release.wait(seconds)
        return {"late": True}

    return {"before_await": before, "after_await": after, "returned_coroutine": lambda a: after(a)}[where]


@pytest.mark.parametrize("where", ["before_await", "after_await", "returned_coroutine"])
def test_an_async_tool_blocking_the_loop_times_out_then_runs_where_it_stalls_nobody(where: str) -> None:
    release = threading.Event()
    blocker = guard(contract("blocker", HELD), holding(where, release, 2 * HELD))
    healthy = guard(contract("healthy", None), lambda a: {"fine": True})

    async def first() -> dict[str, Any]:
        return await blocker.acall({})  # no timer can fire while it blocks: it still gets TIMEOUT
    assert asyncio.run(first())["error"]["code"] == "TIMEOUT"
    assert blocker.blocks_event_loop

    async def beside() -> tuple[dict[str, Any], dict[str, Any]]:
        stuck = asyncio.create_task(blocker.acall({}))
        await asyncio.to_thread(started.wait, 30)  # it is blocking now (a blocked loop stops here)
        answered = await asyncio.wait_for(healthy.acall({}), 30)  # the loop is free: it answers
        release.set()  # only now may the stuck call end (a blocked loop would never get here)
        return answered, await asyncio.wait_for(stuck, 30)

    started = threading.Event()
    blocker = guard(contract("blocker", HELD), holding(where, release, 60, started))
    blocker.blocks_event_loop = True  # what the first call found, for a tool blocking until released
    try:
        answered, stuck = asyncio.run(beside())
    finally:
        release.set()
    assert answered["output"] == {"fine": True}
    assert stuck["status"] == "ok" or stuck["error"]["code"] == "TIMEOUT"


def test_a_long_blocking_step_moves_the_tool_off_the_loop_before_its_deadline(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(sys.modules["contractgen.runtime.stage_run"], "BLOCKING_STEP", 0.05)
    release = threading.Event()
    blocker = guard(contract("slow_step", 30), holding("after_await", release, 0.2))
    with caplog.at_level(logging.ERROR, logger="contractgen.runtime"):
        envelope = asyncio.run(blocker.acall({}))
    assert envelope["output"] == {"late": True}  # within its deadline: its result stands
    assert blocker.blocks_event_loop
    assert any("slow_step" in r.getMessage() and "held the event loop" in r.getMessage()
               for r in caplog.records)
    assert asyncio.run(blocker.acall({}))["output"] == {"late": True}  # and it still works there


def test_tools_parking_threads_in_the_default_executor_do_not_starve_the_guards_own_work() -> None:
    """A stuck tool's asyncio.to_thread calls filled the loop's default executor; a healthy tool's
    big call (checked and explained off the loop) then waited behind them forever."""
    from concurrent.futures import ThreadPoolExecutor

    schema = {"type": "object", "properties": {"items": {"type": "array", "items": {"type": "integer"}}}}
    release = threading.Event()

    async def parks(_: Any) -> Any:
        await asyncio.to_thread(release.wait, 60)
        return {}
    hog = guard(Contract(name="hog", version="1.0.0", summary="s", description="d", input_schema=schema,
                         output_schema={"type": "object"}, timeout=Timeout(DEADLINE),
                         retry=RetryPolicy(failure_budget=None)), parks)
    healthy = guard(Contract(name="healthy", version="1.0.0", summary="s", description="d",
                             input_schema=schema, output_schema={"type": "object"}, timeout=Timeout(None)),
                    lambda a: {"n": len(a["items"])})

    async def main() -> tuple[dict[str, Any], dict[str, Any]]:
        executor = ThreadPoolExecutor(max_workers=2)
        asyncio.get_running_loop().set_default_executor(executor)
        try:
            assert [(await hog.acall({}))["error"]["code"] for _ in range(2)] == ["TIMEOUT"] * 2
            good = await asyncio.wait_for(healthy.acall({"items": list(range(5000))}), 30)
            bad = await asyncio.wait_for(healthy.acall({"items": ["x"] * 5000}), 30)
            return good, bad
        finally:
            release.set()
            executor.shutdown(wait=False)
    good, bad = asyncio.run(main())
    assert good["output"] == {"n": 5000}
    assert bad["error"]["code"] == "INVALID_ARGUMENT"


def test_an_anyio_cancel_scope_gets_its_own_cancellation_back_and_the_swallowed_work_is_counted() -> None:
    """The caller's cancellation was re-raised as a fresh CancelledError: anyio (the MCP SDK's
    runtime) tells its cancel scopes' cancellations by their message, took the fresh one for an
    outer cancellation, and the whole task (the MCP server) ended. The work left running held no
    slot either, so cancelled calls of a swallowing tool piled up without bound."""
    import anyio

    release = threading.Event()
    tool = guard(contract("swallower", seconds=30), misbehaving("swallow_and_wait", 1, release))
    caught: list[bool] = []

    async def main() -> dict[str, Any]:
        try:
            for _ in range(PER_TOOL_LIMIT):
                with anyio.move_on_after(0.02) as scope:
                    await tool.acall({})
                caught.append(scope.cancelled_caught)
            assert stuck_tools()["swallower"]["abandoned"] == PER_TOOL_LIMIT
            return await tool.acall({})  # its share is used up: refused at once
        finally:
            release.set()
    refused = anyio.run(main)
    assert caught == [True] * PER_TOOL_LIMIT
    assert refused["error"]["code"] == "UNAVAILABLE"


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_abandoned_work_that_fails_later_is_logged_once_under_its_ref(
        kind: str, caplog: pytest.LogCaptureFixture) -> None:
    """An abandoned task's late exception was logged a second time by asyncio ("Task exception was
    never retrieved", at ERROR, under no ref, with the exception's message)."""
    import gc

    gc.collect()  # what earlier tests left (a pending task of a closed loop) logs as it goes: not here
    caplog.clear()
    release = threading.Event()

    def late(_: Any) -> Any:
        release.wait(30)
        raise RuntimeError("secret-in-message")

    async def alate(_: Any) -> Any:
        while not release.is_set():
            try:
                await asyncio.sleep(0.01)
            except asyncio.CancelledError:
                continue
        raise RuntimeError("secret-in-message")
    tool = guard(contract("late"), late if kind == "sync" else alate)

    async def main() -> dict[str, Any]:
        envelope = await tool.acall({})
        release.set()
        while tool.capacity.held:  # the work ends now
            await asyncio.sleep(0.01)
        return envelope
    with caplog.at_level(logging.DEBUG):
        ref = asyncio.run(main())["error"]["ref"]
        gc.collect()  # when asyncio reports an exception nobody retrieved
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not [r for r in caplog.records if "secret-in-message" in r.getMessage()]
    about = [r.getMessage() for r in caplog.records if ref in r.getMessage() and r.name == "contractgen.runtime"]
    assert len(about) == 2 and "abandoned" in about[0] and "ended after its deadline (raised RuntimeError)" in about[1]


# What a tool gives back may run the tool's code again when the guard reads it: an exception's
# text, a typed error's message, partial results or upstream text, a mapping's items, a list's
# iteration, a model's serializer. Each of these waits here (at most HOSTILE_WAIT seconds, so a
# broken guard still answers and the test fails instead of hanging) while the deadline is DEADLINE.
HOSTILE_WAIT = 3.0


def hostile_outcomes(release: threading.Event, ran: threading.Event | None = None) -> dict[str, Any]:
    import pydantic

    from contractgen.runtime import ToolError

    def stall(*_: Any) -> Any:
        if ran is not None:
            ran.set()
        release.wait(HOSTILE_WAIT)

    class StallingText(str):
        def __str__(self) -> str:
            stall()
            return "text"

    class StallingError(Exception):
        def __str__(self) -> str:
            stall()
            return "boom"

    class StallingMapping(dict):  # type: ignore[type-arg]
        def items(self) -> Any:
            stall()
            return super().items()

        def __iter__(self) -> Any:
            stall()
            return super().__iter__()

    class StallingList(list):  # type: ignore[type-arg]
        def __iter__(self) -> Any:
            stall()
            return super().__iter__()

    class StallingModel(pydantic.BaseModel):
        x: int = 1

        @pydantic.model_serializer
        def dump(self) -> dict[str, Any]:
            stall()
            return {"x": 1}

    def raising(make: Any) -> Any:
        def tool(_: Any) -> Any:
            raise make()
        return tool

    return {
        "exception_text": raising(StallingError),
        "typed_error_message": raising(lambda: ToolError(StallingText("gone"), code="NOT_FOUND")),
        "partial_results": raising(lambda: ToolError("gone", code="NOT_FOUND",
                                                     partial_results=StallingMapping(done=1))),
        "upstream_text": raising(lambda: ToolError("down", code="UNAVAILABLE", upstream=StallingText("503"))),
        "result_mapping": lambda _: StallingMapping(a=1),
        "nested_mapping": lambda _: {"a": StallingMapping(b=1)},
        "nested_list": lambda _: {"a": StallingList([1])},
        "result_model": lambda _: StallingModel(),
    }


HOSTILE_KINDS = sorted(hostile_outcomes(threading.Event()))
#: What the guard reads through the base types (``jsonvalue.exact_json``, ``thaw``), so none of the
#: tool's own methods run: the envelope each gives at once. An exception's text and a model's
#: serializer are the tool's code by design: reading them is what the deadline must bound.
READ_WITHOUT_TOOL_CODE = {
    "typed_error_message": ("NOT_FOUND", "gone"),
    "partial_results": ("NOT_FOUND", '"done": 1'),
    "upstream_text": ("UNAVAILABLE", "503"),
    "result_mapping": ("ok", '"a": 1'),
    "nested_mapping": ("ok", '"b": 1'),
    "nested_list": ("ok", '"a": [1]'),
}


@pytest.mark.parametrize("shape", ["sync_call", "sync_acall", "async_acall", "async_call"])
@pytest.mark.parametrize("kind", HOSTILE_KINDS)
def test_the_deadline_holds_while_the_guard_reads_what_the_tool_gave(kind: str, shape: str) -> None:
    release, ran = threading.Event(), threading.Event()
    plain = hostile_outcomes(release, ran)[kind]
    if shape.startswith("async"):
        async def implementation(arguments: Any) -> Any:
            await asyncio.sleep(0)
            return plain(arguments)
    else:
        implementation = plain
    # what is read without the tool's code answers at once: a second of deadline leaves room for a
    # full garbage collection of the test process (88 ms seen), ``ran`` tells whether tool code ran
    tool = guard(contract(f"reads_{kind}", 1.0 if kind in READ_WITHOUT_TOOL_CODE else DEADLINE), implementation)
    healthy = guard(contract("healthy"), lambda a: {"fine": True})

    async def beside() -> tuple[dict[str, Any], dict[str, Any]]:
        # a healthy tool on the same event loop answers while the hostile outcome is read
        return await asyncio.gather(tool.acall({}), healthy.acall({}))  # type: ignore[return-value]
    try:
        if shape.endswith("acall"):
            envelope, other = asyncio.run(beside())
            assert other["status"] == "ok"
        else:
            envelope = tool({})
        if kind in READ_WITHOUT_TOOL_CODE:  # nothing of the tool ran: nothing to wait for
            outcome, shown = READ_WITHOUT_TOOL_CODE[kind]
            assert not ran.is_set(), "the guard ran the tool's own method"
            said = envelope["status"] if outcome == "ok" else envelope["error"]["code"]
            assert said == outcome, envelope
            assert shown in json.dumps(envelope), envelope
            return
        error = envelope["error"]
        assert error["code"] == "TIMEOUT", error  # not INTERNAL/ok once the reading let go
        assert len(error["ref"]) == 8  # the abandoned reading is logged under it
    finally:
        release.set()


def test_only_results_whose_reading_runs_no_tool_code_are_read_on_the_event_loop() -> None:
    """An async tool's model or plain JSON result is checked on the loop (no thread hop on the
    common path); anything whose reading may run its author's code goes to a worker thread."""
    import datetime
    import uuid

    import pydantic

    from contractgen.runtime.settle_safety import reads_plainly

    class Inner(pydantic.BaseModel):
        at: datetime.datetime
        tags: list[str] = []

    class Out(pydantic.BaseModel):
        model_config = pydantic.ConfigDict(extra="allow")
        id: uuid.UUID
        inner: Inner
        note: Any = None

    plain = Out(id=uuid.uuid4(), inner=Inner(at=datetime.datetime(2026, 1, 1)), note={"a": [1, 2.5, None]}, more=1)
    assert reads_plainly({"a": [1, "x", {"b": None}]}) and reads_plainly(plain)
    release = threading.Event()
    release.set()  # nothing here is read; the stalls never wait
    for kind, tool in hostile_outcomes(release).items():
        if kind.startswith(("result", "nested")):
            assert not reads_plainly(tool({})), kind
    assert not reads_plainly(Out(id=uuid.uuid4(), inner=Inner(at=datetime.datetime(2026, 1, 1)), note=object()))
    assert not reads_plainly({1: "non-string key"}) and not reads_plainly(type("S", (str,), {})("x"))
