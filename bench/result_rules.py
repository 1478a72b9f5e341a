"""What result rules and the deprecation notice cost per call, against the same tool without them,
measured in one run on the same arguments and result.

Run: .venv/bin/python bench/result_rules.py  (add --quick for a fast smoke run)
Prints microseconds per call (best of interleaved rounds) and ratios:
- the generated retrieve_chunks with its two rules / the same contract without rules, for 1 and 20
  chunks (the rules hash each chunk's text and parse its timestamp);
- a deprecated version (the notice step, no fast path) / the same contract not deprecated, on a
  tool without a deadline (the one the fast path serves).
"""

from __future__ import annotations

import dataclasses
import hashlib
import sys
import timeit
from datetime import UTC, datetime
from typing import Any

from contractgen.runtime import Deprecation, GuardedTool, Timeout, guard
from generated import retrieve_chunks_v1

QUICK = "--quick" in sys.argv
ROUNDS, NUMBER = (3, 200) if QUICK else (7, 2000)
CALL = {"question": "What is the travel allowance for Paris?"}


def chunks(count: int) -> dict[str, Any]:
    now = datetime.now(UTC).isoformat(timespec="seconds")
    text = "Paris: the daily allowance covers a hotel, meals and local transport. " * 8
    return {
        "chunks": [
            {
                "source_id": f"doc-{i}",
                "content": text,
                "content_hash": hashlib.sha256(text.encode()).hexdigest(),
                "fetch_timestamp": now,
            }
            for i in range(count)
        ]
    }


def best(tools: dict[str, GuardedTool[Any, Any, Any]]) -> dict[str, float]:
    """Microseconds per call of each tool, best of ROUNDS interleaved rounds."""
    times: dict[str, list[float]] = {name: [] for name in tools}
    for _ in range(ROUNDS):
        for name, tool in tools.items():
            times[name].append(timeit.timeit(lambda t=tool: t(CALL), number=NUMBER) / NUMBER * 1e6)
    return {name: min(values) for name, values in times.items()}


def main() -> None:
    contract = dataclasses.replace(retrieve_chunks_v1.CONTRACT, timeout=Timeout(seconds=None))
    plain = dataclasses.replace(contract, result_rules=())
    for count in (1, 20):
        result = chunks(count)
        tools = {
            "rules": guard(contract, lambda a, r=result: r),
            "no rules": guard(plain, lambda a, r=result: r),
        }
        assert all(t(CALL)["status"] == "ok" for t in tools.values())
        us = best(tools)
        print(
            f"{count:>2} chunks: with rules {us['rules']:7.1f} us, without {us['no rules']:7.1f} us, "
            f"ratio {us['rules'] / us['no rules']:.2f}"
        )
    bare = dataclasses.replace(plain, empty_result=None)
    deprecated = dataclasses.replace(
        bare, deprecation=Deprecation(replacement="retrieve_chunks 2.0.0")
    )
    result = chunks(1)
    tools = {
        "deprecated": guard(deprecated, lambda a: result),
        "current": guard(bare, lambda a: result),
    }
    us = best(tools)
    print(
        f"deprecated: {us['deprecated']:7.1f} us, not deprecated {us['current']:7.1f} us (fast path), "
        f"ratio {us['deprecated'] / us['current']:.2f}"
    )


if __name__ == "__main__":
    main()
