"""check refuses names an object can never hold where the schema still counts on them: a branch of a
closed object that requires a name the object refuses (an if/then, anyOf/oneOf branch, dependentSchemas
entry, $ref or allOf part: branch-never-holds), and a declared property no call can send because
``propertyNames`` refuses its name or a ``patternProperties`` schema matching it admits none of its
values (property-never-accepted). Every report is checked against the reference validator: no value
passes where check says so. Golden case: tests/cases/check/dead-names."""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from contractgen.diagnostics import Level
from contractgen.manifest.parse import ParsedFile
from contractgen.manifest.report import Reporter
from contractgen.manifest.schema_checks import check_embedded_schema
from contractgen.runtime import reference_validator
from contractgen.runtime.pointer import resolve_pointer

PROBES: list[Any] = [None, True, 0, 1, -1, 1.5, "", "a", "2026-01-01", [], [1], {}, {"k": 1}]


def _errors(schema: dict[str, Any], code: str) -> set[str]:
    report = Reporter(ParsedFile("t/1.0.0.json"))
    check_embedded_schema(report, "input", schema)
    assert not [d for d in report.diagnostics if d.code == "internal-check-failure"], report.diagnostics
    return {d.pointer for d in report.diagnostics if d.code == code and d.level is Level.ERROR}


def _placed(place: str, names: list[str], declared: list[str]) -> tuple[dict[str, Any], str]:
    """Keywords holding ``required: names`` in a branch of the object at ``place``, and the pointer
    (below the object) of that ``required``."""
    first = declared[0]
    branch = {"required": names}
    return {
        "allOf": ({"allOf": [branch]}, "/allOf/0"),
        "anyOf": ({"anyOf": [branch, {"required": [first]}]}, "/anyOf/0"),
        "oneOf": ({"oneOf": [{"required": [first]}, branch]}, "/oneOf/1"),
        "then": ({"if": {"required": [first]}, "then": branch}, "/then"),
        "else": ({"if": {"required": [first]}, "else": branch}, "/else"),
        "if": ({"if": branch, "then": {"maxProperties": 1}}, "/if"),
        "dependentSchemas": ({"dependentSchemas": {first: branch}}, f"/dependentSchemas/{first}"),
        "$ref": ({"$defs": {"part": branch}, "allOf": [{"$ref": "#/$defs/part"}]}, "/$defs/part"),
        "anyOf in then": ({"if": {"required": [first]}, "then": {"anyOf": [branch, {}]}}, "/then/anyOf/0"),
    }[place]


@settings(max_examples=150, deadline=None)
@given(closer=st.sampled_from(["additionalProperties", "unevaluatedProperties"]),
       declared=st.lists(st.sampled_from("abc"), min_size=1, max_size=3, unique=True),
       names=st.lists(st.sampled_from("abcz"), min_size=1, max_size=2, unique=True),
       place=st.sampled_from(["allOf", "anyOf", "oneOf", "then", "else", "if", "dependentSchemas", "$ref",
                              "anyOf in then"]))
def test_a_branch_requiring_a_name_the_closed_object_refuses_is_an_error(
        closer: str, declared: list[str], names: list[str], place: str) -> None:
    """Each name a branch requires that the closed object never holds is an error at its place, and
    the branch there really never holds: no object the closed object accepts passes it."""
    keywords, where = _placed(place, names, declared)
    schema = {"type": "object", closer: False,
              "properties": {n: {"type": "integer", "description": "d"} for n in declared}, **keywords}
    expected = {f"/input{where}/required/{i}" for i, n in enumerate(names) if n not in declared}
    assert _errors(schema, "branch-never-holds") == expected
    if expected:
        branch = resolve_pointer(schema, where)
        check = reference_validator.validator(schema, formats=False).evolve(schema=branch)
        for size in range(len(declared) + 1):
            for held in itertools.combinations(declared, size):
                assert not check.is_valid(dict.fromkeys(held, 1)), (schema, held)


def test_a_name_a_branch_declares_is_not_reported_twice_or_where_unevaluated_sees_it() -> None:
    """A name declared in a branch is closed-object-hides-member's under additionalProperties: false,
    and accepted under unevaluatedProperties: false; a branch under `not` takes nothing away."""
    then = {"properties": {"z": {"type": "integer"}}, "required": ["z"]}
    for closer in ("additionalProperties", "unevaluatedProperties"):
        schema = {"type": "object", closer: False, "properties": {"a": {"type": "integer", "description": "d"}},
                  "if": {"required": ["a"]}, "then": then, "not": {"required": ["zz"]}}
        assert _errors(schema, "branch-never-holds") == set()


def test_a_closed_object_whose_branch_evaluates_every_name_is_not_judged() -> None:
    schema = {"type": "object", "unevaluatedProperties": False, "properties": {"a": {"type": "integer"}},
              "allOf": [{"additionalProperties": True}, {"required": ["zz"]}]}
    assert _errors(schema, "branch-never-holds") == set()
    assert reference_validator.validator(schema, formats=False).is_valid({"zz": 1})


def test_unevaluated_properties_false_closes_a_plain_object_like_additional_properties() -> None:
    """With nothing beside it that could evaluate a name, `unevaluatedProperties: false` refuses every
    undeclared name: a required one is an error (it was a warning, as on an open object)."""
    schema = {"type": "object", "unevaluatedProperties": False, "required": ["zz"],
              "properties": {"a": {"type": "integer", "description": "d"}}}
    assert _errors(schema, "required-not-declared") == {"/input/required/0"}
    assert _errors({**schema, "unevaluatedProperties": True}, "required-not-declared") == set()


NAMES = st.text("abcAB-_1", min_size=1, max_size=6)
RULES = st.sampled_from([{"pattern": "^[a-z_]+$"}, {"maxLength": 3}, {"minLength": 2}, False,
                         {"$ref": "#/$defs/name"}, {"enum": ["a", "ab"]}])


@settings(max_examples=150, deadline=None)
@given(declared=st.lists(NAMES, min_size=1, max_size=3, unique=True), rule=RULES, required=st.booleans())
def test_a_property_property_names_refuses_is_an_error(declared: list[str], rule: Any, required: bool) -> None:
    """Exactly the declared properties whose name `propertyNames` refuses are reported, and no call
    holding one passes."""
    schema: dict[str, Any] = {"type": "object", "propertyNames": rule, "$defs": {"name": {"maxLength": 2}},
                              "properties": {n: {"description": "d"} for n in declared}}
    if required:
        schema["required"] = declared[:1]
    names_check = reference_validator.validator(schema, formats=False).evolve(schema=rule)
    refused = [n for n in declared if not names_check.is_valid(n)]
    assert _errors(schema, "property-never-accepted") == {f"/input/properties/{n}" for n in refused}
    whole = reference_validator.validator(schema, formats=False)
    for name in refused:
        assert not any(whole.is_valid({**({declared[0]: 1} if required else {}), name: p}) for p in PROBES)


TYPES = st.sampled_from(["string", "integer", "number", "boolean", "null", "array", "object", ["string", "null"],
                         ["integer", "string"]])


@settings(max_examples=150, deadline=None)
@given(own=TYPES, matched=TYPES, pattern=st.sampled_from(["^n", "^x", "e$"]),
       listed=st.sampled_from([None, {"const": 1}, {"enum": ["a", None]}]))
def test_a_property_its_matching_pattern_types_otherwise_is_an_error(own: Any, matched: Any, pattern: str,
                                                                     listed: dict[str, Any] | None) -> None:
    """`properties` and a matching `patternProperties` both judge the name: where check reports the
    two schemas disjoint, no probe value passes both; where their types share a kind and nothing is
    listed, it reports nothing."""
    declared = {"type": own, **(listed or {})}
    schema = {"type": "object", "properties": {"name": {**declared, "description": "d"}},
              "patternProperties": {pattern: {"type": matched}}}
    found = _errors(schema, "property-never-accepted")
    assert found <= {"/input/properties/name"}
    whole = reference_validator.validator(schema, formats=False)
    if found:
        assert not any(whole.is_valid({"name": p}) for p in PROBES)
    kinds = {k for t in (own, matched) for k in ([t] if isinstance(t, str) else t)}
    shared = set([own] if isinstance(own, str) else own) & set([matched] if isinstance(matched, str) else matched)
    if pattern == "^x":
        assert not found
    elif listed is None:
        assert bool(found) == (not shared and not {"integer", "number"} <= kinds)


FORBIDDING = [False, {"not": {}}]


@settings(max_examples=60, deadline=None)
@given(forbid=st.sampled_from(FORBIDDING), closed=st.booleans(),
       place=st.sampled_from(["own", "allOf", "anyOf", "then", "else", "if", "dependentSchemas", "$ref"]))
def test_requiring_a_name_whose_schema_admits_nothing_is_an_error(forbid: Any, closed: bool, place: str) -> None:
    """`properties: {a: false}` forbids the name in any object: a `required` naming it (beside it or in a
    branch) never holds, which passed check silently; no value the object accepts passes it."""
    props: dict[str, Any] = {"a": forbid, "b": {"type": "integer", "description": "d"}}
    if place == "own":
        keywords, where = {"required": ["a"]}, ""
    else:
        keywords, where = _placed(place, ["a"], ["b"])
    schema = {"type": "object", "properties": props, **keywords,
              **({"additionalProperties": False} if closed else {})}
    assert _errors(schema, "branch-never-holds") == {f"/input{where}/required/0"}
    branch = resolve_pointer(schema, where) if where else schema
    check = reference_validator.validator(schema, formats=False)
    held_by_object = check.evolve(schema={k: v for k, v in schema.items() if k in ("type", "properties",
                                                                               "additionalProperties")})
    for value in ({}, {"a": 1}, {"a": None, "b": 1}, {"b": 1}, {"a": {}}):
        assert not (held_by_object.is_valid(value) and check.evolve(schema=branch).is_valid(value)), value


@settings(max_examples=150, deadline=None)
@given(closer=st.sampled_from(["additionalProperties", "unevaluatedProperties"]),
       declared=st.lists(st.sampled_from("abc"), min_size=1, max_size=3, unique=True),
       names=st.lists(st.sampled_from("abcz"), min_size=1, max_size=2, unique=True),
       trigger=st.sampled_from("abcy"),
       place=st.sampled_from(["own", "allOf", "anyOf", "oneOf", "then", "else", "if", "dependentSchemas", "$ref",
                              "anyOf in then"]))
def test_a_dependent_required_naming_a_name_the_closed_object_refuses_is_an_error(
        closer: str, declared: list[str], names: list[str], trigger: str, place: str) -> None:
    """A `dependentRequired` in a branch of a closed object (or beside its branches) that names a name
    the object refuses passed check silently, where a `required` naming it is branch-never-holds. Each
    such name is now an error at its place (unless no value holds the trigger, when the dependency never
    applies), and the branch there really refuses every accepted object holding the trigger."""
    dependent = {"dependentRequired": {trigger: names}}
    if place == "own":  # beside a branch: required-not-declared does not judge the object's own lists
        keywords, where = {**dependent, "anyOf": [{}, {"required": [declared[0]]}]}, ""
    else:
        keywords, where = _placed(place, [], declared)
        branch = resolve_pointer(keywords, where)
        del branch["required"]
        branch.update(dependent)
    schema = {"type": "object", closer: False,
              "properties": {n: {"type": "integer", "description": "d"} for n in declared}, **keywords}
    dead = [i for i, n in enumerate(names) if n not in declared] if trigger in declared else []
    assert _errors(schema, "branch-never-holds") == {f"/input{where}/dependentRequired/{trigger}/{i}" for i in dead}
    if dead:
        check = reference_validator.validator(schema, formats=False).evolve(
            schema=resolve_pointer(schema, where) if where else schema)
        others = [n for n in declared if n != trigger]
        for size in range(len(others) + 1):
            for held in itertools.combinations(others, size):
                assert not check.is_valid(dict.fromkeys((trigger, *held), 1)), (schema, held)


def test_a_dependent_required_in_a_branch_is_worded_by_what_it_costs() -> None:
    """The message names the trigger and what the dead dependency costs, and the hint its list."""
    schema = {"type": "object", "additionalProperties": False,
              "properties": {"a": {"type": "integer", "description": "d"}},
              "anyOf": [{"dependentRequired": {"a": ["zz"]}}, {"maxProperties": 0}]}
    report = Reporter(ParsedFile("t/1.0.0.json"))
    check_embedded_schema(report, "input", schema)
    [found] = [d for d in report.diagnostics if d.code == "branch-never-holds"]
    assert found.pointer == "/input/anyOf/0/dependentRequired/a/0"
    assert "'zz'" in found.message and "every value holding 'a'" in found.message
    assert "this branch never matches such a value" in found.message
    assert found.hint == "declare 'zz' under `properties` at /input, or drop it from this `dependentRequired`"
