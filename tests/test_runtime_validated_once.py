"""A call is validated whole once, whichever path the guard takes for it.

Validating a big call is the guard's largest single cost on a heavy schema (a ``contains`` over a
50-branch ``anyOf`` reads every item against every branch), so it must not be paid twice. The real
jsonschema-rs validator is wrapped to count the calls that read the whole value; the explanation of
a bad call reads only a shortened copy (``DETAIL_MEMBERS``), which is not counted.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contractgen.runtime import Contract, Timeout, guard
from contractgen.runtime.guard import compiled_for

ITEMS = 3_000  # more than any explanation reads in detail


class CountingValidator:
    """The real validator, counting its whole-value reads (``is_valid``, ``iter_errors``, ``evaluate``)."""

    def __init__(self, real: Any) -> None:
        self.real = real
        self.whole_reads = 0

    def _read(self, value: Any) -> None:
        items = value.get("items") if isinstance(value, dict) else None
        if isinstance(items, list) and len(items) >= ITEMS:
            self.whole_reads += 1

    def is_valid(self, value: Any) -> bool:
        self._read(value)
        return bool(self.real.is_valid(value))

    def iter_errors(self, value: Any) -> Any:
        self._read(value)
        return self.real.iter_errors(value)

    def evaluate(self, value: Any) -> Any:
        self._read(value)
        return self.real.evaluate(value)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


def _schema(shape: str) -> dict[str, Any]:
    branches = [{"type": "object", "required": [f"k{i}"], "properties": {f"k{i}": {"const": i}}} for i in range(50)]
    items: dict[str, Any] = {"type": "array"}
    if shape == "contains-anyOf":
        items["contains"] = {"anyOf": branches}
    elif shape == "items-anyOf":
        items["items"] = {"anyOf": branches}
    else:
        items["items"] = {"type": "object", "properties": {"x": {"type": "integer", "maximum": 10}}}
    return {"type": "object", "properties": {"items": items}}


def _counted_tool(shape: str, path: str) -> tuple[Any, CountingValidator]:
    contract = Contract(name="t", version="1.0.0", summary="s", description="d", input_schema=_schema(shape),
                        output_schema={"type": "object"},
                        timeout=Timeout(5 if path in ("deadline", "async") else None))
    check = compiled_for(contract).input
    counting = CountingValidator(check._rs)
    check._rs = counting
    check.bare_is_valid = counting.is_valid

    async def asynchronous(args: Any) -> Any:
        return {}
    implementation = asynchronous if path == "async" else (lambda args: {})
    options: dict[str, Any] = {"on_call": lambda record: None} if path == "observed" else {}
    return guard(contract, implementation, **options), counting


@settings(max_examples=12, deadline=None)
@given(shape=st.sampled_from(["contains-anyOf", "items-anyOf", "items-maximum"]),
       path=st.sampled_from(["inline", "observed", "deadline", "async"]))
def test_a_bad_call_is_validated_whole_once(shape: str, path: str) -> None:
    """The inline path (a sync tool without a deadline, unobserved) asked the validator, then handed
    a refused call to the full path, which asked it again: a contains over a 50-branch anyOf on
    300,000 objects took 1.3 s, two thirds of it validating the same call twice."""
    tool, counting = _counted_tool(shape, path)
    call = {"items": [{"x": 11 + i} for i in range(ITEMS)]}
    envelope = asyncio.run(tool.acall(call)) if path == "async" else tool(call)
    assert envelope["status"] == "error" and envelope["error"]["code"] == "INVALID_ARGUMENT", envelope
    assert counting.whole_reads == 1, (shape, path, counting.whole_reads)


@pytest.mark.parametrize("path", ["inline", "observed", "deadline", "async"])
def test_a_good_call_is_validated_whole_once(path: str) -> None:
    tool, counting = _counted_tool("items-maximum", path)
    call = {"items": [{"x": 1} for _ in range(ITEMS)]}
    envelope = asyncio.run(tool.acall(call)) if path == "async" else tool(call)
    assert envelope["status"] == "ok", envelope
    assert counting.whole_reads == 1, (path, counting.whole_reads)
