"""Per-call cost of the guard against its baselines, measured in one run on the same arguments.

Run: .venv/bin/python bench/guard_overhead.py  (add --quick for a fast smoke run)
Prints microseconds per call (CPU and wall time, best of interleaved rounds) and the ratios the runtime issue targets:
guarded happy path / pydantic model_validate <= 1.5, bad-argument path < 20 us (both for a mistake
repeated, whose explanation is kept, for a new mistake of four problems on every call, and for one
new wrong value on every call).
"""

from __future__ import annotations

import asyncio
import os
import platform
import sys
import time
import timeit
from collections.abc import Callable
from importlib import metadata
from typing import Any, Literal

import jsonschema
import pydantic

from contractgen.runtime import Contract, RetryPolicy, Timeout, guard, jsonvalue, schema_check
from contractgen.runtime.schema_check import _rs

SCHEMA = {
    "type": "object", "additionalProperties": False, "required": ["query", "limit"],
    "properties": {
        "query": {"type": "string", "minLength": 1, "maxLength": 200, "description": "Words to find."},
        "limit": {"type": "integer", "minimum": 1, "maximum": 100},
        "order": {"enum": ["newest", "oldest", "relevance"]},
        "include_archived": {"type": "boolean"},
    },
}
OUTPUT = {"type": "object", "required": ["hits"], "additionalProperties": False,
          "properties": {"hits": {"type": "array", "items": {"type": "string"}}}}
GOOD = {"query": "quarterly budget", "limit": 10, "order": "newest", "include_archived": False}
BAD = {"qeury": "quarterly budget", "limit": "10", "order": "random", "include_archived": False}


class Query(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")
    query: str = pydantic.Field(min_length=1, max_length=200)
    limit: int = pydantic.Field(ge=1, le=100)
    order: Literal["newest", "oldest", "relevance"] | None = None
    include_archived: bool | None = None


def contract(seconds: float | None) -> Contract:
    return Contract(name="search", version="1.0.0", summary="s", description="d", input_schema=SCHEMA,
                    output_schema=OUTPUT, timeout=Timeout(seconds=seconds),
                    retry=RetryPolicy(failure_budget=3))


def trivial(q: Any) -> dict[str, Any]:
    return {"hits": []}


async def atrivial(q: Any) -> dict[str, Any]:
    return {"hits": []}


def per_call_us(fn: Callable[[], Any], number: int, repeat: int,
                timer: Callable[[], float] = time.perf_counter) -> float:
    return min(timeit.repeat(fn, number=number, repeat=repeat, timer=timer)) / number * 1e6


def main() -> None:
    quick = "--quick" in sys.argv
    n, r = (2_000, 3) if quick else (20_000, 7)
    validator = jsonschema.Draft202012Validator(SCHEMA)
    inline = guard(contract(None), trivial, input_model=Query)
    threaded = guard(contract(10.0), trivial, input_model=Query)
    asynchronous = guard(contract(10.0), atrivial, input_model=Query)
    assert inline(GOOD)["status"] == "ok" and inline(BAD)["error"]["code"] == "INVALID_ARGUMENT"
    # the same guard without the `fast` extra: the reference jsonschema package does the checks
    saved, schema_check._rs = schema_check._rs, None
    try:
        pure = guard(contract(None), trivial, input_model=Query)
    finally:
        schema_check._rs = saved
    assert pure._compiled.input.backend == "jsonschema" and pure(BAD)["status"] == "error"
    assert Query.model_validate(GOOD) and not list(validator.iter_errors(GOOD))

    loop = asyncio.new_event_loop()

    def async_batch() -> None:  # 100 awaited calls per loop entry, so the loop start-up is amortised
        async def many() -> None:
            for _ in range(100):
                await asynchronous.acall(GOOD)
        loop.run_until_complete(many())

    # a different mistake on every call (a new unknown key, wrong value and enum miss): nothing
    # explained before can be reused, as for the first bad call a model makes
    fresh = iter([{f"qeury{i}": "quarterly budget", "limit": str(i), "order": f"random{i}",
                   "include_archived": False} for i in range((n // 10) * (2 * r + 1))])  # CPU and wall rounds
    # the commonest first mistake: one argument of the wrong type, with a value never sent before
    typo = iter([{"query": "quarterly budget", "limit": str(i)} for i in range((n // 10) * (2 * r + 1))])
    cases: list[tuple[str, Callable[[], Any], int, int]] = [  # name, fn, number, calls per fn()
        ("bare call of the implementation", lambda: trivial(GOOD), n, 1),
        ("pydantic Model.model_validate", lambda: Query.model_validate(GOOD), n, 1),
        ("jsonschema Draft202012Validator.iter_errors", lambda: list(validator.iter_errors(GOOD)), n // 10, 1),
    ]
    if _rs is not None:
        fast = _rs.validator_for(SCHEMA)
        cases.append(("jsonschema-rs is_valid", lambda: fast.is_valid(GOOD), n, 1))
    cases += [
        ("guarded call, happy path (no deadline, in-thread)", lambda: inline(GOOD), n, 1),
        ("guarded call, bad arguments", lambda: inline(BAD), n // 10, 1),
        ("guarded call, bad arguments, a new mistake each call", lambda: inline(next(fresh)), n // 10, 1),
        ("guarded call, one new wrong value each call", lambda: inline(next(typo)), n // 10, 1),
        ("guarded call, happy path, sync with deadline (worker thread)", lambda: threaded(GOOD), n // 10, 1),
        ("guarded acall, happy path, async with deadline", async_batch, max(n // 1000, 2), 100),
        ("without jsonschema-rs: guarded call, happy path", lambda: pure(GOOD), n // 10, 1),
        ("without jsonschema-rs: guarded call, bad arguments", lambda: pure(BAD), n // 20, 1),
    ]
    # rounds interleave the cases, so a burst of load from other processes hits all of them alike;
    # each case keeps its best round
    cpu = {name: float("inf") for name, *_ in cases}
    wall = dict(cpu)
    for _ in range(r):
        for name, fn, number, calls in cases:
            cpu[name] = min(cpu[name], per_call_us(fn, number, 1, time.process_time) / calls)
            wall[name] = min(wall[name], per_call_us(fn, number, 1) / calls)
    rows = [(name, cpu[name]) for name, *_ in cases]
    loop.close()
    values = dict(rows)
    width = max(len(name) for name, _ in rows)
    print(f"python {platform.python_version()}, pydantic {pydantic.VERSION}, "
          f"jsonschema {metadata.version('jsonschema')}, fast path: "
          f"{'jsonschema-rs ' + metadata.version('jsonschema-rs') if _rs is not None else 'jsonschema (no jsonschema-rs)'}"
          f", exact-type reading: {'C' if jsonvalue._plain_json_c is not None else 'Python (the C module was not built)'}"
          f", load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'per call (best round)':<{width}}  {'CPU us':>8}  {'wall us':>8}")
    for name, value in rows:
        print(f"{name:<{width}}  {value:8.2f}  {wall[name]:8.2f}")
    base = values["pydantic Model.model_validate"]
    print()
    print("ratios use CPU time (time.process_time, all threads), which other processes on a shared")
    print("machine disturb far less than wall time; the worker-thread row's wall time adds the thread switches")
    print(f"guarded happy (in-thread) / model_validate: {values['guarded call, happy path (no deadline, in-thread)'] / base:.2f}x  (target <= 1.5x)")
    print(f"guarded async happy / model_validate:       {values['guarded acall, happy path, async with deadline'] / base:.2f}x")
    print(f"bad-argument path: {values['guarded call, bad arguments']:.1f} us the same mistake again, "
          f"{values['guarded call, bad arguments, a new mistake each call']:.1f} us a new one (four problems), "
          f"{values['guarded call, one new wrong value each call']:.1f} us one new wrong value  (target < 20 us)")


if __name__ == "__main__":
    main()
