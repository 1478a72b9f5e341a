"""Which tool versions to compare: across two trees, two single files, or consecutive versions in one tree."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import pairwise

from ..ir import ContractSet, ToolVersion
from ..manifest.semver import sort_key
from .normalize import Normalizer, canonical
from .structure import ToolChange, ToolPair


def _key(tool: ToolVersion) -> tuple[int, object]:
    """SemVer precedence: 1.9.0 before 1.10.0, and 1.0.0+build.2 the same version as 1.0.0."""
    return sort_key(tool.version)


def pair_files(old: ContractSet, new: ContractSet) -> tuple[list[ToolPair], list[ToolChange]]:
    """Two single manifests: compare them directly, whatever their names (a new name is a rename)."""
    if len(old.tools) == 1 and len(new.tools) == 1:
        a, b = old.tools[0], new.tools[0]
        if a.name == b.name:
            return [ToolPair(a, b)], []
        return [], [ToolChange(a, b)]
    return pair_trees(old, new)


def pair_trees(old: ContractSet, new: ContractSet) -> tuple[list[ToolPair], list[ToolChange]]:
    """Same version on both sides pairs with itself; a new version pairs with the closest old one below
    it (its predecessor); an old version nothing pairs with was removed."""
    old_by, new_by = old.by_name(), new.by_name()
    pairs: list[ToolPair] = []
    changes: list[ToolChange] = []
    for name in sorted(set(old_by) & set(new_by)):
        olds = sorted(old_by[name], key=_key)
        news = sorted(new_by[name], key=_key)
        used: set[str] = set()
        old_versions = {_key(t): t for t in olds}  # the same version, whatever build metadata it carries
        for tool in news:
            partner = old_versions.get(_key(tool)) or _predecessor(olds, tool) or olds[0]
            used.add(partner.version)
            pairs.append(ToolPair(partner, tool))
        remaining = tuple(t.version for t in news)
        for tool in olds:
            if tool.version not in used:
                changes.append(ToolChange(tool, None, other_versions=remaining))
    removed = {n: old_by[n] for n in sorted(set(old_by) - set(new_by))}
    added = {n: new_by[n] for n in sorted(set(new_by) - set(old_by))}
    for versions in removed.values():
        latest = max(versions, key=_key)
        target = _rename_target(latest, added)
        for tool in versions:
            if target is not None and tool is latest:
                changes.append(ToolChange(tool, target))
            else:
                changes.append(ToolChange(tool, None))
        if target is not None:
            added[target.name] = tuple(t for t in added[target.name] if t is not target)
    for versions in added.values():
        changes.extend(ToolChange(None, tool) for tool in versions)
    return pairs, changes


def pair_versions(tree: ContractSet) -> tuple[list[ToolPair], list[ToolChange]]:
    """Versions side by side in one tree: each consecutive pair of one tool's versions."""
    pairs: list[ToolPair] = []
    for versions in tree.by_name().values():
        ordered = sorted(versions, key=_key)
        pairs.extend(ToolPair(a, b) for a, b in pairwise(ordered))
    return pairs, []


def _predecessor(olds: Iterable[ToolVersion], tool: ToolVersion) -> ToolVersion | None:
    below = [t for t in olds if _key(t) < _key(tool)]
    return below[-1] if below else None


def _rename_target(old: ToolVersion, added: dict[str, tuple[ToolVersion, ...]]) -> ToolVersion | None:
    replacement = (old.contract.deprecation.replacement or "") if old.contract.deprecation else ""
    for name, versions in added.items():
        if versions and replacement.split(" ")[0] == name:
            return min(versions, key=_key)
    signature = _signature(old)
    for versions in added.values():
        for tool in sorted(versions, key=_key):
            if _signature(tool) == signature:
                return tool
    return None


def _signature(tool: ToolVersion) -> tuple[str, str]:
    return (canonical(Normalizer(tool.contract.input_schema, "/input").normalize()),
            canonical(Normalizer(tool.contract.output_schema, "/output").normalize()))
