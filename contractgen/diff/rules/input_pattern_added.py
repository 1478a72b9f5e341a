"""input-pattern-added: an input string now has to match a pattern."""

from __future__ import annotations

from collections.abc import Iterator

from ...prover import Mutation
from ..model import Context, Direction, Hit, Level, Scope
from ..ruletools import show
from ..structure import SchemaPair
from ._strings import string_candidates

ID = "input-pattern-added"
LEVEL = Level.BREAKING
SUMMARY = "An input string gained a pattern."
DIRECTION = Direction.INPUT
SCOPE = Scope.SCHEMA
WITNESS = True


def check(pair: SchemaPair, context: Context) -> Iterator[Hit]:
    """Strings that do not match the new pattern used to be valid and are now rejected."""
    if not pair.both or not pair.changed("pattern") or "pattern" in (pair.old or {}) or "pattern" not in (pair.new or {}):
        return
    assert pair.old is not None and pair.new is not None
    yield Hit(keywords=("pattern",), message=f"pattern {show(pair.new['pattern'])} added",
              mutations=tuple(Mutation(pair.steps, "set", v) for v in string_candidates(pair.old)))
