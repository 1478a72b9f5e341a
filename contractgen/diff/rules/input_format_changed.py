"""input-format-changed: an input string's format was replaced."""

from __future__ import annotations

from collections.abc import Iterator

from ...prover import Mutation, format_gap, format_includes, unconfirmed_format_gap
from ..model import Context, Direction, Hit, Level, Scope
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
    date-time), so callers sending the old shape are rejected where formats are asserted. A format
    that contains the old one (email -> idn-email, hostname -> idn-hostname, uri -> iri) accepts
    every string the old one did: a widening, reported as INFO; the reverse refuses the texts only
    the wider format admits (a non-ASCII address), shown as the witness."""
    if not pair.both or not pair.changed("format"):
        return
    assert pair.old is not None and pair.new is not None
    if "format" not in pair.old or "format" not in pair.new:
        return
    old, new = pair.old["format"], pair.new["format"]
    changed = f"format changed from {show(old)} to {show(new)}"
    if format_includes(new, old):
        yield Hit(keywords=("format",), level=Level.SAFE,
                  message=f"{changed}, which accepts every {old} (a widening: nothing callers sent is refused)")
        return
    candidates = [*format_gap(new, old), *string_candidates(pair.old, breakers=True)]
    yield Hit(keywords=("format",), message=changed,
              mutations=tuple(Mutation(pair.steps, "set", v) for v in candidates),
              witness_hint=(unconfirmed_format_gap(new, old) if format_includes(old, new) else None) or format_hint(new))
