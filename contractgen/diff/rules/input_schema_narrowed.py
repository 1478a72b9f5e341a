"""input-schema-narrowed: the semantic backstop found inputs the old schema accepted and the new one rejects."""

from __future__ import annotations

from collections.abc import Iterator

from ..coverage import own_changes, semantic_verdict
from ..model import Context, Direction, Hit, Level, Mutation, Scope
from ..structure import SchemaPair

ID = "input-schema-narrowed"
LEVEL = Level.BREAKING
SUMMARY = "A change no specific rule reports (multipleOf, not, oneOf overlap, ...) rejects inputs the old schema accepted."
DIRECTION = Direction.INPUT
SCOPE = Scope.SCHEMA
WITNESS = True
BACKSTOP = True


def check(pair: SchemaPair, context: Context) -> Iterator[Hit]:
    """Runs last, only where no specific rule found a break: a value the old schema accepted at this
    position and the new one rejects (found with jsonschema-rs's schema algebra or by probing, and
    checked with jsonschema) proves that callers sending it now fail, whatever keyword caused it."""
    if not pair.both or context.is_covered(pair.pointer):
        return
    keywords = own_changes(pair)
    if not keywords:
        return
    verdict, value = semantic_verdict(pair, context.strict)
    if verdict != "narrowed":
        return
    yield Hit(f"changed {', '.join(keywords)} rejects values the old schema accepted",
              mutations=(Mutation(pair.steps, "set", value),), probe_path=pair.steps)
