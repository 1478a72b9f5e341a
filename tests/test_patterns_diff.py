"""The diff reasons about patterns with the guard's semantics: every string it builds for a pattern is
one the guard's validator says the pattern matches, the minimum length it reads off a pattern is never
more than a matching string's, and which ``patternProperties`` govern a name is the validator's call.
(The golden cases ``input-pattern-changed--ecma`` and ``--ecma-undecided`` show a verified witness for a
change written in ECMA-only syntax and an honest "could not prove".)
"""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st
from pattern_support import ALPHABET, ecma_patterns

from contractgen.diff.reading import matches_pattern_property
from contractgen.prover.instances import verdict
from contractgen.prover.regex import python_spelling, regex_samples, shortest_match
from contractgen.runtime.patterns import is_valid_pattern, pattern_matches


@settings(max_examples=300, deadline=None)
@given(pattern=ecma_patterns())
def test_every_sample_is_a_match_for_the_guard(pattern: str) -> None:
    samples = regex_samples(pattern, 8)
    assert all(pattern_matches(pattern, s) is True for s in samples), (pattern, samples)
    if not is_valid_pattern(pattern):
        assert samples == [] and shortest_match(pattern) is None


@settings(max_examples=200, deadline=None)
@given(pattern=ecma_patterns())
def test_the_shortest_length_is_never_too_long(pattern: str) -> None:
    """A minimum length read off the pattern is one no shorter string meets (probed exhaustively
    over a small alphabet) and every sample meets."""
    shortest = shortest_match(pattern)
    if shortest is None:
        return
    for sample in regex_samples(pattern, 8):
        assert len(sample) >= shortest, (pattern, sample, shortest)
    short_alphabet = "aAZ0_-é \n😀"
    for length in range(min(shortest, 3)):
        for chars in itertools.product(short_alphabet, repeat=length):
            assert pattern_matches(pattern, "".join(chars)) is not True, (pattern, chars, shortest)


def test_ecma_only_syntax_is_spelled_for_sampling() -> None:
    assert regex_samples("^\\p{L}+$", 3) and regex_samples("^\\u{1F600}$", 1) == ["\U0001F600"]
    assert regex_samples("^(?<year>[0-9]{4})$", 1) and regex_samples("^\\cJ$", 1) == ["\n"]
    assert python_spelling("\\u{110000}") is None
    assert "abc\n" not in regex_samples("^[a-z]+$", 50)  # Python's $ would have let it through


@given(key=st.text(ALPHABET, min_size=1, max_size=3),
       pattern=st.sampled_from(["^\\W+$", "^\\D$", "^\\s+$", "^k\\S$", "^[a-z]+$", "\\p{L}"]))
def test_which_pattern_governs_a_name_is_the_validators_call(key: str, pattern: str) -> None:
    node = {"patternProperties": {pattern: {"type": "string"}}}
    assert matches_pattern_property(node, key) is pattern_matches(pattern, key)


def test_a_verdict_the_validator_cannot_judge_is_no_verdict() -> None:
    """A string the validator cannot read (a lone surrogate) decides nothing: no witness rests on it."""
    schema = {"type": "string", "pattern": "^a"}
    assert verdict(schema, "a\ud800") is None
    assert verdict(schema, "ab") is True and verdict(schema, "b") is False
