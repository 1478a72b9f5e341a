"""input-max-items-lowered: an input's maxItems was lowered."""

from __future__ import annotations

from collections.abc import Iterator

from ...prover import Mutation
from ..model import Context, Direction, Hit, Level, Scope
from ..ruletools import int_limit
from ..structure import SchemaPair
from ._lengths import arrays_of_lengths

ID = "input-max-items-lowered"
LEVEL = Level.BREAKING
SUMMARY = "An input's maxItems was lowered (or added)."
DIRECTION = Direction.INPUT
SCOPE = Scope.SCHEMA
WITNESS = True


def check(pair: SchemaPair, context: Context) -> Iterator[Hit]:
    """Arrays with more items than the new maximum used to be valid and are now rejected."""
    if not pair.both or not pair.changed("maxItems"):
        return
    assert pair.old is not None
    old, new = int_limit(pair.old, "maxItems"), int_limit(pair.new, "maxItems")
    if new is None or not (old is None or new < old):
        return
    values = arrays_of_lengths(pair.old, [new + 1, *([old] if old is not None else []), new + 2])
    yield Hit(keywords=("maxItems",), message=f"maxItems lowered from {old if old is not None else 'none'} to {new}",
              mutations=tuple(Mutation(pair.steps, "set", v) for v in values), probe_path=pair.steps)
