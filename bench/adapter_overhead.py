"""An adapter's tool path against its framework's native one, measured in the same run.

Run: .venv/bin/python bench/adapter_overhead.py [--quick]

FastMCP: ``await tool.run(arguments)`` of a native ``FastMCP`` tool (``Tool.from_function`` over a
function taking the nested tool's arguments, FastMCP validating them with its own pydantic model)
against ``await tool.run(arguments)`` of the adapter's ``GuardedFastMCPTool`` for the same contract
(the guard's input and output checks, the envelope, the budget), outside a request, as a test or a
direct ``call_tool`` runs it. Both return the same offers. Microseconds per call, best of interleaved
rounds; the issue's target is adapter / native <= 1.25. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from guard_realistic import NESTED_RESULT, nested_case

from contractgen.runtime import guard


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    options = parser.parse_args()
    number, rounds = (300, 3) if options.quick else (2000, 5)

    from fastmcp.tools import Tool

    from contractgen.adapters.fastmcp import fastmcp_tool

    case = nested_case()
    model = case.input_model

    def search_flights(search: Any) -> dict[str, Any]:
        return NESTED_RESULT

    search_flights.__annotations__ = {"search": model, "return": dict[str, Any]}  # FastMCP reads them

    async def guarded_impl(_: Any) -> dict[str, Any]:
        return NESTED_RESULT

    native = Tool.from_function(search_flights)
    adapted = fastmcp_tool(guard(case.contract, guarded_impl, input_model=model))
    native_arguments = {"search": case.arguments}

    async def measure() -> dict[str, float]:
        assert (await adapted.run(dict(case.arguments))).structured_content is not None
        await native.run(dict(native_arguments))
        readings: dict[str, list[float]] = {"native": [], "adapter": []}
        for _ in range(rounds):
            for name, tool, arguments in (("native", native, native_arguments),
                                          ("adapter", adapted, case.arguments)):
                start = time.perf_counter()
                for _ in range(number):
                    await tool.run(dict(arguments))
                readings[name].append((time.perf_counter() - start) / number * 1e6)
        return {name: min(values) for name, values in readings.items()}

    figures = asyncio.run(measure())
    print(f"FastMCP tool.run, nested tool: native {figures['native']:.1f} us, adapter {figures['adapter']:.1f} us, "
          f"adapter/native {figures['adapter'] / figures['native']:.2f} (target <= 1.25)")


if __name__ == "__main__":
    main()
