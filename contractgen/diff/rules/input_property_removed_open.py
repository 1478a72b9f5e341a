"""input-property-removed-open: an input property was removed from an open object."""

from __future__ import annotations

from collections.abc import Iterator

from ..model import Context, Direction, Hit, Level, Scope
from ..ruletools import property_name
from ..structure import SchemaPair
from ._closed import rejects_extra

ID = "input-property-removed-open"
LEVEL = Level.DANGEROUS
SUMMARY = "An input property was removed from an open object: still accepted, but no longer declared."
DIRECTION = Direction.INPUT
SCOPE = Scope.SCHEMA


def check(pair: SchemaPair, context: Context) -> Iterator[Hit]:
    """The object accepts unknown properties, so calls that send the removed property still validate,
    but the tool presumably ignores it now: callers silently lose whatever it controlled."""
    if pair.old is None or pair.new is not None or pair.parent is None or pair.parent.new is None:
        return
    name = property_name(pair)
    if rejects_extra(pair.parent.new, name):
        return
    yield Hit(f"input property '{name}' was removed; the object is open, so it is still accepted but "
              "no longer declared (and likely ignored)", source=pair.old.source, side="old")
