"""input-pattern-changed: an input string's pattern was replaced."""

from __future__ import annotations

from collections.abc import Iterator

from ...prover import Mutation
from ..model import Context, Direction, Hit, Level, Scope
from ..ruletools import show
from ..structure import SchemaPair
from ._strings import string_candidates

ID = "input-pattern-changed"
LEVEL = Level.BREAKING
SUMMARY = "An input string's pattern changed and rejects strings the old one accepted."
DIRECTION = Direction.INPUT
SCOPE = Scope.SCHEMA
WITNESS = True


def check(pair: SchemaPair, context: Context) -> Iterator[Hit]:
    """Strings that matched the old pattern but not the new one are rejected. (Whether one regular
    expression accepts everything another does is undecidable in general; the witness, when found,
    is the proof. When none is found, review the two patterns by hand.)"""
    if not pair.both or not pair.changed("pattern"):
        return
    assert pair.old is not None and pair.new is not None
    if "pattern" not in pair.old or "pattern" not in pair.new:
        return
    yield Hit(keywords=("pattern",), message=f"pattern changed from {show(pair.old['pattern'])} to {show(pair.new['pattern'])}",
              mutations=tuple(Mutation(pair.steps, "set", v) for v in string_candidates(pair.old)),
              witness_hint="no string built from the old pattern is rejected by the new one; "
                           "check whether the new pattern still accepts every old value")
