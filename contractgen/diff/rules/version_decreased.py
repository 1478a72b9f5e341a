"""version-decreased: the new version number is lower than the old one."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..model import Context, Direction, Finding, Hit, Level, Scope
from ..structure import ToolPair
from ._versions import parse

ID = "version-decreased"
LEVEL = Level.BREAKING
SUMMARY = "The version went down."
DIRECTION = Direction.CONTRACT
SCOPE = Scope.GATE


def check(pair: ToolPair, findings: Sequence[Finding], context: Context) -> Iterator[Hit]:
    """Versions order releases: clients, caches and the VERSION_MISMATCH check assume a later contract
    has a higher number. A lower one makes old clients look newer than the server."""
    old, new = parse(pair.old.version), parse(pair.new.version)
    if old is not None and new is not None and new < old:
        yield Hit(f"version went down from {pair.old.version} to {pair.new.version}", pointer="/version",
                  source="/version")
