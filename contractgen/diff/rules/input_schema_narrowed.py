"""input-schema-narrowed: the semantic backstop proved a change no specific rule covers narrows an input."""

from __future__ import annotations

from typing import Iterator

from ..model import Context, Direction, Hit, Level, Mutation, Scope
from ..structure import SchemaPair

from ..coverage import semantic_verdict, unhandled

ID = "input-schema-narrowed"
LEVEL = Level.BREAKING
SUMMARY = "A change no specific rule covers (multipleOf, not, if/then, ...) rejects inputs the old schema accepted."
DIRECTION = Direction.INPUT
SCOPE = Scope.SCHEMA
WITNESS = True


def check(pair: SchemaPair, context: Context) -> Iterator[Hit]:
    """jsonschema-rs's schema algebra (or a probe value) found values the old schema accepted at this
    position and the new one rejects; callers sending such values now fail."""
    keywords = unhandled(pair)
    if not keywords:
        return
    verdict, value = semantic_verdict(pair)
    if verdict != "narrowed":
        return
    yield Hit(f"changed {', '.join(keywords)} rejects values the old schema accepted",
              mutations=(Mutation(pair.steps, "set", value),), probe_path=pair.steps)
