"""output-property-removed: a property the output always had is gone."""

from __future__ import annotations

from collections.abc import Iterator

from ..model import Context, Direction, Hit, Level, Scope
from ..ruletools import property_name
from ..structure import SchemaPair

ID = "output-property-removed"
LEVEL = Level.BREAKING
SUMMARY = "A required output property was removed."
DIRECTION = Direction.OUTPUT
SCOPE = Scope.SCHEMA
WITNESS = True


def check(pair: SchemaPair, context: Context) -> Iterator[Hit]:
    """Consumers (code and models) read the property from every result; now it is missing and their
    parsing or reasoning fails."""
    if pair.old is None or pair.new is not None or not pair.old_required:
        return
    name = property_name(pair)
    if pair.new_required:
        # the name is still required, so still sent: only its declaration (what it may hold) went away
        yield Hit(f"required output property '{name}' lost its declaration: it is still required, so still "
                  "sent, but its value may now be anything the new object allows for undeclared names",
                  source=pair.old.source, side="old")
        return
    yield Hit(f"required output property '{name}' was removed", source=pair.old.source, side="old")
