"""input-type-narrowed: an input position accepts fewer JSON types."""

from __future__ import annotations

from collections.abc import Iterator

from ...prover import NOTHING, Mutation, of_type
from ..model import Context, Direction, Hit, Level, Scope
from ..ruletools import described_types, mentions_null, removed_types, sample
from ..structure import SchemaPair

ID = "input-type-narrowed"
LEVEL = Level.BREAKING
SUMMARY = "An input's type was narrowed (e.g. number -> integer, [string, integer] -> string)."
DIRECTION = Direction.INPUT
SCOPE = Scope.SCHEMA
WITNESS = True


def check(pair: SchemaPair, context: Context) -> Iterator[Hit]:
    """Callers sending a value of a type the new schema dropped are rejected. Widening is the safe
    direction for inputs (integer -> number accepts everything it did before)."""
    if not pair.both or not pair.changed("type"):
        return
    removed = removed_types(pair.old, pair.new)
    if mentions_null(pair.old):  # reported by input-nullability-removed
        removed = [t for t in removed if t != "null"]
    if not removed:
        return
    values = []
    for json_type in removed:
        for value in (sample(pair.old, type=[json_type]), of_type({}, json_type)):
            if value is not NOTHING:
                values.append(value)
    yield Hit(keywords=("type",), message=f"type narrowed from {described_types(pair.old)} to {described_types(pair.new)} "
              f"(no longer accepted: {', '.join(removed)})",
              mutations=tuple(Mutation(pair.steps, "set", v) for v in values), probe_path=pair.steps)
