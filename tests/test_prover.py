"""The prover's entry point, ``contractgen.prover.contains(outer, inner)``, on small schema pairs: each of
its three answers and what each promises, judged outside the prover.

- COVERS: every value hypothesis-jsonschema draws from ``inner`` passes ``outer`` (python ``jsonschema``);
- NOT_COVERS: its witness is valid for ``inner`` and invalid for ``outer``, by python ``jsonschema`` itself;
- UNKNOWN: a reason a person can read, and no witness.

The pairs hold no ``format`` and only patterns Python's ``re`` reads as ECMA-262 does, so python
``jsonschema`` judges them as the guard does (formats: tests/test_diff_formats.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema

from contractgen.prover import Proof, Verdict, clear_caches, contains, proofs_within

Schema = Any

_STRING = {"type": "string"}
_FOO_BAR = {"foo": _STRING, "bar": _STRING}

#: (what, outer, inner): outer accepts every value inner accepts
COVERING = [
    ("a number accepts every integer", {"type": "number"}, {"type": "integer"}),
    ("a longer limit", {"type": "string", "maxLength": 10}, {"type": "string", "maxLength": 3}),
    (
        "an open object takes a closed one",
        {"type": "object"},
        {"type": "object", "properties": {"a": _STRING}, "additionalProperties": False},
    ),
    ("a wider enum", {"enum": ["a", "b", "c"]}, {"enum": ["a", "b"]}),
    (
        "a required property with a tighter schema",
        {"type": "object", "properties": {"a": {"type": "integer"}}},
        {
            "type": "object",
            "properties": {"a": {"type": "integer", "minimum": 0}},
            "required": ["a"],
        },
    ),
    ("a branch added", {"anyOf": [_STRING, {"type": "integer"}]}, _STRING),
    (
        "a pattern inside another",
        {"type": "string", "pattern": "^[a-z]+$"},
        {"type": "string", "pattern": "^[a-c]+$"},
    ),
    ("a schema that admits nothing", _STRING, False),
    ("identical text", {"type": "array", "items": _STRING}, {"type": "array", "items": _STRING}),
]

#: (what, outer, inner): inner accepts a value outer refuses
NOT_COVERING = [
    ("an integer refuses a fraction", {"type": "integer"}, {"type": "number"}),
    ("a property became required", {"type": "object", "required": ["a"]}, {"type": "object"}),
    ("a lower maximum", {"type": "integer", "maximum": 5}, {"type": "integer", "maximum": 9}),
    ("an enum value removed", {"enum": ["a"]}, {"enum": ["a", "b"]}),
    (
        "an object closed",
        {"type": "object", "properties": {"a": {}}, "additionalProperties": False},
        {"type": "object", "properties": {"a": {}}},
    ),
    # issue 33's false proof: a closed output requiring foo and bar, then oneOf one of them
    (
        "oneOf of two requirements against both required",
        {
            "type": "object",
            "properties": _FOO_BAR,
            "required": ["foo", "bar"],
            "additionalProperties": False,
        },
        {
            "type": "object",
            "properties": _FOO_BAR,
            "additionalProperties": False,
            "oneOf": [{"required": ["foo"]}, {"required": ["bar"]}],
        },
    ),
    (
        "items narrowed",
        {"type": "array", "items": {"type": "string", "maxLength": 2}},
        {"type": "array", "items": _STRING},
    ),
    (
        "a dependency added",
        {"type": "object", "dependentRequired": {"a": ["b"]}},
        {"type": "object"},
    ),
    (
        "a tuple slot narrowed",
        {"type": "array", "prefixItems": [{"type": "integer"}]},
        {"type": "array", "prefixItems": [{"type": "number"}]},
    ),
    (
        "a condition added",
        {"type": "object", "if": {"required": ["a"]}, "then": {"required": ["b"]}},
        {"type": "object"},
    ),
]

#: (what, outer, inner): beyond what the prover can read; each pair does cover, so no witness exists
UNDECIDED = [
    (
        "a lookahead",
        {"type": "string", "pattern": "^(?=a).*$"},
        {"type": "string", "pattern": "^ab.*$"},
    ),
    (
        "a nested quantifier",
        {"type": "string", "pattern": "^(a+)+b$"},
        {"type": "string", "pattern": "^a+b$"},
    ),
]


def _valid(schema: Schema, value: Any) -> bool:
    return bool(jsonschema.Draft202012Validator(schema).is_valid(value))


def _witness_shows(proof: Proof, outer: Schema, inner: Schema) -> None:
    assert proof.has_witness, proof
    assert _valid(inner, proof.witness), (
        f"witness {proof.witness!r} is not valid for the inner schema"
    )
    assert not _valid(outer, proof.witness), (
        f"witness {proof.witness!r} is valid for the outer schema"
    )


@pytest.fixture(autouse=True)
def _fresh_proofs() -> Iterator[None]:
    """Each test proves from nothing, and leaves no proof (or proof given up) to the next."""
    clear_caches()
    yield
    clear_caches()


@pytest.mark.parametrize(("what", "outer", "inner"), COVERING, ids=[c[0] for c in COVERING])
def test_contains(what: str, outer: Schema, inner: Schema) -> None:
    proof = contains(outer, inner)
    assert proof.verdict is Verdict.COVERS and proof.witness is None and proof.reason, proof


@pytest.mark.parametrize(("what", "outer", "inner"), NOT_COVERING, ids=[c[0] for c in NOT_COVERING])
def test_does_not_contain_with_a_witness_jsonschema_confirms(
    what: str, outer: Schema, inner: Schema
) -> None:
    proof = contains(outer, inner)
    assert proof.verdict is Verdict.NOT_COVERS, proof
    _witness_shows(proof, outer, inner)


def test_the_witness_of_issue_33s_pair_omits_the_property_no_longer_required() -> None:
    _, outer, inner = NOT_COVERING[5]
    witness = contains(outer, inner).witness
    assert isinstance(witness, dict) and len(witness) == 1 and witness.keys() <= {"foo", "bar"}


@pytest.mark.parametrize(("what", "outer", "inner"), UNDECIDED, ids=[c[0] for c in UNDECIDED])
def test_unknown_says_why(what: str, outer: Schema, inner: Schema) -> None:
    proof = contains(outer, inner)
    assert proof.verdict is Verdict.UNKNOWN and not proof.has_witness and proof.witness is None, (
        proof
    )
    assert proof.reason.strip() and not proof.over_budget, proof


def test_unknown_when_the_budget_is_spent_says_which_budget() -> None:
    """A pair the prover decides at once, asked after its run's budget is spent: "could not decide",
    never a guess either way."""
    outer, inner = {"type": "integer", "maximum": 3}, {"type": "integer"}
    with proofs_within(0):
        spent = contains(outer, inner)
    assert spent.verdict is Verdict.UNKNOWN and spent.over_budget and "--proof-budget" in spent.reason, (
        spent
    )
    # what a run gave up on is decided afresh after it (no cache cleared): a later diff or check in
    # the same process once got the spent run's "could not decide" back
    _witness_shows(contains(outer, inner), outer, inner)
    with proofs_within(0, "check's proof budget for one condition ({seconds:g} s)"):
        named = contains({"type": "integer", "maximum": 2}, inner)
    assert named.over_budget and named.reason.startswith(
        "could not decide: check's proof budget for one condition (0 s) was spent"
    ), named


# --- the same promises over generated pairs -----------------------------------------------------------

_LEAVES = st.one_of(
    st.fixed_dictionaries(
        {"type": st.sampled_from(["integer", "number"])},
        optional={"minimum": st.integers(-3, 3), "maximum": st.integers(-3, 3)},
    ),
    st.fixed_dictionaries(
        {"type": st.just("string")},
        optional={
            "maxLength": st.integers(0, 3),
            "enum": st.lists(st.sampled_from(["", "a", "ab"]), min_size=1, unique=True),
        },
    ),
    st.just({"type": "boolean"}),
)
_NAMES = st.sampled_from(["a", "b"])


@st.composite
def _objects(draw: st.DrawFn) -> Schema:
    properties = draw(st.dictionaries(_NAMES, _LEAVES, max_size=2))
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if draw(st.booleans()):
        schema["required"] = draw(st.lists(_NAMES, min_size=1, unique=True))
    if draw(st.booleans()):
        schema["additionalProperties"] = False
    if draw(st.booleans()):  # the combinators that hid issue 33's false proof
        keyword = draw(st.sampled_from(["oneOf", "anyOf", "allOf"]))
        schema[keyword] = [
            {"required": [name]} for name in draw(st.lists(_NAMES, min_size=1, unique=True))
        ]
    return schema


_SCHEMAS = st.one_of(
    _LEAVES, _objects(), st.builds(lambda items: {"type": "array", "items": items}, _LEAVES)
)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(outer=_SCHEMAS, inner=_SCHEMAS, data=st.data())
def test_every_answer_keeps_its_promise(outer: Schema, inner: Schema, data: st.DataObject) -> None:
    clear_caches()
    proof = contains(outer, inner)
    event(proof.verdict.value)
    if proof.verdict is Verdict.NOT_COVERS:
        _witness_shows(proof, outer, inner)
    elif proof.verdict is Verdict.UNKNOWN:
        assert proof.reason.strip() and proof.witness is None, proof
    else:
        assert proof.witness is None, proof
        values = from_schema(inner)
        if not values.is_empty:
            for _ in range(5):
                value = data.draw(values)
                assert _valid(outer, value), (
                    f"{proof.reason}: {value!r} is valid for the inner schema only"
                )
