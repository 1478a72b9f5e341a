"""output-nullability-added: an output position may now be null."""

from __future__ import annotations

from collections.abc import Iterator

from ..model import Context, Direction, Hit, Level, Scope
from ..ruletools import admits_null
from ..structure import SchemaPair

ID = "output-nullability-added"
LEVEL = Level.BREAKING
SUMMARY = "An output may now be null."
DIRECTION = Direction.OUTPUT
SCOPE = Scope.SCHEMA
WITNESS = True


def check(pair: SchemaPair, context: Context) -> Iterator[Hit]:
    """Consumers dereference the value without a null check; a null result crashes them."""
    if pair.both and admits_null(pair.new) and not admits_null(pair.old):
        yield Hit(keywords=("type", "enum"), message="may now be null")
