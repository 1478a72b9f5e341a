"""check reports a subschema that contradicts itself (crossed bounds, an empty enum, listed values its
own keywords refuse), and every "no value passes" it reports is true: the reference validator refuses
every value tried there. Golden case: tests/cases/check/unsatisfiable-schemas."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from contractgen.diagnostics import Level
from contractgen.manifest.parse import ParsedFile
from contractgen.manifest.report import Reporter
from contractgen.manifest.satisfiable import check_satisfiable
from contractgen.runtime import reference_validator

PAIRS = [("minLength", "maxLength"), ("minItems", "maxItems"), ("minProperties", "maxProperties"),
         ("minimum", "maximum"), ("exclusiveMinimum", "maximum"), ("minimum", "exclusiveMaximum"),
         ("exclusiveMinimum", "exclusiveMaximum")]
TYPES = st.none() | st.sampled_from(["string", "array", "object", "number", "integer", "boolean"]) \
    | st.lists(st.sampled_from(["string", "array", "object", "number", "integer", "null"]), min_size=1,
               max_size=3, unique=True)
VALUES = st.recursive(st.none() | st.booleans() | st.integers(-3, 12) | st.floats(-3, 12) | st.text(max_size=12),
                      lambda inner: st.lists(inner, max_size=12) | st.dictionaries(st.text(max_size=3), inner,
                                                                                    max_size=12),
                      max_leaves=30)


def findings(node: dict[str, Any]) -> list[Any]:
    report = Reporter(ParsedFile("t/1.0.0.json"))
    check_satisfiable(report, "/input/properties/x", node)
    return report.diagnostics


@settings(max_examples=400, deadline=None)
@given(pair=st.sampled_from(PAIRS), low=st.integers(0, 10), high=st.integers(0, 10), types=TYPES,
       enum=st.none() | st.lists(st.integers(0, 10) | st.text(max_size=3), max_size=3), data=st.data())
def test_no_value_passes_where_check_says_so(pair: tuple[str, str], low: int, high: int, types: Any,
                                             enum: list[Any] | None, data: st.DataObject) -> None:
    node: dict[str, Any] = {pair[0]: low, pair[1]: high}
    if types is not None:
        node["type"] = types
    if enum is not None:
        node["enum"] = enum
    found = findings(node)
    strict = pair[0].startswith("exclusive") or pair[1].startswith("exclusive")
    crossed = low > high or (strict and low == high)
    assert any(d.pointer.endswith(f"/{pair[0]}") for d in found) == crossed
    refused_everything = any(d.level is Level.ERROR and "no value passes" in d.message for d in found)
    if refused_everything:
        # values to try are drawn only here: where check refuses nothing they would prove nothing, and
        # drawing them for every example was most of this test's time
        values = data.draw(st.lists(VALUES, max_size=20), label="values")
        check = reference_validator.validator(node, formats=False)
        for value in values + (enum or []):
            assert not check.is_valid(value), (node, value)


def test_a_contradiction_under_not_or_if_is_not_reported_but_a_property_named_not_is() -> None:
    crossed = {"minLength": 5, "maxLength": 1, "type": "string"}
    for place in ("/input/properties/x/not", "/input/if", "/input/properties/a/not/properties/b"):
        report = Reporter(ParsedFile("t/1.0.0.json"))
        check_satisfiable(report, place, crossed)
        assert not report.diagnostics, place
    report = Reporter(ParsedFile("t/1.0.0.json"))
    check_satisfiable(report, "/input/properties/not", crossed)
    assert [d.code for d in report.diagnostics] == ["unsatisfiable-schema"]


def test_listed_values_are_judged_by_the_nodes_own_keywords_only() -> None:
    assert not findings({"type": "string", "enum": ["a", "b"], "maxLength": 1})
    refused = findings({"type": "string", "enum": ["a", "bb"], "maxLength": 1})
    assert [(d.pointer, d.level) for d in refused] == [("/input/properties/x/enum/1", Level.ERROR)]
    assert "offers the model a value it cannot send" in refused[0].message
    # a reference or an applicator beside the list is not read: no verdict rests on what it may say
    assert not findings({"$ref": "#/$defs/other", "enum": [1, "a"]})
    assert not findings({"anyOf": [{"type": "string"}], "enum": [1]})


def test_hostile_nodes_give_diagnostics_never_a_crash() -> None:
    """Bounds past float range are number_checks' error; values the reference validator cannot judge
    (a lone surrogate, a 5,000-digit integer, an invalid pattern) give no verdict here."""
    for node in ({"type": "integer", "minimum": 10**5000, "maximum": 1}, {"type": "integer", "enum": [10**5000], "maximum": 5},
                 {"type": "string", "enum": ["\ud800"], "pattern": "^a"}, {"type": "string", "pattern": "[", "enum": ["x"]},
                 {"minimum": True, "maximum": False}):
        assert not findings(node), node
    assert len(findings({"type": "object", "required": ["a"], "enum": [{}] * 500})) == 10  # at most ten listed
