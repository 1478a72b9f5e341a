"""tool-removed: a tool (or one version line of it) disappeared."""

from __future__ import annotations

from collections.abc import Iterator

from ..model import Context, Direction, Hit, Level, Scope
from ..structure import ToolChange
from ._sunset import sunset_passed

ID = "tool-removed"
LEVEL = Level.BREAKING
SUMMARY = "A tool version was removed before its sunset date (or without being deprecated)."
DIRECTION = Direction.CONTRACT
SCOPE = Scope.TOOL


def check(change: ToolChange, context: Context) -> Iterator[Hit]:
    """Every caller of the removed version now gets "unknown tool" (or a version mismatch): agents and
    prompts written against it stop working at once. Deprecate the version with a sunset date, ship
    the replacement, and remove it only after the sunset (then this is tool-removed-after-sunset)."""
    old = change.old
    if old is None or change.new is not None or sunset_passed(old, context):
        return
    deprecation = old.contract.deprecation
    if change.other_versions:
        what = f"version {old.version} of {old.name} was removed (still present: {', '.join(change.other_versions)})"
    else:
        what = f"tool {old.name} {old.version} was removed"
    if deprecation is not None and deprecation.sunset:
        what += f"; it is deprecated but its sunset {deprecation.sunset} has not passed"
    elif deprecation is not None:
        what += "; it is deprecated but has no sunset date"
    yield Hit(what, pointer="", source="/name", side="old")
