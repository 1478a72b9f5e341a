"""input-min-items-raised: an input's minItems was raised."""

from __future__ import annotations

from collections.abc import Iterator

from ...prover import Mutation
from ..model import Context, Direction, Hit, Level, Scope
from ..ruletools import int_limit
from ..structure import SchemaPair
from ._lengths import arrays_of_lengths

ID = "input-min-items-raised"
LEVEL = Level.BREAKING
SUMMARY = "An input's minItems was raised (or added)."
DIRECTION = Direction.INPUT
SCOPE = Scope.SCHEMA
WITNESS = True


def check(pair: SchemaPair, context: Context) -> Iterator[Hit]:
    """Arrays with fewer items than the new minimum used to be valid and are now rejected."""
    if not pair.both or not pair.changed("minItems"):
        return
    assert pair.old is not None
    old, new = int_limit(pair.old, "minItems"), int_limit(pair.new, "minItems")
    if new is None or not (new > (old or 0)):
        return
    values = arrays_of_lengths(pair.old, range(max(new - 2, old or 0), new))
    yield Hit(keywords=("minItems",), message=f"minItems raised from {old if old is not None else 'none'} to {new}",
              mutations=tuple(Mutation(pair.steps, "set", v) for v in values), probe_path=pair.steps)
