"""error-removed: a declared error class disappeared."""

from __future__ import annotations

from collections.abc import Iterator

from ..model import Context, Direction, Hit, Level, Scope
from ..structure import ToolPair
from ._errors import indexed

ID = "error-removed"
LEVEL = Level.BREAKING
SUMMARY = "A declared error was removed."
DIRECTION = Direction.CONTRACT
SCOPE = Scope.CONTRACT


def check(pair: ToolPair, context: Context) -> Iterator[Hit]:
    """The generated typed error class disappears: caller code that imports it or catches it no longer
    compiles or type-checks, and handlers keyed on it silently stop running."""
    new = indexed(pair.new.contract.errors)
    for name, (index, error) in sorted(indexed(pair.old.contract.errors).items()):
        if name not in new:
            yield Hit(f"error {name} ({error.code}) was removed", pointer=f"/errors/{name}",
                      source=f"/errors/{index}", side="old")
