"""output-keyword-changed: an output keyword no specific rule covers changed."""

from __future__ import annotations

from collections.abc import Iterator

from ..coverage import unhandled
from ..model import Context, Direction, Hit, Level, Scope
from ..structure import SchemaPair

ID = "output-keyword-changed"
LEVEL = Level.DANGEROUS
SUMMARY = "An output keyword no rule understands changed (bounds, lengths, pattern, branches, ...): review it."
DIRECTION = Direction.OUTPUT
SCOPE = Scope.SCHEMA


def check(pair: SchemaPair, context: Context) -> Iterator[Hit]:
    """Outputs break consumers when they widen; a changed constraint may let through values consumers
    never saw (a longer string, a larger number, a new branch). Review it, then acknowledge the
    finding by fingerprint."""
    keywords = unhandled(pair)
    if keywords:
        yield Hit(f"changed {', '.join(keywords)}")
