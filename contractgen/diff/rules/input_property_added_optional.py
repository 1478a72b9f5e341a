"""input-property-added-optional: a new optional input property."""

from __future__ import annotations

from collections.abc import Iterator

from ..model import Context, Direction, Hit, Level, Scope
from ..reading import describes
from ..ruletools import property_name
from ..structure import SchemaPair
from ._closed import rejects_extra

ID = "input-property-added-optional"
LEVEL = Level.SAFE
STRICT_LEVEL = Level.BREAKING
SUMMARY = "A new optional input property was added (breaking under --strict when the object was open)."
DIRECTION = Direction.INPUT
SCOPE = Scope.SCHEMA
WITNESS = True


def check(pair: SchemaPair, context: Context) -> Iterator[Hit]:
    """Callers that do not know the property keep working, so this is safe by default. Under --strict
    (pure subset semantics) it breaks when the object was open: the old schema accepted any value
    under that name, and values the new property's schema rejects now fail."""
    if pair.old is not None or pair.new is None or pair.parent is None or pair.parent.old is None:
        return
    if pair.new_required:
        return
    name = property_name(pair)
    was_open = not rejects_extra(pair.parent.old, name)
    if context.strict and was_open:
        yield Hit(f"new optional input property '{name}' on an open object: under --strict, values of "
                  "other shapes that used to be accepted under this name are rejected",
                  source=pair.new.source, side="new", probe_path=pair.steps)
    elif not describes(pair.parent.old, name):
        # a name the old object described through additionalProperties/patternProperties was sent by
        # callers: not safe by default; the proof reports it (input-schema-narrowed) when values broke
        yield Hit(f"new optional input property '{name}'", source=pair.new.source, side="new",
                  level=Level.SAFE)
