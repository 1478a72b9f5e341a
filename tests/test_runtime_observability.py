"""One CallRecord per call, through logging and the on_call hook: enough to count errors per code."""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from typing import Any

import pytest

from contractgen.runtime import (
    CallRecord,
    CallStats,
    Contract,
    RetryPolicy,
    Timeout,
    ToolError,
    guard,
)

C = Contract(name="obs", version="2.1.0", summary="s", description="d",
             input_schema={"type": "object", "properties": {"mode": {"enum": ["ok", "down", "crash"]}}},
             output_schema={"type": "object"}, timeout=Timeout(None), retry=RetryPolicy(failure_budget=5))


def impl(args: dict[str, Any]) -> Any:
    if args.get("mode") == "down":
        raise ToolError(code="UNAVAILABLE")
    if args.get("mode") == "crash":
        raise RuntimeError("bug")
    return {}


def test_records_via_hook_and_logging(caplog: pytest.LogCaptureFixture) -> None:
    records: list[CallRecord] = []
    tool = guard(C, impl, on_call=records.append)
    with caplog.at_level(logging.DEBUG, logger="contractgen.runtime.calls"):
        for mode in ("ok", "down", "down", "crash", "wrong", "ok"):
            tool({"mode": mode}, session="s")
        asyncio.run(tool.acall({"mode": "ok"}))
    assert [r.code for r in records] == ["OK", "UNAVAILABLE", "UNAVAILABLE", "INTERNAL",
                                         "INVALID_ARGUMENT", "OK", "OK"]
    assert all(r.tool == "obs" and r.version == "2.1.0" and r.duration >= 0 for r in records)
    assert records[2].budget_failures == 2 and records[2].budget_limit == 5
    assert records[3].ref is not None and records[0].ref is None
    assert records[-1].session == "default" and records[0].session == "s"
    logged = [r.call for r in caplog.records if r.name == "contractgen.runtime.calls"]  # type: ignore[attr-defined]
    assert logged == records
    assert Counter(r.code for r in logged)["UNAVAILABLE"] == 2
    assert records[3].ref in caplog.text


def test_failing_hook_does_not_break_the_call() -> None:
    def hook(record: CallRecord) -> None:
        raise RuntimeError("observer bug")
    assert guard(C, impl, on_call=hook)({"mode": "ok"})["status"] == "ok"


def test_call_stats_counts_per_tool_and_code() -> None:
    stats = CallStats()
    tool = guard(C, impl, on_call=stats)
    for mode in ("ok", "down", "ok", "crash", "down"):
        tool({"mode": mode})
    assert stats.by_code("obs") == {"OK": 2, "UNAVAILABLE": 2, "INTERNAL": 1}
    assert stats.counts[("obs", "2.1.0", "OK")] == 2
    assert stats.error_rate("obs") == 0.6 and stats.error_rate("other") == 0.0
