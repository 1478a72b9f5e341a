"""input-unique-items-added: an input array now requires distinct items."""

from __future__ import annotations

from collections.abc import Iterator

from ...prover import Mutation
from ..model import Context, Direction, Hit, Level, Scope
from ..structure import SchemaPair
from ._lengths import arrays_of_lengths

ID = "input-unique-items-added"
LEVEL = Level.BREAKING
SUMMARY = "An input array now requires unique items."
DIRECTION = Direction.INPUT
SCOPE = Scope.SCHEMA
WITNESS = True


def check(pair: SchemaPair, context: Context) -> Iterator[Hit]:
    """Arrays with a repeated item used to be valid and are now rejected."""
    if "array" not in pair.shared_types or not pair.changed("uniqueItems"):
        return
    assert pair.old is not None and pair.new is not None
    if pair.old.get("uniqueItems") is True or pair.new.get("uniqueItems") is not True:
        return
    minimum = max(2, pair.old.get("minItems", 0) if isinstance(pair.old.get("minItems"), int) else 2)
    values = [v for v in arrays_of_lengths(pair.old, [minimum, 2]) if len(v) >= 2 and v[0] == v[1]]
    yield Hit(keywords=("uniqueItems",), message="uniqueItems added: arrays with repeated items are rejected",
              mutations=tuple(Mutation(pair.steps, "set", v) for v in values))
