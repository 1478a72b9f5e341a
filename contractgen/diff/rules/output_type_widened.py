"""output-type-widened: an output position may hold more JSON types."""

from __future__ import annotations

from collections.abc import Iterator

from ..model import Context, Direction, Hit, Level, Scope
from ..ruletools import described_types, removed_types
from ..structure import SchemaPair

ID = "output-type-widened"
LEVEL = Level.BREAKING
SUMMARY = "An output's type was widened: consumers get values of a type they do not handle."
DIRECTION = Direction.OUTPUT
SCOPE = Scope.SCHEMA
WITNESS = True


def check(pair: SchemaPair, context: Context) -> Iterator[Hit]:
    """Outputs are covariant: consumers were written for the old types and break on a new one (an
    integer field that can now be 2.5, a string that can now be an object)."""
    if not pair.both or not pair.changed("type"):
        return
    added = [t for t in removed_types(pair.new, pair.old) if t != "null"]
    if added:
        yield Hit(keywords=("type",), message=f"type widened from {described_types(pair.old)} to {described_types(pair.new)} "
                  f"(new: {', '.join(added)})")
