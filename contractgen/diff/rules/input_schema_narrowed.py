"""input-schema-narrowed: the proof found inputs the old schema accepted and the new one rejects."""

from __future__ import annotations

from collections.abc import Iterator

from ..coverage import proven_difference, what_changed
from ..model import Context, Direction, Hit, Level, Scope
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
    position and the new one rejects (found by the containment proof and checked with jsonschema)
    proves that callers sending it now fail, whatever keyword caused it."""
    found = proven_difference(pair, context)
    if found is not None:
        keywords, mutation = found
        yield Hit(f"{what_changed(pair, keywords)} rejects values the old schema accepted", keywords=keywords, mutations=(mutation,),
                  probe_path=mutation.path)
