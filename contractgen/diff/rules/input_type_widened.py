"""input-type-widened: an input position accepts more JSON types."""

from __future__ import annotations

from collections.abc import Iterator

from ..model import Context, Direction, Hit, Level, Scope
from ..ruletools import accepts_more, described_types, removed_types
from ..structure import SchemaPair

ID = "input-type-widened"
LEVEL = Level.SAFE
SUMMARY = "An input's type was widened (e.g. integer -> number)."
DIRECTION = Direction.INPUT
SCOPE = Scope.SCHEMA


def check(pair: SchemaPair, context: Context) -> Iterator[Hit]:
    """Everything callers sent before is still accepted. Reported only when a value of a newly
    allowed type is found that the new schema accepts and the old one refused (a type moved into
    ``allOf``, or a schema that became ``false``, widens nothing)."""
    if not pair.both or not pair.changed("type"):
        return
    added = [t for t in removed_types(pair.new, pair.old) if t != "null"]
    if added and accepts_more(pair):
        yield Hit(keywords=("type",), message=f"type widened from {described_types(pair.old)} to {described_types(pair.new)} "
                  f"(now also accepted: {', '.join(added)})")
