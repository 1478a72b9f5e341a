"""tool-renamed: a tool disappeared and another with the same schemas (or its named replacement) appeared."""

from __future__ import annotations

from collections.abc import Iterator

from ..model import Context, Direction, Hit, Level, Scope
from ..structure import ToolChange
from ._sunset import sunset_passed

ID = "tool-renamed"
LEVEL = Level.BREAKING
SUMMARY = "A tool was renamed: callers using the old name fail."
DIRECTION = Direction.CONTRACT
SCOPE = Scope.TOOL


def check(change: ToolChange, context: Context) -> Iterator[Hit]:
    """Models and clients call tools by name; a new name is a new tool to them, and calls under the
    old name fail. Keep the old name as a deprecated version with a sunset date, pointing at the new
    tool as its replacement."""
    old, new = change.old, change.new
    if old is None or new is None or old.name == new.name or sunset_passed(old, context):
        return
    yield Hit(f"tool {old.name} {old.version} was renamed to {new.name} {new.version}", pointer="",
              source="/name", side="new")
