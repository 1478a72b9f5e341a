"""input-default-changed: an input's default value was added, changed or removed."""

from __future__ import annotations

from collections.abc import Iterator

from ..model import Context, Direction, Hit, Level, Scope
from ..ruletools import show
from ..structure import SchemaPair

ID = "input-default-changed"
LEVEL = Level.DANGEROUS
SUMMARY = "An input's default changed: callers that omit it get different behaviour."
DIRECTION = Direction.INPUT
SCOPE = Scope.SCHEMA


def check(pair: SchemaPair, context: Context) -> Iterator[Hit]:
    """Every call still validates, but callers that leave the property out silently get the new
    behaviour. Say so in the description and the changelog."""
    if not pair.both or not pair.changed("default"):
        return
    assert pair.old is not None and pair.new is not None
    old = show(pair.old["default"]) if "default" in pair.old else "none"
    new = show(pair.new["default"]) if "default" in pair.new else "none"
    yield Hit(keywords=("default",), message=f"default changed from {old} to {new}")
