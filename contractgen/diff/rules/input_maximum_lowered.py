"""input-maximum-lowered: an input's upper bound (maximum or exclusiveMaximum) was lowered or added."""

from __future__ import annotations

from collections.abc import Iterator

from ...prover import Mutation, numbers_near
from ..model import Context, Direction, Hit, Level, Scope
from ..ruletools import upper_bound, upper_is_tighter, upper_text
from ..structure import SchemaPair

ID = "input-maximum-lowered"
LEVEL = Level.BREAKING
SUMMARY = "An input's maximum or exclusiveMaximum was lowered (or added)."
DIRECTION = Direction.INPUT
SCOPE = Scope.SCHEMA
WITNESS = True


def check(pair: SchemaPair, context: Context) -> Iterator[Hit]:
    """Numbers between the new and the old upper bound used to be valid and are now rejected."""
    if not pair.both or not (pair.changed("maximum") or pair.changed("exclusiveMaximum")):
        return
    old, new = upper_bound(pair.old), upper_bound(pair.new)
    if not upper_is_tighter(new, old):
        return
    assert new is not None
    values = numbers_near(new.value, old.value if old else None)
    yield Hit(keywords=("exclusiveMaximum", "maximum"), message=f"upper bound lowered from {upper_text(old)} to {upper_text(new)}",
              mutations=tuple(Mutation(pair.steps, "set", v) for v in values), probe_path=pair.steps)
