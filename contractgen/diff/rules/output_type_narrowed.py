"""output-type-narrowed: an output position holds fewer JSON types."""

from __future__ import annotations

from collections.abc import Iterator

from ..model import Context, Direction, Hit, Level, Scope
from ..ruletools import described_types, removed_types
from ..structure import SchemaPair

ID = "output-type-narrowed"
LEVEL = Level.SAFE
SUMMARY = "An output's type was narrowed."
DIRECTION = Direction.OUTPUT
SCOPE = Scope.SCHEMA


def check(pair: SchemaPair, context: Context) -> Iterator[Hit]:
    """Consumers handle a superset of what they now receive."""
    if not pair.both or not pair.changed("type"):
        return
    removed = [t for t in removed_types(pair.old, pair.new) if t != "null"]
    if removed:
        yield Hit(keywords=("type",), message=f"type narrowed from {described_types(pair.old)} to {described_types(pair.new)}")
