"""Issue 35, items 4 and 6: what the guard reads is bounded by a budget of members (a member shared by
many containers is not read 2**28 times), and the arguments it checks are the arguments it uses.

Item 6: a dict subclass whose ``items()``, ``__getitem__`` and ``__iter__`` disagree passed the schema
check with one content and built the model from another; a thread mutating the caller's dict during
the call made the guard raise "dictionary keys changed during iteration". The guard now checks,
builds and answers from one private copy (``stage_arguments._private_copy``).

Item 4: a result ``{"x": v}`` with ``v = [1]`` wrapped 28 times as ``[v, v]`` (28 lists, 2**28 paths)
held the process for seconds past a 1 s deadline, in the C reader and in its Python twin alike.
"""

from __future__ import annotations

import asyncio
import itertools
import sys
import threading
import time
from typing import Any

import pydantic
import pytest

from contractgen.runtime import Contract, RetryPolicy, Timeout, guard, jsonvalue

SCHEMA = {"type": "object", "additionalProperties": False, "required": ["amount"],
          "properties": {"amount": {"type": "integer", "maximum": 500}, "note": {"type": "string"}}}
ANY_OUTPUT = {"type": "object"}


def contract(seconds: float | None = None) -> Contract:
    return Contract(name="refund", version="1.0.0", summary="s", description="d", input_schema=SCHEMA,
                    output_schema=ANY_OUTPUT, timeout=Timeout(seconds=seconds), retry=RetryPolicy(failure_budget=3))


class Refund(pydantic.BaseModel):
    amount: int
    note: str | None = None


class Lying(dict):  # type: ignore[type-arg]
    """Shows a small amount to whoever iterates it, and a large one to whoever looks a key up."""

    def items(self) -> Any:
        return iter([("amount", 5)])

    def __iter__(self) -> Any:
        return iter(["amount"])

    def keys(self) -> Any:
        return ["amount"]

    def __getitem__(self, key: str) -> Any:
        return 90_000

    def get(self, key: str, default: Any = None) -> Any:
        return 90_000


@pytest.mark.parametrize("model", [None, Refund], ids=["dict", "model"])
@pytest.mark.parametrize("how", ["call", "acall"])
def test_a_lying_dict_is_used_as_it_was_checked(model: Any, how: str) -> None:
    used: list[int] = []

    def refund(args: Any) -> dict[str, Any]:
        used.append(args["amount"] if isinstance(args, dict) else args.amount)
        return {}

    tool = guard(contract(), refund, input_model=model)
    arguments = Lying(amount=5)  # stored: 5; looked up: 90,000
    envelope = asyncio.run(tool.acall(arguments)) if how == "acall" else tool(arguments)
    # whatever it was judged as, the implementation gets exactly that: never a refused amount
    if envelope["status"] == "ok":
        assert used and all(amount <= 500 for amount in used), used
    else:
        assert envelope["error"]["code"] == "INVALID_ARGUMENT" and used == []


def test_a_thread_changing_the_arguments_never_breaks_or_bends_a_call() -> None:
    """The caller's dict flips between a valid call and an invalid one with 200 extra names
    (emptied in between: its size changes under any reader), with threads switched every 10 us so
    flips land inside calls: no call raises or answers INTERNAL, and each that runs, runs on the
    valid call exactly."""
    seen: list[dict[str, Any]] = []

    def refund(args: Any) -> dict[str, Any]:
        seen.append(dict(args))
        return {}

    tool = guard(contract(), refund)
    valid = {"amount": 5, "note": "n"}
    crowded = {"amount": 90_000, **{f"k{i}": i for i in range(200)}}
    arguments: dict[str, Any] = dict(valid)
    stop = threading.Event()

    def churn() -> None:
        n = 0
        while not stop.is_set():
            arguments.clear()
            arguments.update(crowded if n % 2 else valid)
            n += 1
            time.sleep(0.0001)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    worker = threading.Thread(target=churn)
    worker.start()
    try:
        envelopes = [tool(arguments) for _ in range(3000)]
    finally:
        stop.set()
        worker.join()
        sys.setswitchinterval(interval)
    assert all(e["status"] in ("ok", "error") for e in envelopes)
    assert all(e["error"]["code"] == "INVALID_ARGUMENT" for e in envelopes if e["status"] == "error"), \
        [e["error"]["code"] for e in envelopes if e["status"] == "error" and e["error"]["code"] != "INVALID_ARGUMENT"][:3]
    assert seen and all(call == valid for call in seen), [c for c in seen if c != valid][:1]


def _shared(levels: int) -> Any:
    value: Any = [1]
    for _ in range(levels):
        value = [value, value]
    return value


@pytest.mark.parametrize("reader", ["c", "python"])
def test_a_result_of_shared_members_is_refused_within_the_deadline_with_other_threads_running(
        reader: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if reader == "c" and jsonvalue._clean_json_c is None:
        pytest.skip("the C reader was not compiled here")
    if reader == "python":
        for module in ("contractgen.runtime.stage_arguments", "contractgen.runtime.stage_settle",
                       "contractgen.runtime.jsonvalue"):
            monkeypatch.setattr(f"{module}.clean_json", jsonvalue._clean_json_python, raising=False)
    result = {"x": _shared(32)}  # 2**32 paths: read per path, hours
    tool = guard(contract(seconds=1.0), lambda args: result)
    ticks: list[float] = []
    stop = threading.Event()

    def ticker() -> None:
        while not stop.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.01)

    other = threading.Thread(target=ticker)
    other.start()
    try:
        start = time.monotonic()
        envelope = tool({"amount": 5})
        took = time.monotonic() - start
    finally:
        stop.set()
        other.join()
    # refused as an invalid result, or answered TIMEOUT at the deadline (the slower Python reader on a
    # loaded machine): never ok, never past the deadline by the walk's length
    assert envelope["status"] == "error" and envelope["error"]["code"] in ("INTERNAL", "TIMEOUT"), envelope
    # bounded by the member budget, not by 2**32 paths; a generous bound for a loaded machine
    assert took < 5.0, took
    gaps = [b - a for a, b in itertools.pairwise(ticks)]
    assert ticks and max(gaps, default=0) < 2.5, max(gaps, default=0)


def test_arguments_of_shared_members_are_refused_as_too_many_values() -> None:
    tool = guard(contract(), lambda args: {})
    envelope = tool({"amount": 5, "note": _shared(32)})
    assert envelope["error"]["code"] == "INVALID_ARGUMENT"
    assert "more than" in envelope["error"]["message"] or any(
        "more than" in v["message"] for v in envelope["error"].get("violations", ())), envelope
