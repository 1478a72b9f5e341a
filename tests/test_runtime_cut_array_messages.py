"""A big array is explained from its first members (``member_cap``): what ``uniqueItems`` and
``contains`` say of it is still specific. Two equal items past the cut are named by index (the call
used to get no explanation at all), and an array with no matching item among the examined ones says
so (it used to get "the arguments are not accepted by the schema")."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from contractgen.runtime import Contract, RetryPolicy, Timeout, guard

SCHEMA = {"type": "object", "properties": {
    "tags": {"type": "array", "uniqueItems": True},
    "ids": {"type": "array", "contains": {"const": 7}},
    "name": {"type": "string"}}}
TOOL = guard(Contract(name="cut", version="1.0.0", summary="s", description="d", input_schema=SCHEMA,
                      output_schema={"type": "object"}, timeout=Timeout(None),
                      retry=RetryPolicy(failure_budget=None)), lambda _: {})


def violations(arguments: dict[str, Any]) -> list[dict[str, Any]]:
    envelope = TOOL(arguments)
    assert envelope["status"] == "error" and envelope["error"]["code"] == "INVALID_ARGUMENT", envelope
    return envelope["error"].get("violations") or []


@settings(max_examples=30, deadline=None)
@given(size=st.integers(1100, 3000), data=st.data())
def test_two_equal_items_past_the_cut_are_named(size: int, data: st.DataObject) -> None:
    later = data.draw(st.integers(1001, size - 1))
    earlier = data.draw(st.integers(0, later - 1))
    items: list[Any] = list(range(size))
    items[later] = float(items[earlier])  # 3 and 3.0 are equal JSON values
    found = violations({"tags": items})
    assert [(v["field"], v["constraint"]) for v in found] == [("/tags", "uniqueItems")]
    assert f"items {earlier} and {later} are equal" in found[0]["message"]


def test_objects_equal_whatever_their_key_order_and_true_is_not_one() -> None:
    items: list[Any] = [{"n": i, "m": 0} for i in range(1500)]
    items.append({"m": 0, "n": 1200})
    found = violations({"tags": [True, *items]})
    assert "items 1201 and 1501 are equal" in found[0]["message"]


def test_no_matching_item_among_the_examined_ones_is_said() -> None:
    found = violations({"ids": [0] * 1500})
    assert [(v["field"], v["constraint"]) for v in found] == [("/ids", "contains")]
    assert "none of its first" in found[0]["message"] and "items matches" in found[0]["message"]


def test_a_match_past_the_cut_is_not_denied_when_something_else_explains_the_call() -> None:
    found = violations({"ids": [0] * 1500 + [7], "name": 5})
    assert [(v["field"], v["constraint"]) for v in found] == [("/name", "type")]
