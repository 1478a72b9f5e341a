"""output-property-became-optional: a property the output always had may now be missing."""

from __future__ import annotations

from collections.abc import Iterator

from ...runtime.pointer import escape_token
from ..model import Context, Direction, Hit, Level, Scope
from ..structure import SchemaPair

ID = "output-property-became-optional"
LEVEL = Level.BREAKING
SUMMARY = "A required output property became optional."
DIRECTION = Direction.OUTPUT
SCOPE = Scope.SCHEMA
WITNESS = True


def check(pair: SchemaPair, context: Context) -> Iterator[Hit]:
    """Consumers read the property unconditionally; results without it now crash their parsing or
    mislead the model."""
    if "object" not in pair.shared_types or not pair.changed("required"):
        return
    assert pair.old is not None and pair.new is not None
    new_required = set(pair.new.get("required", ()))
    new_properties = pair.new.get("properties", {})
    for name in pair.old.get("required", ()):
        if name in new_required or name not in new_properties:
            continue
        yield Hit(f"output property '{name}' is no longer required: results may omit it",
                  pointer=f"{pair.pointer}/properties/{escape_token(name)}", source=new_properties[name].source, side="new")
