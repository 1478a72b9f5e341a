"""output-property-added: the output gained a property."""

from __future__ import annotations

from collections.abc import Iterator

from ..model import Context, Direction, Hit, Level, Scope
from ..reading import describes
from ..ruletools import property_name
from ..structure import SchemaPair

ID = "output-property-added"
LEVEL = Level.SAFE
STRICT_LEVEL = Level.BREAKING
SUMMARY = "An output property was added."
DIRECTION = Direction.OUTPUT
SCOPE = Scope.SCHEMA
WITNESS = True


def check(pair: SchemaPair, context: Context) -> Iterator[Hit]:
    """Consumers ignore what they do not read. (A consumer validating results against a closed copy of
    the old schema would reject it; generated models ignore extra fields.)"""
    if pair.new is None or pair.old is not None or pair.parent is None or pair.parent.old is None:
        return
    if not context.strict and describes(pair.parent.old, property_name(pair)):
        return  # consumers read it through the old map or pattern: the proof reports any widening
    kind = "required" if pair.new_required else "optional"
    yield Hit(f"{kind} output property '{property_name(pair)}' was added", source=pair.new.source, side="new")
