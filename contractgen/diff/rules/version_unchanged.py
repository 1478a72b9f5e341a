"""version-unchanged: the contract changed but kept its version."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..model import Context, Direction, Finding, Hit, Level, Scope
from ..structure import ToolPair
from ._versions import content_key, parse

ID = "version-unchanged"
LEVEL = Level.BREAKING
SUMMARY = "The contract changed but its version did not."
DIRECTION = Direction.CONTRACT
SCOPE = Scope.GATE


def check(pair: ToolPair, findings: Sequence[Finding], context: Context) -> Iterator[Hit]:
    """Two different contracts under one version number cannot be told apart by clients, generated
    code or the version check: bump at least the patch version for any change."""
    old, new = parse(pair.old.version), parse(pair.new.version)
    if old is None or new is None or old != new:
        return
    if content_key(pair.old) != content_key(pair.new):
        yield Hit(f"the contract changed but the version stayed {pair.new.version}", pointer="/version",
                  source="/version")
