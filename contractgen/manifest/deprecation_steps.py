"""A deprecated version learns its migration steps from its replacement's ``migrations``.

The steps live where the author writes them, in the replacement's manifest (``from: ">=1,<2"``);
the deprecated version's contract carries the ones that cover it, so that a call to it can be told
how to move (``runtime/deprecation_notice.py``) without the runtime reading other manifests.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from ..ir import ToolVersion
from ..runtime.versions import migration_steps


def with_migration_steps(tools: Sequence[ToolVersion]) -> list[ToolVersion]:
    """``tools`` (sorted by name and version), each deprecated one with the steps of its replacement
    (a version of the same tool) that cover its version."""
    by_name: dict[str, list[ToolVersion]] = {}
    for tool in tools:
        by_name.setdefault(tool.name, []).append(tool)
    return [_with_steps(tool, by_name.get(tool.name, [])) for tool in tools]


def _with_steps(tool: ToolVersion, versions: list[ToolVersion]) -> ToolVersion:
    deprecation = tool.contract.deprecation
    if deprecation is None or not deprecation.replacement:
        return tool
    parts = deprecation.replacement.split()
    if parts[0] != tool.name:
        return tool  # another tool's migrations speak of that tool's versions
    target = next((v for v in reversed(versions) if len(parts) == 1 or v.version == parts[1]), None)
    if target is None or target is tool:
        return tool  # check reports a replacement that does not exist
    steps = tuple(
        step
        for m in target.contract.migrations
        if _covers(m.from_versions, tool.version)
        for step in migration_steps(m)
    )
    if not steps:
        return tool
    contract = dataclasses.replace(
        tool.contract, deprecation=dataclasses.replace(deprecation, migration=steps)
    )
    return dataclasses.replace(tool, contract=contract)


def _covers(specifier: str, version: str) -> bool:
    try:
        return SpecifierSet(specifier).contains(Version(version), prereleases=True)
    except (InvalidSpecifier, InvalidVersion):
        return False  # check reports it


__all__ = ["with_migration_steps"]
