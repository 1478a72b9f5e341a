"""timeout-decreased: calls get less time before they fail with TIMEOUT."""

from __future__ import annotations

from collections.abc import Iterator

from ..model import Context, Direction, Hit, Level, Scope
from ..structure import ToolPair

ID = "timeout-decreased"
LEVEL = Level.DANGEROUS
SUMMARY = "The call timeout was decreased (or a deadline was added)."
DIRECTION = Direction.CONTRACT
SCOPE = Scope.CONTRACT


def check(pair: ToolPair, context: Context) -> Iterator[Hit]:
    """Calls that finished between the new and the old deadline now fail with TIMEOUT; callers that
    budgeted for the old deadline see new failures."""
    old, new = pair.old.contract.timeout.seconds, pair.new.contract.timeout.seconds
    if new is not None and (old is None or new < old):
        before = "no deadline" if old is None else f"{old:g} s"
        yield Hit(f"timeout decreased from {before} to {new:g} s", pointer="/timeout/seconds",
                  source="/timeout/seconds")
