"""tool-added: a new tool (or a new version line of a tool) appeared."""

from __future__ import annotations

from collections.abc import Iterator

from ..model import Context, Direction, Hit, Level, Scope
from ..structure import ToolChange

ID = "tool-added"
LEVEL = Level.SAFE
SUMMARY = "A tool was added."
DIRECTION = Direction.CONTRACT
SCOPE = Scope.TOOL


def check(change: ToolChange, context: Context) -> Iterator[Hit]:
    """Nobody calls a tool that did not exist, so adding one breaks no caller."""
    if change.old is None and change.new is not None:
        yield Hit(f"tool {change.new.name} {change.new.version} was added", pointer="", source="/name",
                  side="new")
