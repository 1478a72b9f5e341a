"""Which keys of an embedded schema are checked as keywords: the walker's schema positions, the
positions of the errors, and that data (property names, defaults, enums ...) is never checked."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema_specifications  # type: ignore[import-untyped]
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from contractgen.diagnostics import Level
from contractgen.manifest.checks import check_file
from contractgen.manifest.parse import ParsedFile, parse_manifest_text
from contractgen.manifest.report import Reporter
from contractgen.manifest.schema_checks import check_embedded_schema
from contractgen.manifest.schema_keywords import (
    ASSERTION_KEYWORDS,
    GENERATOR_STEERING_KEYS,
    KEYWORDS_2020_12,
    extension_spelling_a_keyword,
    is_keyword,
)
from contractgen.manifest.schema_walk import subschemas

BUNDLED = Path(__file__).resolve().parents[1] / "contracts"
S = {"x-marker": True}  # a leaf schema; every place it appears must be walked


def test_every_applicator_position_is_a_schema_position() -> None:
    schema = {
        "properties": {"type": S, "a/b": S},
        "patternProperties": {"^x": S},
        "additionalProperties": S,
        "dependentSchemas": {"a": S},
        "propertyNames": S,
        "unevaluatedProperties": S,
        "items": S,
        "prefixItems": [S, S],
        "contains": S,
        "unevaluatedItems": S,
        "allOf": [S],
        "anyOf": [S],
        "oneOf": [S],
        "not": S,
        "if": S,
        "then": S,
        "else": S,
        "$defs": {"d": S},
        "definitions": {"d": S},
        "contentSchema": S,
    }
    assert {pointer for pointer, _ in subschemas(schema)} == {
        "",
        "/properties/type",
        "/properties/a~1b",
        "/patternProperties/^x",
        "/additionalProperties",
        "/dependentSchemas/a",
        "/propertyNames",
        "/unevaluatedProperties",
        "/items",
        "/prefixItems/0",
        "/prefixItems/1",
        "/contains",
        "/unevaluatedItems",
        "/allOf/0",
        "/anyOf/0",
        "/oneOf/0",
        "/not",
        "/if",
        "/then",
        "/else",
        "/$defs/d",
        "/definitions/d",
        "/contentSchema",
    }


def test_data_and_name_maps_are_not_schema_positions() -> None:
    schema = {
        "type": "object",
        "properties": {"p": {"type": "string"}},
        "default": {"type": "x", "properties": {"q": {}}},
        "examples": [{"items": {"bogus": 1}}],
        "const": {"allOf": [{"bogus": 1}]},
        "enum": [{"not": {"bogus": 1}}],
        "x-vendor": {"properties": {"q": {"bogus": 1}}},
        "required": ["p"],
    }
    # the walker yields the root and the one property schema; the `properties` map itself (whose
    # keys are names) and anything under data keywords or extensions is never a schema
    assert [pointer for pointer, _ in subschemas(schema)] == ["", "/properties/p"]


def _keyword_errors(schema: dict[str, Any], path: str = "t/1.0.0.json") -> list[str]:
    report = Reporter(ParsedFile(path))
    check_embedded_schema(report, "input", schema)
    return sorted(
        d.pointer
        for d in report.diagnostics
        if d.code in ("unknown-schema-keyword", "legacy-schema-keyword")
        and d.level is Level.ERROR
    )


json_data = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=12,
)


@settings(max_examples=60, deadline=None)
@given(
    names=st.lists(st.text(min_size=1, max_size=12), max_size=4, unique=True),
    data=json_data,
)
def test_property_names_and_data_are_never_keywords(names: list[str], data: Any) -> None:
    schema = {
        "type": "object",
        "properties": {name: {"description": "d"} for name in names},
        "default": data,
        "const": data,
        "enum": [data],
        "examples": [data],
    }
    assert _keyword_errors(schema) == []


def test_every_unknown_key_in_a_schema_position_is_reported_once() -> None:
    nested = {"type": "string", "bogus": 1}
    schema = {
        "type": "object",
        "bogus": 1,
        "nullable": True,
        "maxLenght": 3,
        "x-fine": 1,
        "definitions": {"d": nested},
        "properties": {"bogus": nested},
        "items": nested,
        "allOf": [nested],
        "dependencies": {"bogus": ["a"]},
    }
    assert _keyword_errors(schema) == [
        "/input/allOf/0/bogus",
        "/input/bogus",
        "/input/definitions/d/bogus",
        "/input/dependencies",
        "/input/items/bogus",
        "/input/maxLenght",
        "/input/nullable",
        "/input/properties/bogus/bogus",
    ]


def test_keyword_table_is_the_2020_12_vocabularies() -> None:
    # the 2020-12 meta-schema's vocabulary meta-schemas declare exactly these keywords
    declared: set[str] = set()
    for uri, resource in jsonschema_specifications.REGISTRY.items():
        if "/draft/2020-12/meta/" in uri:
            declared.update(resource.contents.get("properties", {}))
    assert declared == KEYWORDS_2020_12
    assert is_keyword("x-anything") and not is_keyword("x-nullable")
    assert is_keyword("definitions") and not is_keyword("dependencies")
    assert not is_keyword("x-python-type") and not is_keyword("customTypePath")


def test_annotations_by_convention_are_not_errors() -> None:
    schema = {
        "type": "object",
        "x-owner": "orders",
        "markdownDescription": "**Look up** an order",
        "properties": {"a": {"type": "string", "example": "x", "deprecationMessage": "old"}},
    }
    report = Reporter(ParsedFile("t/1.0.0.json"))
    check_embedded_schema(report, "input", schema)
    assert [(d.pointer, d.level, d.code) for d in report.diagnostics] == [
        ("/input/properties/a/example", Level.WARNING, "foreign-annotation")
    ]


MANIFEST = """\
name: refund_payment
version: 1.0.0
summary: Refund a payment.
description: Refunds a payment.
input:
  type: object
  properties:
    note: {type: string, description: Free text, shown to staff.}
output:
  type: object
  properties:
    amount_cents:
      {type: integer, minimum: 1, description: Amount refunded, in cents.}
"""


def test_error_sits_at_the_key_and_names_the_split_value() -> None:
    item = parse_manifest_text("refund_payment/1.0.0.yaml", MANIFEST.encode())
    warnings = [d for d in check_file(item) if d.code == "unknown-schema-keyword"]
    lines = MANIFEST.splitlines()
    # where the stray key's text starts in the source, found by plain text search
    assert [(d.pointer, d.line, d.column) for d in warnings] == [
        ("/input/properties/note/shown to staff.", 8, lines[7].index("shown") + 1),
        ("/output/properties/amount_cents/in cents.", 13, lines[12].index("in cents") + 1),
    ]
    for d in warnings:
        assert d.hint is not None and "flow mapping" in d.hint and "'description'" in d.hint


def test_json_null_gets_no_yaml_hint() -> None:
    manifest = {
        "name": "t",
        "version": "1.0.0",
        "summary": "s",
        "description": "d",
        "input": {"type": "object", "properties": {"a": {"type": "string", "optional": None}}},
        "output": {"type": "object"},
    }
    item = parse_manifest_text("t/1.0.0.json", json.dumps(manifest, indent=1).encode())
    (warning,) = [d for d in check_file(item) if d.code == "unknown-schema-keyword"]
    assert warning.pointer == "/input/properties/a/optional"
    assert warning.hint is not None and "YAML" not in warning.hint


#: a refusing value for each assertion keyword of 2020-12 (alone on a node, each refuses something);
#: ``enum``, ``const`` and ``not`` judge every kind of value, so beside a ``type`` they can only repeat
#: part of it (``{type: integer, not: {type: string}}``), which weakens nothing
ASSERTING = {
    "minLength": 2, "maxLength": 1, "pattern": "^a", "format": "date",
    "minimum": 1, "maximum": 0, "exclusiveMinimum": 1, "exclusiveMaximum": 0, "multipleOf": 2,
    "minItems": 2, "maxItems": 0, "uniqueItems": True, "contains": {"const": 1}, "minContains": 2,
    "maxContains": 0, "items": {"type": "string"}, "prefixItems": [{"type": "string"}],
    "required": ["x"], "properties": {"x": {"type": "string"}}, "additionalProperties": False,
    "patternProperties": {"^y": {"type": "string"}}, "minProperties": 2, "maxProperties": 0,
    "dependentRequired": {"x": ["z"]}, "dependentSchemas": {"x": {"required": ["z"]}},
    "propertyNames": {"maxLength": 1}, "if": {"minLength": 1}, "then": {"maxLength": 3}, "else": {"const": 0},
    "unevaluatedProperties": False, "unevaluatedItems": False,
}
NODE_TYPES = [None, "string", "integer", "number", "object", "array", "boolean", "null", ["string", "null"],
              ["array", "object"]]
#: values that tell the keywords above apart from their absence wherever they can judge anything
PROBES = [None, True, False, 0, 1, 2, -1, 1.5, 3, "", "a", "ab", "abcd", "2026-01-01", "b", "not a date",
          [], [1], [1, 1], [1, 2], ["a"], ["a", 1], [1, "a", 1], {}, {"x": "s"}, {"x": 1}, {"x": "s", "z": 1},
          {"y": 1}, {"y": "s"}, {"ab": 1}, {"z": 1}, {"x": "s", "y": "t"}, {"a": 1, "b": 2}]


def test_a_keyword_that_can_change_no_verdict_is_an_error_at_its_key() -> None:
    """A constraint the guard never applies is refused wherever it stands: ``minContains`` or
    ``maxContains`` without ``contains``, ``then``/``else`` without ``if``, ``if`` without either, or a
    2020-12 ``format`` beside a ``type`` without strings passed check with no word, and the guard
    accepted what the author wrote it refuses. Every assertion keyword alone on a node of every
    type: where no probe value gets another verdict without it, check reports an error at its key."""
    from contractgen.prover.instances import verdict

    silent = []
    for keyword, value in ASSERTING.items():
        for kind in NODE_TYPES:
            node: dict[str, Any] = {keyword: value} if kind is None else {keyword: value, "type": kind}
            without = {k: v for k, v in node.items() if k != keyword}
            schemas = [{"type": "object", "properties": {"v": n}} for n in (node, without)]
            if any(verdict(schemas[0], {"v": p}) != verdict(schemas[1], {"v": p}) for p in PROBES):
                continue  # the keyword judges something here
            report = Reporter(ParsedFile("t/1.0.0.json"))
            check_embedded_schema(report, "input", {"type": "object", "properties": {"v": {**node, "description": "d"}}})
            if not any(d.level is Level.ERROR and d.pointer == f"/input/properties/v/{keyword}"
                       for d in report.diagnostics):
                silent.append(json.dumps(node))
    assert not silent, "constraints the guard never applies, with no error:\n" + "\n".join(silent)


@settings(max_examples=60, deadline=None)
@given(declared=st.lists(st.sampled_from("abcd"), min_size=1, max_size=3, unique=True),
       triggers=st.dictionaries(st.sampled_from("abcde"), st.lists(st.sampled_from("abcde"), max_size=2, unique=True),
                                min_size=1, max_size=2),
       keyword=st.sampled_from(["dependentRequired", "dependentSchemas"]))
def test_a_dependency_on_a_name_a_closed_object_never_holds_is_an_error(
        declared: list[str], triggers: dict[str, list[str]], keyword: str) -> None:
    """On an object with ``additionalProperties: false``, ``dependentRequired: {zz: [a]}`` (or a
    ``dependentSchemas`` entry) triggered by an undeclared name never applies, and ``{a: [zz]}`` refuses
    every value holding ``a``; both passed check silently, unlike the same name under ``required``.
    Each listed name that is not a property is an error at its place, and each such place really
    changes what the schema means: dropping the entry changes no verdict (a trigger) or the object
    can hold its trigger only without the dependency (a required name)."""
    from contractgen.prover.instances import verdict

    dependencies: dict[str, Any] = (triggers if keyword == "dependentRequired"
                                    else {k: {"required": v} for k, v in triggers.items()})
    node = {"type": "object", "additionalProperties": False,
            "properties": {name: {"type": "integer", "description": "d"} for name in declared},
            keyword: dependencies}
    report = Reporter(ParsedFile("t/1.0.0.json"))
    check_embedded_schema(report, "input", node)
    errors = {d.pointer for d in report.diagnostics if d.code == "required-not-declared" and d.level is Level.ERROR}
    expected = {f"/input/{keyword}/{k}" for k in triggers if k not in declared}
    if keyword == "dependentRequired":
        expected |= {f"/input/{keyword}/{k}/{i}" for k, names in triggers.items() for i, n in enumerate(names)
                     if n not in declared}
    assert errors == expected
    for trigger in triggers:
        if trigger not in declared:  # never sent: the entry changes no verdict
            rest = {**node, keyword: {k: v for k, v in dependencies.items() if k != trigger}}
            for value in ({}, {n: 1 for n in declared}, {trigger: 1}, {n: 1 for n in "abcde"}):
                assert verdict(node, value) == verdict(rest, value)


#: places that hold data, not schemas, with a pointer to the object planted there
DATA_PLACES = {
    "an x- extension": ({"x-lib": {"s": {}}}, "/x-lib/s"),
    "a default": ({"$defs": {"e": {"default": {}}}}, "/$defs/e/default"),
    "an example": ({"$defs": {"e": {"examples": [{}]}}}, "/$defs/e/examples/0"),
    "an enum value": ({"$defs": {"e": {"enum": [{}]}}}, "/$defs/e/enum/0"),
    "a const": ({"$defs": {"e": {"const": {}}}}, "/$defs/e/const"),
    "a map of names": ({"$defs": {"e": {"properties": {}}}}, "/$defs/e/properties"),
}


def _ref_diagnostics(schema: dict[str, Any]) -> list[Any]:
    report = Reporter(ParsedFile("t/1.0.0.json"))
    check_embedded_schema(report, "input", schema)
    return [d for d in report.diagnostics if d.code == "ref-into-data"]


@pytest.mark.parametrize("place", sorted(DATA_PLACES))
def test_a_ref_into_data_is_an_error_at_the_ref(place: str) -> None:
    """``$ref: '#/x-lib/s'`` (or into a default, an example, an enum value, a const or a map of names)
    is followed by validators as a schema, while check's keyword checks and the model generator read
    that place as data: ``{maxLenght: 2}`` there passed check silently and the guard checked nothing
    (``{minimun: 3}`` behind a ``default`` the same). The reference is now an error."""
    extra, pointer = DATA_PLACES[place]
    schema = json.loads(json.dumps(extra))
    node: Any = schema
    for token in pointer.split("/")[1:-1]:
        node = node[int(token)] if isinstance(node, list) else node[token]
    last = pointer.rsplit("/", 1)[1]
    planted = {"type": "string", "maxLenght": 2}
    if isinstance(node, list):
        node[int(last)] = planted
    else:
        node[last] = planted if last != "properties" else {"k": planted}
    schema.update({"type": "object", "properties": {"a": {"$ref": "#" + pointer, "description": "d"}}})
    found = _ref_diagnostics(schema)
    assert [(d.pointer, d.level) for d in found] == [("/input/properties/a/$ref", Level.ERROR)], found


def test_a_ref_to_any_schema_position_is_not_refused() -> None:
    """Every schema object of the bundled contracts, the keyword test's nested schema and the
    definitions of the corpus can be the target of a $ref (only data is refused)."""
    schemas = [yaml.safe_load(path.read_text("utf-8"))["input"] for path in sorted(BUNDLED.glob("*/*.yaml"))]
    schemas.append({"type": "object", "$defs": {"a/b": {"items": [{}]}, "c": {"prefixItems": [{"not": {}}]}},
                    "definitions": {"d": {"dependentSchemas": {"x": {"if": {}, "then": {}}}}},
                    "properties": {"p": {"additionalProperties": {"contentSchema": {}}}}})
    checked = 0
    for schema in schemas:
        for pointer, _ in subschemas(schema):
            with_ref = {**schema, "$defs": {**schema.get("$defs", {}), "zz_ref": {"$ref": "#" + pointer}}}
            assert _ref_diagnostics(with_ref) == [], pointer
            checked += 1
    assert checked > 50


@pytest.mark.parametrize("keyword", sorted(ASSERTION_KEYWORDS))
def test_an_extension_spelling_a_keyword_is_an_error(keyword: str) -> None:
    """``x-maxLength: 3`` or ``x-required: true`` passed check as a vendor extension, and the guard
    checked no length and required nothing: no validator reads an ``x-`` key. Every keyword that
    judges a value, spelled as an extension in any case or with ``-``/``_`` between its words, is an
    error at its key naming the keyword; other extensions stay accepted."""
    words = re.sub(r"(?<!^)([A-Z])", r"-\1", keyword)
    for key in (f"x-{keyword}", f"x-{keyword.lower()}", f"x-{words.lower()}", f"x-{words.replace('-', '_')}"):
        report = Reporter(ParsedFile("t/1.0.0.json"))
        check_embedded_schema(report, "input", {"type": "object", "properties": {"a": {key: 1, "description": "d"}}})
        found = [d for d in report.diagnostics if d.pointer == f"/input/properties/a/{key}"]
        if key in GENERATOR_STEERING_KEYS:  # x-propertyNames: refused as what it does to the generator
            assert [(d.code, d.level) for d in found] == [("generator-steering-key", Level.ERROR)], key
            continue
        assert [(d.code, d.level) for d in found] == [("unknown-schema-keyword", Level.ERROR)], key
        assert repr(keyword) in found[0].message
    for key in ("x-widget", "x-examples", "x-order", "x-units", "x-description", "x-sensitive"):
        assert extension_spelling_a_keyword(key) is None
