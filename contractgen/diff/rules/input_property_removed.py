"""input-property-removed: an input property was removed and the object no longer accepts it."""

from __future__ import annotations

from collections.abc import Iterator

from ...prover import Mutation
from ..model import Context, Direction, Hit, Level, Scope
from ..ruletools import property_name, samples
from ..structure import SchemaPair
from ._closed import rejects_extra

ID = "input-property-removed"
LEVEL = Level.BREAKING
SUMMARY = "An input property was removed from a closed object: callers that send it are rejected."
DIRECTION = Direction.INPUT
SCOPE = Scope.SCHEMA
WITNESS = True


def check(pair: SchemaPair, context: Context) -> Iterator[Hit]:
    """With additionalProperties: false, an argument the schema does not declare is an error, so every
    caller that still sends the removed property fails. List it in a migration (renamed/removed) and
    bump the major version, or keep accepting it for a while."""
    if pair.old is None or pair.new is not None or pair.parent is None or pair.parent.new is None:
        return
    name = property_name(pair)
    if not rejects_extra(pair.parent.new, name):
        return
    yield Hit(f"input property '{name}' was removed and the object is closed: callers that send it are rejected",
              source=pair.old.source, side="old",
              mutations=tuple(Mutation(pair.steps, "set", v) for v in samples(pair.old)), probe_path=pair.steps)
