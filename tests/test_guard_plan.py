"""The plan compiled per tool (``runtime/plan.py``): a stage the contract does not ask for is not in
the source a call runs, the source follows the tool's options when they change, and one source is
compiled once. (What the plan answers, against the reference semantics: test_guard_reference.py.)"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import replace
from typing import Any

import pydantic
import pytest

from contractgen.runtime import (
    Contract,
    GuardedTool,
    RetryPolicy,
    Timeout,
    ToolError,
    guard,
)
from contractgen.runtime.hooks import CallHooks

CLOSED = {"type": "object", "additionalProperties": False, "required": ["q"],
          "properties": {"q": {"type": "string"}}}
OPEN = {**CLOSED, "additionalProperties": True}
OUTPUT = {"type": "object", "properties": {"hits": {"type": "array", "items": {"type": "string"}}}}


class Query(pydantic.BaseModel):
    q: str


def _contract(schema: dict[str, Any] = CLOSED, timeout: float | None = None) -> Contract:
    return Contract(name="probe", version="1.0.0", summary="s", description="d", input_schema=schema,
                    output_schema=OUTPUT, timeout=Timeout(seconds=timeout), retry=RetryPolicy(failure_budget=2))


def _sync(args: Any) -> Any:
    return {"hits": ["a"]}


async def _async(args: Any) -> Any:
    return {"hits": ["a"]}


def _functions(source: str) -> dict[str, str]:
    """The plan's source cut into its four functions, by name."""
    parts: dict[str, str] = {}
    name = ""
    for line in source.splitlines():
        stripped = line.strip()
        if line.startswith("    ") and not line.startswith("     ") and stripped.split(" ")[0] in ("def", "async"):
            name = stripped.split("(")[0].split(" ")[-1]
        if name:
            parts[name] = parts.get(name, "") + line + "\n"
    return parts


def test_the_plainest_tool_runs_only_its_copy_checks_call_and_envelope() -> None:
    tool = guard(_contract(), _sync)
    call = _functions(tool.plan_source)["call"]
    for absent in ("_build_input", "gate(", "old_keys", "open_names", "names_within", "_run_sync", "stage("):
        assert absent not in call, absent
    for present in ("in_valid(own)", "implementation(value)", "out_valid(result)", "'status': 'ok'", "counts"):
        assert present in call, present
    assert tool({"q": "x"}) == {"status": "ok", "tool": "probe", "version": "1.0.0", "output": {"hits": ["a"]},
                                "empty": False}


def test_each_stage_the_contract_asks_for_is_in_its_source() -> None:
    modelled = _functions(guard(_contract(), _sync, input_model=Query).plan_source)["call"]
    assert "tool._build_input(own)" in modelled
    open_call = _functions(guard(_contract(OPEN), _sync).plan_source)["call"]
    assert "open_names.issuperset(own)" in open_call and "names_within(own, plain_names" in open_call
    timed = _functions(guard(_contract(timeout=5), _sync).plan_source)
    # handed to a worker thread, the call in progress set first (the worker's settle reads its secrets)
    lines = [line.strip() for line in timed["call"].splitlines()]
    handed = lines.index("result = tool._handed(value)")
    assert lines[handed - 2:handed] == ["if token is None:", "token = call_set((tool, own))"]
    assert "implementation(value)" not in timed["call"]
    awaited = _functions(guard(_contract(), _async).plan_source)
    assert "await implementation(value)" in awaited["acall"]
    assert "await tool._run_async(value)" in _functions(guard(_contract(timeout=5), _async).plan_source)["acall"]


def test_hooks_see_the_stages_and_the_plain_call_does_not_pay_for_them() -> None:
    parts = _functions(guard(_contract(), _sync).plan_source)
    assert "stage('input', 'passed')" in parts["checked"] and "stage(" not in parts["call"]


def test_the_source_follows_observers_and_hooks_set_later() -> None:
    tool = guard(_contract(), _sync)
    seen: list[Any] = []
    tool.on_call = seen.append
    assert "observed = True" in tool.plan_source
    assert tool({"q": "x"})["status"] == "ok" and [r.code for r in seen] == ["OK"]
    tool.on_call = None
    assert "observed = True" not in tool.plan_source
    tool({"q": "x"})
    assert len(seen) == 1
    tool.hooks = CallHooks()
    assert tool({"q": 1})["error"]["code"] == "INVALID_ARGUMENT"
    assert asyncio.run(tool.acall({"q": "x"}))["status"] == "ok"


def test_one_source_is_compiled_once() -> None:
    first, second = guard(_contract(), _sync), guard(replace(_contract(), name="other"), _sync)
    assert first.plan_source == second.plan_source
    assert type(first).__call__.__code__ is type(second).__call__.__code__
    assert first({"q": "x"})["tool"] == "probe" and second({"q": "x"})["tool"] == "other"


SECRET = "hunter2-correct-horse"
SECRET_INPUT = {"type": "object", "additionalProperties": False, "required": ["password"],
                "properties": {"password": {"type": "string"}}}


def test_a_failure_after_a_nested_call_still_hides_the_outer_calls_secret() -> None:
    """The call in progress is set only when a call leaves the common line: a guarded tool called
    inside another's implementation must not leave the outer call's failure scrubbed by its own."""
    inner = guard(_contract(), _sync)

    def outer_impl(args: Any) -> Any:
        assert inner({"q": "x"})["status"] == "ok"  # the inner call takes its common line
        raise ToolError(f"no account for {args['password']}", code="NOT_FOUND")

    outer = guard(replace(_contract(SECRET_INPUT), name="outer"), outer_impl)
    envelope = outer({"password": SECRET})
    assert envelope["error"]["code"] == "NOT_FOUND" and SECRET not in json.dumps(envelope), envelope

    async def outer_async(args: Any) -> Any:
        assert (await inner.acall({"q": "x"}))["status"] == "ok"
        raise ToolError(f"no account for {args['password']}", code="NOT_FOUND")

    awaited = outer.with_implementation(outer_async)
    envelope = asyncio.run(awaited.acall({"password": SECRET}))
    assert envelope["error"]["code"] == "NOT_FOUND" and SECRET not in json.dumps(envelope), envelope


def test_a_tool_is_still_of_the_class_it_was_made_as() -> None:
    tool = guard(_contract(), _sync)
    assert type(tool) is GuardedTool  # compiled on its first call
    tool({"q": "x"})
    assert isinstance(tool, GuardedTool) and type(tool).__name__ == "GuardedTool"
    assert type(tool).__mro__[1] is GuardedTool and type(tool) is not GuardedTool
    other = tool.with_implementation(_sync)
    other({"q": "x"})
    assert type(other).__mro__[1] is GuardedTool  # made as GuardedTool, not as the class of a plan
    assert repr(tool) == "<GuardedTool probe 1.0.0>"


def test_a_traceback_through_a_plan_shows_its_lines(caplog: pytest.LogCaptureFixture) -> None:
    def broken(args: Any) -> Any:
        raise RuntimeError("boom")

    with caplog.at_level(logging.ERROR, logger="contractgen.runtime"):
        assert guard(_contract(), broken)({"q": "x"})["error"]["code"] == "INTERNAL"
    logged = "\n".join(r.exc_text or "" for r in caplog.records)
    assert "<contractgen plan " in logged and "result = implementation(value)" in logged, logged
