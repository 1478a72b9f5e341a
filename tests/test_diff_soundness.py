"""The "not breaking" side of `contractgen diff`, fuzzed: real input schemas (the repo's contracts and the
shared corpus's MCP tools) get random realistic mutations (tests/diff_fuzz.py); whenever the diff reports
no ERR for the input direction, an independent search (hypothesis-jsonschema, the schema's own
examples/default/enum/const and values at its bounds, judged by python jsonschema) looks for a call the
old schema accepts and the new one refuses (for outputs: a result the new schema allows and the old one
excluded). Every ERR witness is checked too.
"""

from __future__ import annotations

import copy
import random
from collections import Counter
from typing import Any

import jsonschema
import pytest
from diff_adversary import Refutation, claims, refute, schema_pairs
from diff_fuzz import CORPUS, NOTHING, Draw, counterexample, drawn_candidates, explore, summary
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from contractgen.diff import Direction
from contractgen.prover import WitnessFinder

#: map-valued objects: the case the default reading once called safe (an added property the old
#: additionalProperties schema already described)
MAP_OLD: dict[str, Any] = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"],
                           "additionalProperties": {"type": "string"}}
MAP_NEW: dict[str, Any] = {**MAP_OLD, "properties": {**MAP_OLD["properties"], "priority": {"type": "integer"}}}


ONE_DRAW = settings(max_examples=3, derandomize=True, database=None, deadline=None,
                    suppress_health_check=list(HealthCheck))


#: mutated pairs per direction (each judged in both readings, from one set of drawn values); the
#: classes the fuzz once found are golden cases under tests/cases/diff; this samples for new ones
EXAMPLES = 350


@pytest.mark.parametrize("direction", [Direction.INPUT, Direction.OUTPUT], ids=["input", "output"])
def test_mutated_real_schemas_have_no_quiet_break(direction: Direction) -> None:
    """Input: no call the old schema accepted is refused by the new one unless an ERR says so. Output: no
    result the new schema allows that the old one excluded (a consumer's broken promise) without an ERR."""
    tally = explore(EXAMPLES, CORPUS if CORPUS.is_dir() else None, direction)
    print(summary(tally))
    assert tally.trials > EXAMPLES // 2  # most drawn mutations produce a valid, different schema
    assert tally.false_negatives == [], "\n".join(tally.false_negatives[:5])
    assert tally.unproven == [], "\n".join(tally.unproven[:5])
    assert tally.bad_witnesses == [], "\n".join(tally.bad_witnesses[:5])
    # the search is not a formality: it finds a counterexample for most pairs the diff calls breaking
    err = sum(v for k, v in tally.verdicts.items() if k.endswith(":ERR"))
    assert err > EXAMPLES // 6 and tally.err_confirmed > err // 2


@pytest.mark.parametrize("strict", [False, True], ids=["default", "strict"])
@ONE_DRAW
@given(data=st.data())
def test_search_finds_the_map_counterexample_in_both_readings(strict: bool, data: st.DataObject) -> None:
    draw: Draw = data.draw
    value = counterexample(MAP_OLD, MAP_NEW, (), draw, strict)
    assert value is not NOTHING
    assert isinstance(value, dict) and not isinstance(value.get("priority", 0), int)


@ONE_DRAW
@given(data=st.data())
def test_search_finds_nothing_for_a_widening(data: st.DataObject) -> None:
    widened = {**MAP_OLD, "additionalProperties": {"type": ["string", "integer"]}}
    assert counterexample(MAP_OLD, widened, (), data.draw, True) is NOTHING


#: an object behind a $ref: what hypothesis-jsonschema could not draw with hypothesis >= 6.170.10, and
#: a schema it rewrites in place when given its own (its $refs inlined)
OBJECT_WITH_REF: dict[str, Any] = {"type": "object", "required": ["a"], "additionalProperties": False,
                                   "properties": {"a": {"$ref": "#/$defs/n"}, "b": {"type": "string"}},
                                   "$defs": {"n": {"type": "integer", "minimum": 3}}}


@ONE_DRAW
@given(data=st.data())
def test_the_independent_search_draws_whole_objects_and_leaves_the_schema_alone(data: st.DataObject) -> None:
    schema = copy.deepcopy(OBJECT_WITH_REF)
    values = drawn_candidates(schema, data.draw)
    assert values, "hypothesis-jsonschema drew no object (is hypothesis in the range pyproject pins?)"
    assert all(jsonschema.Draft202012Validator(OBJECT_WITH_REF).is_valid(v) for v in values), values
    assert schema == OBJECT_WITH_REF  # later examples (and hypothesis's replays) see the same seed


def test_a_witness_note_names_what_was_searched_for() -> None:
    """An output search looks for a result the new output schema allows: when none can be built its
    note says so, not "no argument object valid under the old input schema" (which sent an author to
    the input schema and its examples)."""
    nothing = {"type": "object", "required": ["a"], "properties": {"a": False}}
    result = WitnessFinder(nothing, {"type": "object"}, nothing, [], results=True).find([], None)
    assert not result.found and result.note is not None
    assert "result" in result.note and "argument" not in result.note and "input" not in result.note
    arguments = WitnessFinder(nothing, {"type": "object"}, nothing, []).find([], None)
    assert arguments.note is not None and "argument object" in arguments.note


# --- every "covers" claim against an adversary (tests/diff_adversary.py) ----------------------------------

#: pairs per test: each proves every position in one reading and draws up to ~150 values per claim
#: (no shrinking: a refutation is printed whole, and shrinking one re-proves every smaller pair)
ADVERSARY = settings(max_examples=80, derandomize=True, database=None, deadline=None,
                     suppress_health_check=list(HealthCheck), phases=(Phase.explicit, Phase.generate))


@pytest.mark.parametrize("strict", [False, True], ids=["default", "strict"])
@pytest.mark.parametrize("direction", [Direction.INPUT, Direction.OUTPUT], ids=["input", "output"])
def test_every_covers_claim_survives_the_adversary(direction: Direction, strict: bool) -> None:
    """Object combinators (oneOf/anyOf/allOf with required, if/then/else, dependentRequired, patterns),
    open and closed objects, prefixItems, contains and $ref, edited the way tool histories edit them:
    wherever the prover says "covers" (a finding's "proven harmless"), no drawn value may say otherwise."""
    tally: Counter[str] = Counter()

    @ADVERSARY
    @given(data=st.data())
    def attack(data: st.DataObject) -> None:
        old, new = data.draw(schema_pairs())
        rng = random.Random(data.draw(st.integers(0, 2**32)))  # one draw: the values are many
        tally["pairs"] += 1
        for pointer, old_at, new_at in claims(old, new, direction, strict):
            tally["claims"] += 1
            value = refute(old_at, new_at, direction, strict, rng, tally)
            assert value is None, str(Refutation(pointer, strict, value, old_at, new_at))

    attack()
    # the adversary is not a formality: most pairs run, and claims meet values to test them with
    assert tally["pairs"] >= ADVERSARY.max_examples // 2 and tally["claims"] >= 5 and tally["values"] >= 20, tally


def test_the_adversary_refutes_the_false_proof_of_a_requirement_moved_into_one_of() -> None:
    """The adversary, given the claim the prover once made (a closed output requiring foo and bar became
    oneOf [required foo, required bar]), finds a result that omits one of them."""
    old = {"type": "object", "additionalProperties": False, "required": ["foo", "bar"],
           "properties": {"foo": {"type": "string"}, "bar": {"type": "string"}}}
    new = {"type": "object", "unevaluatedProperties": False,
           "oneOf": [{"required": ["foo"], "properties": {"foo": {"type": "string"}}},
                     {"required": ["bar"], "properties": {"bar": {"type": "string"}}}]}
    found = [refute(old, new, Direction.OUTPUT, False, random.Random(seed)) for seed in range(3)]
    assert all(isinstance(v, dict) and not {"foo", "bar"} <= set(v) for v in found), found
    assert list(claims(old, new, Direction.OUTPUT, False)) == []  # and the prover no longer claims it
