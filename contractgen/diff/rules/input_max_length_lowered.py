"""input-max-length-lowered: an input's maxLength was lowered."""

from __future__ import annotations

from collections.abc import Iterator

from ...prover import Mutation
from ..model import Context, Direction, Hit, Level, Scope
from ..ruletools import int_limit
from ..structure import SchemaPair
from ._lengths import strings_of_lengths

ID = "input-max-length-lowered"
LEVEL = Level.BREAKING
SUMMARY = "An input's maxLength was lowered (or added)."
DIRECTION = Direction.INPUT
SCOPE = Scope.SCHEMA
WITNESS = True


def check(pair: SchemaPair, context: Context) -> Iterator[Hit]:
    """Strings longer than the new maximum used to be valid and are now rejected."""
    if not pair.both or not pair.changed("maxLength"):
        return
    assert pair.old is not None
    old, new = int_limit(pair.old, "maxLength"), int_limit(pair.new, "maxLength")
    if new is None or not (old is None or new < old):
        return
    values = strings_of_lengths(pair.old, [new + 1, *([old] if old is not None else []), new + 2])
    yield Hit(keywords=("maxLength",), message=f"maxLength lowered from {old if old is not None else 'none'} to {new}",
              mutations=tuple(Mutation(pair.steps, "set", v) for v in values), probe_path=pair.steps)
