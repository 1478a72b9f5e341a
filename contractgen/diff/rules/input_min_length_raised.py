"""input-min-length-raised: an input's minLength was raised."""

from __future__ import annotations

from collections.abc import Iterator

from ...prover import Mutation
from ..model import Context, Direction, Hit, Level, Scope
from ..ruletools import int_limit
from ..structure import SchemaPair
from ._lengths import strings_of_lengths

ID = "input-min-length-raised"
LEVEL = Level.BREAKING
SUMMARY = "An input's minLength was raised (or added)."
DIRECTION = Direction.INPUT
SCOPE = Scope.SCHEMA
WITNESS = True


def check(pair: SchemaPair, context: Context) -> Iterator[Hit]:
    """Strings shorter than the new minimum used to be valid and are now rejected."""
    if not pair.both or not pair.changed("minLength"):
        return
    assert pair.old is not None
    old, new = int_limit(pair.old, "minLength"), int_limit(pair.new, "minLength")
    if new is None or not (new > (old or 0)):
        return
    values = strings_of_lengths(pair.old, range(max(new - 2, old or 0), new))
    yield Hit(keywords=("minLength",), message=f"minLength raised from {old if old is not None else 'none'} to {new}",
              mutations=tuple(Mutation(pair.steps, "set", v) for v in values), probe_path=pair.steps)
