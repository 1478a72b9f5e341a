"""tool-removed-after-sunset: a deprecated tool version was removed after its announced sunset."""

from __future__ import annotations

from collections.abc import Iterator

from ..model import Context, Direction, Hit, Level, Scope
from ..structure import ToolChange
from ._sunset import sunset_passed

ID = "tool-removed-after-sunset"
LEVEL = Level.SAFE
SUMMARY = "A deprecated tool version was removed after its sunset date."
DIRECTION = Direction.CONTRACT
SCOPE = Scope.TOOL


def check(change: ToolChange, context: Context) -> Iterator[Hit]:
    """Callers were told when the version would go away and what replaces it; removing it on schedule
    is the end of a completed deprecation, not a surprise."""
    old = change.old
    if old is None or not sunset_passed(old, context):
        return
    if change.new is not None and change.new.name == old.name:
        return
    deprecation = old.contract.deprecation
    assert deprecation is not None
    replacement = f"; replacement: {deprecation.replacement}" if deprecation.replacement else ""
    yield Hit(f"{old.name} {old.version} removed after its sunset {deprecation.sunset}{replacement}",
              pointer="", source="/deprecated/sunset", side="old")
