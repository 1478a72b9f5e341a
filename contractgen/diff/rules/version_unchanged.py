"""version-unchanged: the contract changed but kept its version."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence

from ...ir import ToolVersion
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
    code or the version check: bump at least the patch version for any change. Build metadata
    (``1.0.0+build.2``) is no new version: SemVer orders it equal to 1.0.0, and so do the check and
    the runtime."""
    old, new = parse(pair.old.version), parse(pair.new.version)
    if old is None or new is None or old != new:
        return
    if content_key(_without_version(pair.old)) != content_key(_without_version(pair.new)):
        build = "" if pair.old.version == pair.new.version else (
            f" ({pair.old.version} -> {pair.new.version} differs only in build metadata, which SemVer "
            "does not count; bump the patch version at least)")
        yield Hit(f"the contract changed but the version stayed {pair.new.version}{build}", pointer="/version",
                  source="/version")


def _without_version(tool: ToolVersion) -> ToolVersion:
    """The tool with its version text blanked: a new build label alone is no contract change."""
    return dataclasses.replace(tool, contract=dataclasses.replace(tool.contract, version=""))
