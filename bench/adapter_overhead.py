"""An adapter's tool path against its framework's native one, measured in the same run.

Run: .venv/bin/python bench/adapter_overhead.py [--quick]

Both rows call the nested tool of ``bench/guard_realistic.py`` (``nested_case()``: 8 properties, a
nested object, an enum, patterns, bounds and a date) with the same argument values, get the same
offers back, and print microseconds per call (best of interleaved rounds) and adapter / native next
to the issue's target (<= 1.25). Nothing here asserts a time.

* FastMCP: ``await tool.run(arguments)`` of a native ``FastMCP`` tool (``Tool.from_function`` over a
  function whose one parameter ``search`` is the tool's pydantic model, so its arguments arrive as
  ``{"search": ...}`` and FastMCP validates them with that model) against ``await
  tool.run(arguments)`` of the adapter's ``GuardedFastMCPTool`` for the same contract (the guard's
  input and output checks, the envelope, the budget), outside a request, as a test or a direct
  ``call_tool`` runs it.
* pydantic-ai: one tool call through pydantic-ai's own ``ToolManager`` as an agent run makes it
  (``validate_tool_call`` then ``execute_tool_call`` on a ``ToolCallPart`` of the arguments, with a
  ``RunContext`` of the run), outside a model request. Native: ``Tool(search_flights)`` over an
  ``async def search_flights(search: Search)``, the tool a pydantic-ai user writes: a single
  ``BaseModel`` parameter whose fields are the tool's arguments, so pydantic-ai validates them with
  that model (``Tool.from_schema`` validates nothing: a native tool that checks nothing is no
  baseline for a guard). Adapter: ``pydantic_ai_tool`` over the guarded tool of the same contract,
  whose envelope is the tool's return value. Both functions are async (a sync one would add a worker
  thread to either side). Where the adapter's time goes, measured in the same rounds: the
  framework's path (the same call to a ``Tool.from_schema`` tool that checks nothing and returns the
  offers), the guard's ``acall`` alone with what the adapter passes it, and what is left: the
  adapter's own.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from guard_realistic import NESTED_RESULT, Case, nested_case

from contractgen.runtime import guard

Calls = dict[str, Callable[[], Awaitable[Any]]]


async def best_of_rounds(calls: Calls, number: int, rounds: int) -> dict[str, float]:
    """Microseconds per call of each entry, best of ``rounds`` rounds that take turns."""
    readings: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(rounds):
        for name, call in calls.items():
            start = time.perf_counter()
            for _ in range(number):
                await call()
            readings[name].append((time.perf_counter() - start) / number * 1e6)
    return {name: min(values) for name, values in readings.items()}


async def guarded_impl(_: Any) -> dict[str, Any]:
    return NESTED_RESULT


async def fastmcp_calls(case: Case) -> Calls:
    from fastmcp.tools import Tool

    from contractgen.adapters.fastmcp import fastmcp_tool

    def search_flights(search: Any) -> dict[str, Any]:
        return NESTED_RESULT

    # FastMCP reads the annotations
    search_flights.__annotations__ = {"search": case.input_model, "return": dict[str, Any]}

    native = Tool.from_function(search_flights)
    adapted = fastmcp_tool(guard(case.contract, guarded_impl, input_model=case.input_model))
    native_arguments = {"search": case.arguments}
    assert (await adapted.run(dict(case.arguments))).structured_content == NESTED_RESULT
    assert (await native.run(dict(native_arguments))).structured_content == NESTED_RESULT
    return {
        "native": lambda: native.run(dict(native_arguments)),
        "adapter": lambda: adapted.run(dict(case.arguments)),
    }


async def pydantic_ai_calls(case: Case) -> Calls:
    from pydantic_ai import RunContext, Tool
    from pydantic_ai.messages import ToolCallPart
    from pydantic_ai.models.test import TestModel
    from pydantic_ai.tool_manager import ToolManager
    from pydantic_ai.toolsets import FunctionToolset
    from pydantic_ai.usage import RunUsage

    from contractgen.adapters.pydantic_ai import pydantic_ai_tool

    async def search_flights(search: Any) -> dict[str, Any]:
        return NESTED_RESULT

    # pydantic-ai reads the annotations
    search_flights.__annotations__ = {"search": case.input_model, "return": dict[str, Any]}

    async def manager(tool: Tool[Any]) -> ToolManager[Any]:
        run = RunContext(deps=None, model=TestModel(), usage=RunUsage(), conversation_id="conv-1")
        return await ToolManager(FunctionToolset([tool])).for_run_step(run)

    async def checks_nothing(ctx: RunContext[Any], **arguments: Any) -> dict[str, Any]:
        return NESTED_RESULT

    guarded = guard(case.contract, guarded_impl, input_model=case.input_model)
    native = await manager(Tool(search_flights))
    adapted = await manager(pydantic_ai_tool(guarded))
    schema = dict(case.contract.input_schema)
    bare = await manager(
        Tool.from_schema(checks_nothing, "search_flights", "d", schema, takes_ctx=True)
    )

    async def call(tools: ToolManager[Any]) -> Any:
        part = ToolCallPart("search_flights", dict(case.arguments), tool_call_id="call-1")
        return await tools.execute_tool_call(await tools.validate_tool_call(part))

    def guard_alone() -> Awaitable[Any]:  # what the adapter asks of the guard, outside pydantic-ai
        return guarded.acall(
            dict(case.arguments),
            session="conversation:conv-1",
            call_id="call-1",
            caller="session=conv-1",
        )

    assert (await call(adapted))["output"] == NESTED_RESULT
    assert await call(native) == NESTED_RESULT
    assert (await guard_alone())["output"] == await call(bare) == NESTED_RESULT
    return {
        "native": lambda: call(native),
        "adapter": lambda: call(adapted),
        "framework": lambda: call(bare),
        "guard": guard_alone,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    options = parser.parse_args()
    number, rounds = (300, 3) if options.quick else (1000, 11)
    case = nested_case()
    rows = (("FastMCP tool.run", fastmcp_calls), ("pydantic-ai ToolManager", pydantic_ai_calls))
    for label, calls_for in rows:
        # each row's tools are made and called in one event loop
        figures = asyncio.run(_measure(calls_for, case, number, rounds))
        print(
            f"{label}, nested tool: native {figures['native']:.1f} us, adapter {figures['adapter']:.1f} us, "
            f"adapter/native {figures['adapter'] / figures['native']:.2f} (target <= 1.25)"
        )
        if "framework" in figures:
            own = figures["adapter"] - figures["framework"] - figures["guard"]
            print(
                f"  of which: the framework's path {figures['framework']:.1f} us, "
                f"the guard's acall {figures['guard']:.1f} us, the adapter's own {own:.1f} us"
            )


async def _measure(
    calls_for: Callable[[Case], Awaitable[Calls]], case: Case, number: int, rounds: int
) -> dict[str, float]:
    return await best_of_rounds(await calls_for(case), number, rounds)


if __name__ == "__main__":
    main()
