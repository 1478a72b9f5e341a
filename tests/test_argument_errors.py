"""A new mistake of a known shape is answered exactly as the full path answers it.

Two things are kept per shape of mistake: the recipe of an explanation (``SchemaCheck._by_recipe``:
which templates, in which order, masked or not) and the envelope wording it
(``argument_errors.ShapedErrors``: filled in with the call's echoed values). Each is a shortcut; a
warm guard that has taken them must still answer every call exactly as a fresh guard does.
"""

from __future__ import annotations

from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st
from pydantic_core import to_json

from contractgen.runtime import Contract, Timeout, guard
from contractgen.runtime.argument_errors import _json_size

#: a wide flat input: every templated keyword, an enum to guess against, one marked secret, one
#: secret by name, and enough fields that long echoed values overflow the envelope's size cap
WIDE = {"type": "object", "additionalProperties": False, "required": ["mode", "flag"], "properties": {
    "mode": {"type": "string", "enum": ["fast", "slow", "careful"]},
    "n": {"type": "integer", "minimum": 0, "maximum": 9, "multipleOf": 3},
    "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
    "code": {"type": "string", "pattern": "^[A-Z]{3}$", "minLength": 3, "maxLength": 3},
    "flag": {"const": True},
    "day": {"type": "string", "format": "date"},
    "pw": {"type": "string", "writeOnly": True, "minLength": 12},
    "api_token": {"type": "string", "maxLength": 4},
    "gone": False,
    **{f"f{i}": {"type": "integer"} for i in range(12)}}}
NAMES = ["mode", "n", "ratio", "code", "flag", "day", "pw", "api_token", "gone", *(f"f{i}" for i in range(12))]
#: few values, so shapes repeat with new values; long texts with control characters (six bytes of
#: JSON each) and non-ASCII letters test the size fit and the byte count
SCALARS = (st.sampled_from([None, True, False, 0, -1, 3, 4, 12, 0.5, 1.5, -0.0, 3.0, 10**30])
           | st.sampled_from(["", "fast", "fats", "slwo", "ABC", "abc", "2024-02-30", "2024-01-05",
                              "hunter22hunter22", "fsat", "carefull", "\x01" * 120, "é" * 130, "x" * 300, "quote\"and\\slash"]))
CALLS = st.lists(st.dictionaries(st.sampled_from(NAMES), SCALARS, min_size=1, max_size=8), min_size=2, max_size=12)


def _contract() -> Contract:
    return Contract(name="wide", version="1.0.0", summary="s", description="d", input_schema=WIDE,
                    output_schema={"type": "object"}, timeout=Timeout(None))


def _ok(arguments: Any) -> Any:
    return {}


def _fresh(arguments: Any) -> Any:
    """The answer of a guard that has seen nothing: its own contract object, as compiled checks
    (and what they keep) are shared by the guards of one contract object."""
    return guard(_contract(), _ok)(arguments)


#: the names a run of calls sends (a model tends to send the same ones), then the values of each call:
#: the same places again with new values, so the kept recipes and envelopes are used
RUNS = st.tuples(st.lists(st.sampled_from(NAMES), min_size=1, max_size=6, unique=True),
                 st.lists(st.lists(SCALARS, min_size=6, max_size=6), min_size=2, max_size=8))


@settings(max_examples=50, deadline=None)
@given(run=RUNS)
@example(run=(["mode", "n"], [["fats", "1", *[None] * 4], ["slwo", "2", *[None] * 4], ["fsat", "3", *[None] * 4]]))
@example(run=(["mode", "code"], [[1.5, 2.5, *[None] * 4], [0.5, 1.5, *[None] * 4], [3.0, -0.0, *[None] * 4]]))
@example(run=(["mode", "f0", "f1"], [["fast", "a", "b", *[None] * 3], ["fast", "c", "d", *[None] * 3],
                                       ["fast", "\x01" * 120, "é" * 130, *[None] * 3]]))
def test_a_warm_guard_answers_every_new_mistake_as_a_fresh_one(run: tuple[list[str], list[list[Any]]]) -> None:
    names, rows = run
    warm = guard(_contract(), _ok)
    for row in rows:
        arguments = dict(zip(names, row))
        assert warm(arguments) == _fresh(arguments), arguments


def test_the_shortcuts_are_really_taken_and_agree() -> None:
    """A run of new wrong values at known places goes by recipe and by a kept envelope."""
    warm = guard(_contract(), _ok)
    check = warm._compiled.input
    by_recipe = 0
    original = check._by_recipe

    def counting(*args: Any) -> Any:
        nonlocal by_recipe
        found = original(*args)
        by_recipe += found is not None
        return found

    check._by_recipe = counting  # type: ignore[method-assign]
    for i in range(20):
        arguments = {"mode": f"fst{i}", "n": str(i), "ratio": 1 + i, "pw": f"short{i}", "flag": True}
        assert warm(arguments) == _fresh(arguments)
    assert by_recipe == 18  # the second call learns the recipe of these places; every later one follows it
    assert warm._shaped_errors._kept  # and the envelope of that shape is a kept one, filled in


def test_a_filled_envelope_too_big_for_the_cap_is_cut_as_the_full_path_cuts_it() -> None:
    warm = guard(_contract(), _ok)
    small, other = ({"mode": "fast", "flag": True} | {f"f{i}": text for i in range(12)} for text in ("x", "y"))
    big = {"mode": "fast", "flag": True} | {f"f{i}": "\x01" * 100 for i in range(12)}  # 600 bytes of JSON each
    for arguments in (small, other, big, small, big):
        answer = warm(arguments)
        assert answer == _fresh(arguments)
    assert answer["error"].get("violations_omitted")  # the big one was cut to fit


def test_calls_with_the_same_errors_but_other_names_missing_are_told_apart() -> None:
    """The same raw errors (one ``required`` at the root, one wrong type) name other missing names
    when the call holds other names: the names are part of what a kept recipe is kept under."""
    warm = guard(_contract(), _ok)
    for arguments in ({"n": "x"}, {"n": "y"}, {"n": "z", "mode": "fast"}, {"n": "w", "flag": True}):
        assert warm(arguments) == _fresh(arguments), arguments


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=40) | st.text(st.characters(max_codepoint=0x7F), max_size=40))
def test_the_byte_count_of_an_echoed_text_is_the_size_checks(text: str) -> None:
    assert _json_size(text) == len(to_json(text))


@given(number=st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.booleans() | st.none())
def test_the_byte_count_of_an_echoed_number_is_the_size_checks(number: Any) -> None:
    assert _json_size(number) == len(to_json(number))
