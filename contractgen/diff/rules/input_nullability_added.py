"""input-nullability-added: an input now also accepts null."""

from __future__ import annotations

from collections.abc import Iterator

from ..model import Context, Direction, Hit, Level, Scope
from ..ruletools import admits_null, mentions_null
from ..structure import SchemaPair

ID = "input-nullability-added"
LEVEL = Level.SAFE
SUMMARY = "An input now accepts null."
DIRECTION = Direction.INPUT
SCOPE = Scope.SCHEMA


def check(pair: SchemaPair, context: Context) -> Iterator[Hit]:
    """Accepting one more value never rejects an old call."""
    if pair.both and mentions_null(pair.new) and admits_null(pair.new) and not admits_null(pair.old):
        yield Hit(keywords=("type", "enum", "const"), message="now also accepts null")
