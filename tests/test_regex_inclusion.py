"""Pattern inclusion (contractgen/prover/regex.py): every "included" verdict holds on strings,
judged by the guard's own matcher (ECMA-262 as jsonschema-rs reads it), and patterns outside the
subset stay undecided.
"""

from __future__ import annotations

import collections
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from contractgen.prover.regex import pattern_includes, subset_body
from contractgen.runtime.patterns import pattern_matches

ATOMS = ("a", "b", "0", "-", "\\.", "/", "[a-c]", "[0-9]", "[ab0]", "\\d", "\\w", "[a-z0-9_]", "[-x]")
QUANTIFIERS = ("", "", "*", "+", "?", "{2}", "{1,3}", "{0,}")


def _sequence(parts: list[str]) -> str:
    return "".join(parts)


#: a body: atoms with quantifiers, and groups (unquantified, or quantified when they hold neither a
#: quantifier nor an alternation) holding alternatives
atom = st.builds(lambda a, q: a + q, st.sampled_from(ATOMS), st.sampled_from(QUANTIFIERS))
plain = st.lists(st.sampled_from(ATOMS), min_size=1, max_size=3).map(_sequence)
group = st.one_of(
    st.builds(lambda body, q: f"({body}){q}", plain, st.sampled_from(QUANTIFIERS)),
    st.builds(lambda alts: "(?:" + "|".join(alts) + ")", st.lists(st.lists(atom, min_size=1, max_size=3)
                                                             .map(_sequence), min_size=2, max_size=3)),
)
body = st.lists(st.one_of(atom, group), min_size=1, max_size=3).map(_sequence)


def widened(inner: str, draw: st.DrawFn) -> str:
    """A pattern likely to include ``inner``'s strings (a class widened, a quantifier loosened, an
    alternative added), so that "included" verdicts are common."""
    choice = draw(st.integers(0, 3))
    if choice == 0:
        return inner.replace("[a-c]", "\\w").replace("[0-9]", "\\d")
    if choice == 1:
        return inner.replace("{2}", "+").replace("?", "*")
    if choice == 2:
        return f"(?:{inner}|{draw(body)})"
    return draw(body)


@st.composite
def pattern_pairs(draw: st.DrawFn) -> tuple[str, str]:
    inner = draw(body)
    return "^" + widened(inner, draw) + "$", "^" + inner + "$"


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(pair=pattern_pairs(), data=st.data())
def test_every_included_verdict_holds_on_strings_the_guard_matches(pair: tuple[str, str], data: st.DataObject) -> None:
    outer, inner = pair
    verdict = pattern_includes(outer, inner)
    assume(verdict is True)
    # strings of the inner pattern (Python's reading), kept only where the guard's matcher agrees
    for text in data.draw(st.lists(st.from_regex(inner, fullmatch=True), min_size=1, max_size=8)):
        if pattern_matches(inner, text) is True:
            assert pattern_matches(outer, text) is True, (outer, inner, text)


def _shortest_string(fsm: Any) -> str | None:
    """A shortest string ``fsm`` accepts, found by a search over its states (greenery's ``strings()``
    searches over strings, one per character of each class: a difference whose shortest string is
    long took 23 GB and the OOM killer ended the test's worker). Only characters of classes that are
    not negated: the inner pattern has none, so no string of it holds a character outside them."""
    paths = {fsm.initial: ""}
    todo = collections.deque([fsm.initial])
    while todo:
        state = todo.popleft()
        if state in fsm.finals:
            return paths[state]
        for charclass, following in sorted(fsm.map.get(state, {}).items()):
            char = None if charclass.negated else next(iter(charclass.get_chars()), None)
            if char is not None and following not in paths:
                paths[following] = paths[state] + char
                todo.append(following)
    return None


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(pair=pattern_pairs())
def test_a_not_included_verdict_has_a_string_the_guard_tells_apart(pair: tuple[str, str]) -> None:
    """The verdicts are exact in the subset, both ways: a False is never a lost "included"."""
    outer, inner = pair
    assume(pattern_includes(outer, inner) is False)
    from greenery import parse

    inner_fsm, outer_fsm = parse(subset_body(inner)).to_fsm(), parse(subset_body(outer)).to_fsm()
    text = _shortest_string(inner_fsm.difference(outer_fsm))
    assert text is not None, ("included, but the verdict is False", outer, inner)
    assert pattern_matches(inner, text) is True and pattern_matches(outer, text) is False, (outer, inner, text)


@pytest.mark.parametrize(("outer", "inner"), [
    ("^[a-z0-9]+$", "^[a-z]+$"), ("^[0-9]{3}$", "^\\d{3}$"), ("^\\d{3}$", "^[0-9]{3}$"), ("^\\w+$", "^[a-c]+$"),
    ("^(?:ab|cd)x$", "^abx$"), ("^(?:ab)*$", "^(?:ab)+$"), ("^[a-c\\-]+$", "^-$"), ("^a/b\\.c$", "^a/b\\.c$"),
])
def test_known_inclusions(outer: str, inner: str) -> None:
    assert pattern_includes(outer, inner) is True


@pytest.mark.parametrize(("outer", "inner"), [("^[a-z]+$", "^[a-z0-9]+$"), ("^\\d{3}$", "^\\d{2,3}$")])
def test_known_non_inclusions(outer: str, inner: str) -> None:
    assert pattern_includes(outer, inner) is False


@pytest.mark.parametrize("pattern", [
    "[a-z]+",  # unanchored: a search, not a whole-string match
    "^[a-z]+", "^.+$", "^[^a]+$", "^\\s+$", "^\\bx$", "^(?=a)a$", "^(a)\\1$", "^a+?$", "^(a+)+$",
    "^(?:a|ab)*$", "^é$", "^a|b$", "^a\\$", "^\\p{L}+$", "^\\u0041$",
])
def test_patterns_outside_the_subset_stay_undecided(pattern: str) -> None:
    assert pattern_includes(pattern, pattern) is None
    assert pattern_includes("^[a-z]+$", pattern) is None
