"""input-nullability-removed: an input that accepted null no longer does."""

from __future__ import annotations

from collections.abc import Iterator

from ...prover import Mutation
from ..model import Context, Direction, Hit, Level, Scope
from ..ruletools import admits_null, mentions_null
from ..structure import SchemaPair

ID = "input-nullability-removed"
LEVEL = Level.BREAKING
SUMMARY = "An input no longer accepts null."
DIRECTION = Direction.INPUT
SCOPE = Scope.SCHEMA
WITNESS = True


def check(pair: SchemaPair, context: Context) -> Iterator[Hit]:
    """Callers that send null (often to mean "not set") are rejected."""
    if not pair.both or not mentions_null(pair.old) or not admits_null(pair.old) or admits_null(pair.new):
        return
    yield Hit(keywords=("type", "enum", "const"), message="no longer accepts null", mutations=(Mutation(pair.steps, "set", None),))
