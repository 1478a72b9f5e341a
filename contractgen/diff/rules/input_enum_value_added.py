"""input-enum-value-added: an input enum gained values."""

from __future__ import annotations

from collections.abc import Iterator

from ..model import Context, Direction, Hit, Level, Scope
from ..normalize import value_key
from ..ruletools import show
from ..structure import SchemaPair

ID = "input-enum-value-added"
LEVEL = Level.SAFE
SUMMARY = "An input enum value was added."
DIRECTION = Direction.INPUT
SCOPE = Scope.SCHEMA


def check(pair: SchemaPair, context: Context) -> Iterator[Hit]:
    """Every value callers sent before is still accepted."""
    if not pair.both or not pair.changed("enum"):
        return
    assert pair.old is not None and pair.new is not None
    if "enum" not in pair.old or "enum" not in pair.new:
        return
    old_keys = {value_key(v) for v in pair.old["enum"]}
    added = [v for v in pair.new["enum"] if value_key(v) not in old_keys]
    if added:
        yield Hit(keywords=("enum",), message=f"enum values added: {', '.join(show(v) for v in added)}")
