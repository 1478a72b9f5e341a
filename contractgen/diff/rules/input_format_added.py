"""input-format-added: an input string gained a format."""

from __future__ import annotations

from collections.abc import Iterator

from ...prover import Mutation
from ..model import Context, Direction, Hit, Level, Scope
from ..ruletools import show
from ..structure import SchemaPair
from ._formats import format_hint
from ._strings import string_candidates

ID = "input-format-added"
LEVEL = Level.BREAKING
SUMMARY = "An input string gained a format (date-time, email, uuid, ...)."
DIRECTION = Direction.INPUT
SCOPE = Scope.SCHEMA
WITNESS = True


def check(pair: SchemaPair, context: Context) -> Iterator[Hit]:
    """Validators that assert formats (the runtime guard, many servers) reject strings that do not
    have the new format, which used to be accepted."""
    if not pair.both or not pair.changed("format") or "format" in (pair.old or {}) or "format" not in (pair.new or {}):
        return
    assert pair.old is not None and pair.new is not None
    yield Hit(keywords=("format",), message=f"format {show(pair.new['format'])} added",
              mutations=tuple(Mutation(pair.steps, "set", v) for v in string_candidates(pair.old, breakers=True)),
              witness_hint=format_hint(pair.new["format"]))
