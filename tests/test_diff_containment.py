"""The containment proof behind `contractgen diff`: random schema pairs (hypothesis) and named patterns.

Whenever the prover says "covers", no instance valid under the old schema may be rejected by the new
one; whenever it says "not covers", its witness must be accepted by the old schema and rejected by the
new, both checked here with python jsonschema, independently of the diff code.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from contractgen.prover import NOTHING, Verdict, candidates, contains
from contractgen.prover.rewrite import equivalent, structurally_covers
from contractgen.runtime import reference_validator


def valid(schema: Any, value: Any) -> bool:
    """The reference judge, with the guard's regex semantics."""
    return bool(reference_validator.validator(schema).is_valid(value))


# --- a small schema strategy of our own (hypothesis-jsonschema crashes on object schemas) -------------

NAMES = st.sampled_from(["a", "b", "c"])
SMALL_INT = st.integers(-3, 6)
SCALARS = st.one_of(st.none(), st.booleans(), SMALL_INT, st.sampled_from([0.5, -1.5, 2.0]),
                    st.sampled_from(["", "a", "ab", "xyz", "b1"]))
JSON_VALUES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(NAMES, inner, max_size=3)), max_leaves=6)


def _numeric() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({"type": st.sampled_from(["integer", "number"])}, optional={
        "minimum": SMALL_INT, "maximum": SMALL_INT, "exclusiveMinimum": SMALL_INT,
        "exclusiveMaximum": SMALL_INT, "multipleOf": st.sampled_from([1, 2, 3, 0.5])})


def _string() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({"type": st.just("string")}, optional={
        "minLength": st.integers(0, 3), "maxLength": st.integers(0, 3),
        "pattern": st.sampled_from(["^a", "b", "^[ab]+$", "^x{2,}$", "1$"])})


LEAVES = st.one_of(
    _numeric(), _string(),
    st.fixed_dictionaries({"type": st.sampled_from(["null", "boolean", ["string", "integer"], ["null", "number"]])}),
    st.builds(lambda v: {"const": v}, SCALARS),
    st.builds(lambda vs: {"enum": vs}, st.lists(SCALARS, min_size=1, max_size=3, unique_by=repr)),
    st.just({}),
)


def _compound(inner: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    obj = st.builds(
        lambda props, required, closed, extra: {
            "type": "object", "properties": props, **({"required": sorted(required)} if required else {}),
            **({"additionalProperties": False} if closed else {}), **extra},
        st.dictionaries(NAMES, inner, max_size=2), st.sets(NAMES, max_size=2), st.booleans(),
        st.fixed_dictionaries({}, optional={"maxProperties": st.integers(0, 3), "minProperties": st.integers(0, 2)}))
    arr = st.builds(lambda items, extra: {"type": "array", "items": items, **extra}, inner,
                    st.fixed_dictionaries({}, optional={"minItems": st.integers(0, 2), "maxItems": st.integers(0, 3),
                                                        "uniqueItems": st.booleans(), "contains": inner,
                                                        "minContains": st.integers(0, 2),
                                                        "maxContains": st.integers(0, 2)}))
    combos = st.builds(lambda key, branches: {key: branches}, st.sampled_from(["anyOf", "oneOf", "allOf"]),
                       st.lists(inner, min_size=1, max_size=3))
    negation = st.builds(lambda s: {"not": s}, inner)
    return st.one_of(obj, arr, combos, negation)


SCHEMAS = st.recursive(LEAVES, _compound, max_leaves=5)


def _instances(old: Any, new: Any, extra: list[Any]) -> list[Any]:
    found = [v for v in candidates(old) if v is not NOTHING][:20]
    found += [v for v in candidates(new) if v is not NOTHING][:10]
    return found + extra


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(old=SCHEMAS, new=SCHEMAS, values=st.lists(JSON_VALUES, max_size=15))
# a fresh clone's CI drew this: a oneOf whose branch simplifies to the boolean schema true reached
# the candidate values as {**rest, **True} (TypeError)
@example(old={"oneOf": [{}, {"type": "integer", "minimum": 1, "multipleOf": 1, "exclusiveMaximum": 3},
                        {"type": "integer", "multipleOf": 2}]}, new={"type": "integer"}, values=[])
def test_covers_is_never_contradicted_and_witnesses_are_real(old: Any, new: Any, values: list[Any]) -> None:
    proof = contains(new, old)
    if proof.verdict is Verdict.COVERS:
        for value in _instances(old, new, values):
            if valid(old, value):
                assert valid(new, value), f"proved covers, but {value!r} is accepted by old and rejected by new"
    elif proof.verdict is Verdict.NOT_COVERS:
        assert valid(old, proof.witness) and not valid(new, proof.witness), proof


@settings(max_examples=200, deadline=None)
@given(schema=SCHEMAS, values=st.lists(JSON_VALUES, max_size=15))
def test_equivalent_rewrites_keep_every_verdict(schema: Any, values: list[Any]) -> None:
    rewritten = equivalent(schema)
    for value in _instances(schema, rewritten, values):
        assert valid(schema, value) == valid(rewritten, value), (schema, rewritten, value)


@settings(max_examples=200, deadline=None)
@given(old=SCHEMAS, new=SCHEMAS, values=st.lists(JSON_VALUES, max_size=15))
def test_structural_covers_is_sound(old: Any, new: Any, values: list[Any]) -> None:
    if structurally_covers(new, old):
        for value in _instances(old, new, values):
            if valid(old, value):
                assert valid(new, value), (old, new, value)


# --- named patterns from the issue: verdicts the prover must reach ---------------------------------

I, S = {"type": "integer"}, {"type": "string"}
COVERS = [
    ({"const": 1}, {"enum": [1, 2]}),
    ({"type": "integer", "exclusiveMinimum": 5}, {"type": "integer", "minimum": 6}),
    ({"type": "null"}, {"enum": [None]}),
    ({"type": "string", "pattern": "^[a-z]{3,}$"}, {"type": "string", "pattern": "^[a-z]{3,}$", "minLength": 3}),
    ({"oneOf": [{"type": "string", "minLength": 1}]}, {"type": "string", "minLength": 1}),
    ({"type": "string", "anyOf": [{"minLength": 2}, {"pattern": "^x"}]}, S),
    ({"anyOf": [S, I]}, {"anyOf": [I, S]}),
    ({"allOf": [S, I]}, {"type": "boolean"}),  # the old schema admits nothing
    ({"contains": I, "minContains": 2}, {"contains": {}, "minContains": 2}),
    ({"type": "integer", "multipleOf": 4}, {"type": "integer", "multipleOf": 2}),
]
NOT_COVERS = [
    ({"type": "object", "maxProperties": 3}, {"type": "object", "maxProperties": 2}),
    ({"type": "array", "contains": I, "minContains": 1}, {"type": "array", "contains": I, "minContains": 2}),
    ({"contains": {"const": 1}, "minContains": 0, "maxContains": 0}, {"contains": {"const": 1}, "maxContains": 1}),
    ({"contains": {"const": 1}, "maxContains": 1}, {"contains": {}, "maxContains": 1}),
    ({"type": "integer", "multipleOf": 2}, {"type": "integer", "multipleOf": 4}),
    ({"type": "array", "prefixItems": [I, S]}, {"type": "array", "prefixItems": [I, S], "maxItems": 2}),
    ({"type": "object", "patternProperties": {"^x": I}},
     {"type": "object", "patternProperties": {"^x": {"type": "integer", "minimum": 0}}}),
    ({"type": "object", "properties": {"a": S}}, {"type": "object", "properties": {"a": S}, "required": ["b"]}),
    ({"type": "number"}, {"type": "integer"}),
    ({"type": "array", "items": I}, {"type": "array", "items": {"type": "integer", "minimum": 0}}),
    ({"type": "object", "properties": {"a": {}}}, {"type": "object", "properties": {"a": {}}, "additionalProperties": False}),
]


@pytest.mark.parametrize(("old", "new"), COVERS, ids=[str(i) for i in range(len(COVERS))])
def test_proves_covers(old: Any, new: Any) -> None:
    assert contains(new, old).verdict is Verdict.COVERS


@pytest.mark.parametrize(("old", "new"), NOT_COVERS, ids=[str(i) for i in range(len(NOT_COVERS))])
def test_proves_not_covers_with_a_checked_witness(old: Any, new: Any) -> None:
    proof = contains(new, old)
    assert proof.verdict is Verdict.NOT_COVERS
    assert valid(old, proof.witness) and not valid(new, proof.witness)


def test_undecidable_pair_is_unknown_with_a_reason() -> None:
    # '.' is outside the patterns whose inclusion is decided (ECMA-262's '.' refuses line terminators)
    proof = contains({"type": "string", "pattern": "^[ab]+.?$"}, {"type": "string", "pattern": "^a+$"})
    assert proof.verdict is Verdict.UNKNOWN and proof.reason


def test_an_included_pattern_is_proven_covered() -> None:
    """^a+$ -> ^[ab]+$ was 'could not prove' (WARN); greenery's automata decide it (regex_inclusion.py)."""
    proof = contains({"type": "string", "pattern": "^[ab]+$"}, {"type": "string", "pattern": "^a+$"})
    assert proof.verdict is Verdict.COVERS
    assert contains({"type": "string", "pattern": "^a+$"}, {"type": "string", "pattern": "^[ab]+$"}).has_witness
