"""output-enum-value-added: an output enum gained values (or lost its enum)."""

from __future__ import annotations

from collections.abc import Iterator

from ..model import Context, Direction, Hit, Level, Scope
from ..normalize import value_key
from ..ruletools import show
from ..structure import SchemaPair

ID = "output-enum-value-added"
LEVEL = Level.BREAKING
SUMMARY = "An output enum value was added: exhaustive consumers meet a value they do not know."
DIRECTION = Direction.OUTPUT
SCOPE = Scope.SCHEMA
WITNESS = True


def check(pair: SchemaPair, context: Context) -> Iterator[Hit]:
    """Consumers that switch over the known values (generated Literal types, match statements, a
    model told what each value means) meet one they do not handle."""
    if not pair.both or not pair.changed("enum"):
        return
    assert pair.old is not None and pair.new is not None
    if "enum" not in pair.old:
        return
    if "enum" not in pair.new:
        yield Hit(keywords=("enum",), message=f"enum {show(pair.old['enum'])} removed: any value may be returned")
        return
    old_keys = {value_key(v) for v in pair.old["enum"]}
    added = [v for v in pair.new["enum"] if value_key(v) not in old_keys and v is not None]
    if added:
        yield Hit(keywords=("enum",), message=f"enum values added: {', '.join(show(v) for v in added)}")
