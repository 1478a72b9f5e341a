"""Leave out tools whose manifests are byte-identical on both sides: they are neither parsed nor checked.

A folder is left out when it holds the same files with the same bytes on both sides and each of its
manifests names its tool on one plain top-level ``name:`` line, and no manifest that is read names one
of those tools (so pairing, renames and removals see every version of every tool they touch).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Mapping
from typing import TypeVar

from ..manifest.parse import ParsedFile

_Loaded = TypeVar("_Loaded")

#: a YAML manifest's top-level ``name: tool`` line (quoted or not, a comment after it allowed)
_NAME_LINE = re.compile(rb"^name:[ \t]*(['\"]?)([A-Za-z0-9_.-]+)\1[ \t]*(?:#[^\n]*)?\r?$", re.MULTILINE)


def named_tool(raw: bytes) -> str | None:
    """The tool a manifest names on its one top-level ``name:`` line (None when that is not plain)."""
    found = _NAME_LINE.findall(raw)
    return found[0][1].decode() if len(found) == 1 else None


def unchanged_folders(old: Mapping[str, bytes | None], new: Mapping[str, bytes | None]) -> dict[str, set[str]]:
    """Folder -> the tools its manifests name, for each folder byte-identical on both sides (a file
    whose bytes were not read, None, keeps its folder in)."""
    folders: dict[str, set[str]] = {}
    sides: dict[str, tuple[dict[str, bytes | None], dict[str, bytes | None]]] = {}
    for index, files in enumerate((old, new)):
        for path, raw in files.items():
            sides.setdefault(_folder(path), ({}, {}))[index][path] = raw
    for folder, (old_files, new_files) in sides.items():
        if old_files != new_files or None in new_files.values():
            continue
        names = {named_tool(raw) for raw in new_files.values() if raw is not None}
        if None not in names:
            folders[folder] = {n for n in names if n is not None}
    return folders


def load_changed(old: Mapping[str, bytes | None], new: Mapping[str, bytes | None],
                 load: Callable[[list[str], list[str]], tuple[set[str], _Loaded]]) -> tuple[_Loaded, int]:
    """``load(old paths, new paths)`` on every manifest outside the unchanged folders; it returns the tool
    names it read and its result. A folder whose tools a read manifest names is read too, and the load
    repeated. Returns the last result and how many manifests (versions) were left out."""
    skipped = unchanged_folders(old, new)
    while True:
        names, result = load([p for p in old if _folder(p) not in skipped], [p for p in new if _folder(p) not in skipped])
        touched = {folder for folder, tools in skipped.items() if tools & names}
        if not touched:
            left_out = sum(1 for p in new if _folder(p) in skipped)
            return result, left_out
        for folder in touched:
            del skipped[folder]


def _folder(path: str) -> str:
    """The folder of a manifest's relative POSIX path ("." at the top), without building a path object."""
    return posixpath.dirname(path) or "."


def parsed_names(parsed: list[ParsedFile]) -> set[str]:
    """Every tool name the parsed manifests give (valid or not)."""
    return {item.value["name"] for item in parsed
            if isinstance(item.value, dict) and isinstance(item.value.get("name"), str)}
