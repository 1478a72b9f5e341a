"""Find manifests, parse them, run every check, and lower the clean ones into a ``ContractSet``.

Layout: ``contracts/<tool>/<version>.yaml`` (or ``.yml``/``.json``); any file with those endings
below a given folder is read, so other layouts work too. All problems are collected in one pass.
"""

from __future__ import annotations

import os
import shlex
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema

from ..diagnostics import Diagnostic, Level, has_errors
from ..ir import ContractSet, ToolVersion
from ..runtime import reference_validator
from .caps import MAX_MANIFEST_BYTES, read_capped
from .deprecation_steps import with_migration_steps
from .lower import lower_manifest
from .parse import ParsedFile, parse_manifest_text, too_large

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")


@dataclass(frozen=True)
class LoadResult:
    contracts: ContractSet  # the manifests without errors, lowered and sorted by (name, version)
    diagnostics: tuple[Diagnostic, ...]  # every problem in every file, sorted by file and position
    files: tuple[str, ...] = ()  # every manifest file read, including those with errors

    @property
    def ok(self) -> bool:
        return not has_errors(self.diagnostics)


def discover_manifests(paths: Iterable[Path]) -> tuple[list[Path], list[Diagnostic]]:
    found: list[Path] = []
    problems: list[Diagnostic] = []
    for path in paths:
        if path.is_dir():
            named = _named_manifests(path)
            # a manifest's name on something that is not a file (a dangling link, a pipe) would
            # drop a tool version without a word, or block the read: an error, never skipped
            regular = [p.is_file() for p in named]
            problems.extend(_not_a_file(p) for p, is_file in zip(named, regular) if not is_file)
            inside = [p for p, is_file in zip(named, regular) if is_file]
            if not named:  # a warning: an empty tree is valid (diff: every tool was removed)
                problems.append(
                    Diagnostic(
                        str(path),
                        "",
                        "expected manifests (*.yaml, *.yml, *.json) in this folder (got none)",
                        level=Level.WARNING,
                        code="no-manifests",
                        hint="put one file per tool version at <folder>/<tool>/<version>.yaml",
                    )
                )
            found.extend(inside)
        elif path.is_file():
            found.append(path)
        elif path.is_symlink() or path.exists():
            problems.append(_not_a_file(path))
        else:
            problems.append(
                Diagnostic(
                    str(path),
                    "",
                    "expected a manifest file or folder (got nothing at this path)",
                    code="missing-path",
                    hint=_missing_path_hint(path),
                )
            )
    unique = list(dict.fromkeys(found))  # a file named twice (folder and file) is checked once
    return unique, problems


def _missing_path_hint(path: Path) -> str:
    if path.name.endswith(MANIFEST_SUFFIXES):
        return "check the file name; a folder of manifests can be named instead"
    init = "contractgen init NAME" + ("" if path.as_posix() == "contracts" else f" --out {shlex.quote(str(path))}")
    return f"scaffold a first manifest there with `{init}`, or name the folder that holds the manifests"


def _named_manifests(root: Path) -> list[Path]:
    """Every entry below ``root`` with a manifest's suffix, sorted, outside hidden names and folders:
    files, links (a link to a folder included: not a file, which the caller reports) and anything
    else but a folder. Folders reached through a link are not entered. One ``os.walk`` reads each
    folder once (``rglob`` and a stat per entry took 40 ms for 1,000 tools, most of a `diff` that
    changed one)."""
    named: list[Path] = []
    for folder, folders, files in os.walk(root):
        base = Path(folder)
        named.extend(base / name for name in files if _manifest_name(name))
        named.extend(base / name for name in folders
                     if _manifest_name(name) and os.path.islink(os.path.join(folder, name)))
        folders[:] = [name for name in folders if not name.startswith(".")]
    return sorted(named)


def _manifest_name(name: str) -> bool:
    return not name.startswith(".") and name.endswith(MANIFEST_SUFFIXES)


def _not_a_file(path: Path) -> Diagnostic:
    """A manifest path that names something other than a regular file (or a link to one)."""
    if path.is_symlink() and not path.exists():
        try:
            got = f"a broken symbolic link to {os.readlink(path)}"
        except OSError:
            got = "a broken symbolic link"
        hint = "point the link at a manifest file, or remove it"
    else:
        try:
            mode = path.stat().st_mode
        except OSError:
            mode = 0
        kinds = [(stat.S_ISDIR, "a link to a folder"), (stat.S_ISFIFO, "a named pipe"),
                 (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device")]
        got = next((name for is_kind, name in kinds if is_kind(mode)), "not a regular file")
        hint = "replace it with the manifest file, or remove it"
    return Diagnostic(str(path), "", f"expected a manifest file (got {got})", code="not-a-file", hint=hint)


def read_manifest(path: Path) -> ParsedFile:
    """Parse one manifest file; an oversized or unreadable file becomes a diagnostic, unread."""
    name = str(path)
    try:
        raw = read_capped(path, MAX_MANIFEST_BYTES)
        if isinstance(raw, int):
            return too_large(name, raw)
    except OSError as exc:
        return ParsedFile(
            name,
            diagnostics=[
                Diagnostic(
                    name,
                    "",
                    f"expected a readable file (got {exc.strerror or type(exc).__name__})",
                    hint="check the file's permissions",
                    code="unreadable-file",
                )
            ],
        )
    return parse_manifest_text(name, raw)


def load_contracts(paths: Iterable[Path | str]) -> LoadResult:
    files, diagnostics = discover_manifests(Path(p) for p in paths)
    parsed = [read_manifest(f) for f in files]
    return load_parsed(parsed, diagnostics)


def load_parsed(
    parsed: list[ParsedFile], diagnostics: list[Diagnostic] | None = None
) -> LoadResult:
    from .checks import check_file, check_set  # checks import lower; keep the module graph one-way

    diagnostics = list(diagnostics or [])
    tools: list[ToolVersion] = []
    for item in parsed:
        diagnostics.extend(item.diagnostics)
        if item.diagnostics:
            continue
        problems = check_file(item)
        diagnostics.extend(problems)
        if has_errors(problems):
            continue
        try:
            contract = lower_manifest(item.value)
        except (
            KeyError,
            TypeError,
            ValueError,
        ) as exc:  # a gap between checks and lowering: report it
            diagnostics.append(
                Diagnostic(
                    item.path,
                    "",
                    f"contractgen could not lower this manifest ({type(exc).__name__}: {exc})",
                    code="internal-lowering-failure",
                    hint="please report this manifest to the contractgen maintainers",
                )
            )
            continue
        tools.append(ToolVersion(contract, item.path, item.positions))
    tools.sort(key=lambda t: (t.name, _version_key(t.version), t.source))
    tools = with_migration_steps(tools)
    broken = [
        (item.value["name"], item.value["version"])
        for item in parsed
        if isinstance(item.value, dict)
        and isinstance(item.value.get("name"), str)
        and isinstance(item.value.get("version"), str)
    ]
    diagnostics.extend(check_set(tools, broken))
    diagnostics.sort(key=lambda d: (d.file, d.line or 0, d.column or 0, d.pointer, d.message))
    return LoadResult(
        ContractSet(tuple(tools)), tuple(diagnostics), tuple(item.path for item in parsed)
    )


def _version_key(version: str) -> Any:
    from .semver import sort_key

    return (sort_key(version), version)  # of two equal versions, the one without build metadata first


def validate_against(schema: dict[str, Any], value: Any) -> list[jsonschema.ValidationError]:
    validator = reference_validator.validator(schema, formats=False)
    return sorted(validator.iter_errors(value), key=lambda e: list(e.absolute_path))
