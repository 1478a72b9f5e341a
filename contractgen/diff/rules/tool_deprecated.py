"""tool-deprecated: a tool version was marked deprecated."""

from __future__ import annotations

from collections.abc import Iterator

from ..model import Context, Direction, Hit, Level, Scope
from ..structure import ToolPair

ID = "tool-deprecated"
LEVEL = Level.SAFE
SUMMARY = "A tool version was deprecated (with its sunset date and replacement)."
DIRECTION = Direction.CONTRACT
SCOPE = Scope.CONTRACT


def check(pair: ToolPair, context: Context) -> Iterator[Hit]:
    """Nothing breaks yet; callers are told to move before the sunset date."""
    old, new = pair.old.contract.deprecation, pair.new.contract.deprecation
    if new is None or old is not None:
        return
    sunset = f", sunset {new.sunset}" if new.sunset else " (no sunset date)"
    replacement = f", replacement: {new.replacement}" if new.replacement else ""
    yield Hit(f"deprecated{sunset}{replacement}", pointer="/deprecated", source="/deprecated")
