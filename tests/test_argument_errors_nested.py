"""Nested arguments (an object or array beside the scalars) take the same shortcuts as flat ones.

A small nested call has a memo key (``schema_check.value_key``), so a repeated mistake is answered
from what was kept for it, and a new wrong value at a known top-level place is answered from its
echoes (``SchemaCheck.mistake``/``plan``, ``ShapedErrors.known``). A warm guard must still answer
every call exactly as a fresh guard does, cut calls (``jsonvalue.shortened``) and secrets included.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from test_argument_errors import _counting_explanations, _ok

from contractgen.runtime import Contract, Timeout, guard
from contractgen.runtime.schema_check import SchemaCheck, value_key

#: a realistic nested tool: patterns, bounds, an enum, a date, a nested object with a marked secret,
#: an array of objects with uniqueItems and a bound on its length
NESTED = {
    "type": "object",
    "additionalProperties": False,
    "required": ["origin", "passengers", "traveller"],
    "properties": {
        "origin": {"type": "string", "pattern": "^[A-Z]{3}$"},
        "depart_on": {"type": "string", "format": "date"},
        "passengers": {"type": "integer", "minimum": 1, "maximum": 9},
        "cabin": {"enum": ["economy", "premium", "business", "first"]},
        "traveller": {
            "type": "object",
            "additionalProperties": False,
            "required": ["name"],
            "properties": {
                "name": {"type": "string", "minLength": 1, "maxLength": 20},
                "passport": {"type": "string", "x-sensitive": True, "minLength": 6},
                "loyalty": {"type": "string", "pattern": "^[A-Z0-9]{6,12}$"},
            },
        },
        "stops": {
            "type": "array",
            "maxItems": 3,
            "uniqueItems": True,
            "items": {
                "type": "object",
                "required": ["code"],
                "additionalProperties": False,
                "properties": {
                    "code": {"type": "string", "pattern": "^[A-Z]{3}$"},
                    "nights": {"type": "integer", "minimum": 0},
                },
            },
        },
        "tags": {"type": "array", "items": {"type": "string", "maxLength": 5}},
    },
}
#: the same without the marked member: calls may then be answered by signature (``may_hold_secrets``)
PLAIN = {
    **NESTED,
    "properties": {
        **NESTED["properties"],
        "traveller": {
            **NESTED["properties"]["traveller"],
            "properties": {
                k: v
                for k, v in NESTED["properties"]["traveller"]["properties"].items()
                if k != "passport"
            },
        },
    },
}
GOOD = {"origin": "OSL", "passengers": 2, "traveller": {"name": "Ana"}}

_SCALAR = st.sampled_from(
    [
        None,
        True,
        0,
        1,
        3,
        12,
        2.5,
        1.0,
        -0.0,
        "",
        "OSL",
        "osl",
        "LIS",
        "ecnomy",
        "economy",
        "2026-02-30",
        "2026-01-05",
        "x" * 30,
        "secret-pass",
        "AB12CD34",
    ]
)
_TRAVELLER = st.dictionaries(
    st.sampled_from(["name", "passport", "loyalty", "extra"]), _SCALAR, max_size=4
)
#: arrays and objects sent where a scalar belongs (a model's ["EUR"] for "EUR"), one naming a secret
_ASTRAY = st.lists(_SCALAR, max_size=2) | st.dictionaries(
    st.sampled_from(["code", "password", "x"]), _SCALAR, max_size=2
)
_STOP = st.dictionaries(st.sampled_from(["code", "nights", "x"]), _SCALAR, max_size=3)
_MEMBER = {
    "origin": _SCALAR | _ASTRAY,
    "depart_on": _SCALAR,
    "passengers": _SCALAR | _ASTRAY,
    "cabin": _SCALAR | _ASTRAY,
    "traveller": _TRAVELLER | _SCALAR | st.lists(_SCALAR, max_size=2),
    # up to 20 stops or tags: past the fair share of the detail budget, the full path cuts them
    "stops": st.lists(_STOP, max_size=6)
    | st.lists(st.just({"code": "AMS"}), min_size=15, max_size=20),
    "tags": st.lists(_SCALAR, max_size=20),
    "unknown": _SCALAR,
}


def _contract(schema: dict[str, Any] = NESTED) -> Contract:
    return Contract(
        name="nested",
        version="1.0.0",
        summary="s",
        description="d",
        input_schema=schema,
        output_schema={"type": "object"},
        timeout=Timeout(None),
    )


def _fresh(arguments: Any, schema: dict[str, Any] = NESTED) -> Any:
    """The answer of a guard that has seen nothing (its own contract object: nothing kept is shared)."""
    return guard(_contract(schema), _ok)(arguments)


@st.composite
def _runs(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Calls sending the same names, each member drawn anew (so places repeat with new values), with
    some calls sent twice in a row (a model's retry)."""
    names = draw(st.lists(st.sampled_from(sorted(_MEMBER)), min_size=1, max_size=6, unique=True))
    calls = draw(
        st.lists(
            st.fixed_dictionaries({name: _MEMBER[name] for name in names}), min_size=2, max_size=10
        )
    )
    repeated = draw(st.lists(st.booleans(), min_size=len(calls), max_size=len(calls)))
    return [c for call, again in zip(calls, repeated) for c in ([call, call] if again else [call])]


@settings(max_examples=60, deadline=None)
@given(calls=_runs(), schema=st.sampled_from([NESTED, PLAIN]))
def test_a_warm_guard_answers_nested_calls_as_a_fresh_one(
    calls: list[dict[str, Any]], schema: dict[str, Any]
) -> None:
    warm = guard(_contract(schema), _ok)
    for arguments in calls:
        assert warm(arguments) == _fresh(arguments, schema), arguments


def test_a_new_wrong_value_beside_nested_members_is_answered_from_its_echoes() -> None:
    """A nested tool's new mistakes at a known place: explained while the shape is learnt (places
    seen, recipe learnt, plan and envelope kept), then filled in from the echoes alone."""
    warm = guard(_contract(PLAIN), _ok)
    explained = _counting_explanations(warm)
    for i in range(20):
        arguments = {**GOOD, "passengers": 10 + i, "stops": [{"code": "AMS"}], "tags": ["a", "b"]}
        answer = warm(arguments)
        assert answer == _fresh(arguments, PLAIN)
        assert [(v["field"], v["attempted"]) for v in answer["error"]["violations"]] == [
            ("/passengers", 10 + i)
        ]
    assert explained == [3]


def test_an_array_where_a_text_belongs_is_answered_from_its_echoes() -> None:
    """A model's ["EUR"] for "EUR", new every call: once the shape is learnt, answered from its echo
    (the array as the full path echoes it) without explaining it."""
    warm = guard(_contract(PLAIN), _ok)
    explained = _counting_explanations(warm)
    for i in range(12):
        arguments = {**GOOD, "origin": [f"wrong {i}"]}
        answer = warm(arguments)
        assert answer == _fresh(arguments, PLAIN)
        assert answer["error"]["attempted"] == [f"wrong {i}"]
    assert explained == [3]


def test_an_object_where_a_text_belongs_hides_a_secret_name_inside() -> None:
    """Its echo is redacted afresh on every call, by whichever path answers it."""
    warm = guard(_contract(PLAIN), _ok)
    for i in range(8):
        arguments = {**GOOD, "origin": {"code": f"c{i}", "password": f"pw{i}"}}
        answer = warm(arguments)
        assert answer == _fresh(arguments, PLAIN)
        assert answer["error"]["attempted"] == {"code": f"c{i}", "password": "[redacted]"}


def _counting(check: SchemaCheck, method: str) -> list[int]:
    """A one-item list counting the calls of ``check``'s ``method`` from now on."""
    count = [0]
    original = getattr(check, method)

    def counting(*args: Any) -> Any:
        count[0] += 1
        return original(*args)

    setattr(check, method, counting)
    return count


def test_a_repeated_nested_mistake_is_not_explained_again() -> None:
    """The same wrong nested call again (inside the nested object: no recipe reaches it) is answered
    from what its first explanation kept."""
    warm = guard(_contract(), _ok)
    listed = _counting(
        warm._compiled.input, "_raw_errors"
    )  # the validator asked for a value's errors
    arguments = {**GOOD, "traveller": {"name": "", "loyalty": "ab"}}
    first = warm(arguments)
    assert [v["field"] for v in first["error"]["violations"]] == [
        "/traveller/name",
        "/traveller/loyalty",
    ]
    for _ in range(5):
        assert warm(arguments) == first == _fresh(arguments)
    assert listed == [1]


def test_a_nested_secret_is_never_echoed_by_a_shortcut() -> None:
    """A marked member sent astray stays hidden however often its call's shape comes back."""
    warm = guard(_contract(), _ok)
    for i in range(8):
        arguments = {
            **GOOD,
            "passengers": 20 + i,
            "traveller": {"name": "Ana", "passport": f"p{i}"},
        }
        answer = warm(arguments)
        assert answer == _fresh(arguments)
        assert f"p{i}" not in str(answer)


def test_a_nested_call_the_full_path_cuts_is_answered_as_cut() -> None:
    """A heavy schema examines few members (``member_cap``): a call holding more is not read whole by
    any shortcut, whatever its memo key."""
    check = SchemaCheck(NESTED)
    long_tags = {**GOOD, "passengers": 0, "tags": ["ok"] * 30}
    short_tags = {**GOOD, "passengers": 0, "tags": ["ok"]}
    check.member_cap = 2
    assert not check._cuts_nothing(long_tags)
    assert check.mistake(long_tags, value_key(long_tags)) is None
    check.member_cap = 40
    assert check._cuts_nothing(short_tags)
    assert check.mistake(short_tags, value_key(short_tags)) is not None


def test_value_key_of_nested_values() -> None:
    """Small nested values have a key telling their types and order apart; large or deep ones none."""
    assert value_key({"a": [1]}) != value_key({"a": [1.0]}) != value_key({"a": [True]})
    assert value_key({"a": {"x": 1, "y": 2}}) != value_key({"a": {"y": 2, "x": 1}})
    assert value_key({"a": [-0.0]}) != value_key({"a": [0.0]})
    assert value_key({"a": [0] * 32}) is not None
    assert value_key({"a": [0] * 33}) is None  # members over the whole call
    assert value_key({"a": [[[[[[1]]]]]]}) is not None
    assert value_key({"a": [[[[[[[1]]]]]]]}) is None  # too deep
    assert value_key({"a": ["x" * 257]}) is None
    assert value_key({"a": [10**240]}) is None
    assert value_key({"a": {1: "x"}}) is None
    assert value_key({"a": (1,)}) is None  # not plain JSON: the full path reads it


def test_an_echoed_array_changed_by_the_caller_changes_no_later_answer() -> None:
    """What a caller gets is its own: changing the array echoed back (in a call with a memo key, and
    in one without: a text past 256 characters beside it) changes nothing answered later."""
    warm = guard(_contract(PLAIN), _ok)
    # the last: no memo key, and a secret sent twice, so the envelope is built scrubbed for the call
    secret_twice = {
        "origin": "hunter22hunter22",
        "password": "hunter22hunter22",
        "depart_on": "z" * 300,
    }
    for extra in ({}, {"origin": "x" * 300}, secret_twice):
        arguments = {**GOOD, **extra, "cabin": ["first"]}
        for _ in range(4):
            answer = warm(arguments)
            assert answer == _fresh(arguments, PLAIN)
            for holder in (answer["error"], *answer["error"]["violations"]):
                if isinstance(holder.get("attempted"), list):
                    holder["attempted"].append("changed")
