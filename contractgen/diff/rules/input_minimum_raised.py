"""input-minimum-raised: an input's lower bound (minimum or exclusiveMinimum) was raised or added."""

from __future__ import annotations

from collections.abc import Iterator

from ...prover import Mutation, numbers_near
from ..model import Context, Direction, Hit, Level, Scope
from ..ruletools import lower_bound, lower_is_tighter, lower_text
from ..structure import SchemaPair

ID = "input-minimum-raised"
LEVEL = Level.BREAKING
SUMMARY = "An input's minimum or exclusiveMinimum was raised (or added)."
DIRECTION = Direction.INPUT
SCOPE = Scope.SCHEMA
WITNESS = True


def check(pair: SchemaPair, context: Context) -> Iterator[Hit]:
    """Numbers between the old and the new lower bound used to be valid and are now rejected."""
    if not pair.both or not (pair.changed("minimum") or pair.changed("exclusiveMinimum")):
        return
    old, new = lower_bound(pair.old), lower_bound(pair.new)
    if not lower_is_tighter(new, old):
        return
    assert new is not None
    values = numbers_near(new.value, old.value if old else None)
    yield Hit(keywords=("exclusiveMinimum", "minimum"), message=f"lower bound raised from {lower_text(old)} to {lower_text(new)}",
              mutations=tuple(Mutation(pair.steps, "set", v) for v in values), probe_path=pair.steps)
