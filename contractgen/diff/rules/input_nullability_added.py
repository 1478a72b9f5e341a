"""input-nullability-added: an input now also accepts null."""

from __future__ import annotations

from typing import Iterator

from ..model import Context, Direction, Hit, Level, Mutation, Scope
from ..structure import SchemaPair

from ..ruletools import admits_null, mentions_null

ID = "input-nullability-added"
LEVEL = Level.SAFE
SUMMARY = "An input now accepts null."
DIRECTION = Direction.INPUT
SCOPE = Scope.SCHEMA


def check(pair: SchemaPair, context: Context) -> Iterator[Hit]:
    """Accepting one more value never rejects an old call."""
    if pair.both and mentions_null(pair.new) and admits_null(pair.new) and not admits_null(pair.old):
        yield Hit("now also accepts null")
