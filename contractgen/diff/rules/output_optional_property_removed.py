"""output-optional-property-removed: an optional output property is gone."""

from __future__ import annotations

from collections.abc import Iterator

from ..model import Context, Direction, Hit, Level, Scope
from ..ruletools import property_name
from ..structure import SchemaPair

ID = "output-optional-property-removed"
LEVEL = Level.DANGEROUS
STRICT_LEVEL = Level.BREAKING
SUMMARY = "An optional output property was removed."
DIRECTION = Direction.OUTPUT
SCOPE = Scope.SCHEMA
WITNESS = True


def check(pair: SchemaPair, context: Context) -> Iterator[Hit]:
    """Consumers had to cope with its absence, so nothing fails to parse, but whatever they did with
    the value when it was present silently stops happening."""
    if pair.old is None or pair.new is not None or pair.old_required or pair.parent is None:
        return
    yield Hit(f"optional output property '{property_name(pair)}' was removed", source=pair.old.source, side="old")
