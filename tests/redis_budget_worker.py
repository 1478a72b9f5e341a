"""One worker process of the shared-budget test: 250 concurrent failing calls for one session on
Redis, then (once every worker's calls are counted) one more call, which must find the budget spent.

Usage: python redis_budget_worker.py URL MODE(sync|async) CALLS TOTAL; prints JSON.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from contractgen.runtime import Contract, RetryPolicy, ToolError, guard
from contractgen.runtime.budget import budget_key
from contractgen.runtime.stores.redis import RedisBudgetStore, RedisState


def main() -> None:
    url, mode, calls, total = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    contract = Contract(name="flaky", version="1.0.0", summary="s", description="d",
                        input_schema={"type": "object"}, output_schema={"type": "object"},
                        retry=RetryPolicy(failure_budget=total))
    store = RedisBudgetStore(RedisState(url, max_connections=20, timeout=10))

    def fail(_: Any) -> Any:
        raise ToolError("the upstream is down", code="UNAVAILABLE")

    async def afail(_: Any) -> Any:
        await asyncio.sleep(0)
        raise ToolError("the upstream is down", code="UNAVAILABLE")

    if mode == "async":
        tool = guard(contract, afail, state=store)

        async def burst() -> list[dict[str, Any]]:
            return await asyncio.gather(*(tool.acall({}, session="s1") for _ in range(calls)))
        envelopes = asyncio.run(burst())
    else:
        tool = guard(contract, fail, state=store)
        with ThreadPoolExecutor(max_workers=calls) as pool:
            envelopes = list(pool.map(lambda _: tool({}, session="s1"), range(calls)))
    deadline = time.monotonic() + 60
    while store.failures(budget_key("flaky", "s1")) < total and time.monotonic() < deadline:
        time.sleep(0.02)
    after = asyncio.run(tool.acall({}, session="s1")) if mode == "async" else tool({}, session="s1")
    print(json.dumps({"counts": [e["error"]["budget"]["consecutive_failures"] for e in envelopes],
                      "actions": [e["error"]["action"] for e in envelopes],
                      "after": after["error"]}))


if __name__ == "__main__":
    main()
