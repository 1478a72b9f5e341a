"""input-format-changed: an input string's format was replaced."""

from __future__ import annotations

from collections.abc import Iterator

from ..model import Context, Direction, Hit, Level, Mutation, Scope
from ..ruletools import show
from ..structure import SchemaPair
from ._formats import format_hint
from ._strings import string_candidates

ID = "input-format-changed"
LEVEL = Level.BREAKING
SUMMARY = "An input string's format changed."
DIRECTION = Direction.INPUT
SCOPE = Scope.SCHEMA
WITNESS = True


def check(pair: SchemaPair, context: Context) -> Iterator[Hit]:
    """Strings valid in the old format are generally not valid in the new one (a date is not a
    date-time), so callers sending the old shape are rejected where formats are asserted."""
    if not pair.both or not pair.changed("format"):
        return
    assert pair.old is not None and pair.new is not None
    if "format" not in pair.old or "format" not in pair.new:
        return
    yield Hit(keywords=("format",), message=f"format changed from {show(pair.old['format'])} to {show(pair.new['format'])}",
              mutations=tuple(Mutation(pair.steps, "set", v) for v in string_candidates(pair.old, breakers=True)),
              witness_hint=format_hint(pair.new["format"]))
