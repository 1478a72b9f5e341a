"""Checks across manifests: unique (name, version) pairs, names that stay distinct in Python, and
migrations and deprecations that name versions and parameters that really exist."""

from __future__ import annotations

from collections.abc import Iterable

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from ..diagnostics import Diagnostic, Level
from ..ir import ToolVersion
from ..naming import class_prefix, python_identifier
from ..runtime.pointer import escape_token
from .describe import did_you_mean
from .schema_walk import top_level_properties
from .semver import parse as parse_semver


def _at(
    tool: ToolVersion,
    pointer: str,
    message: str,
    code: str,
    hint: str | None = None,
    level: Level = Level.ERROR,
) -> Diagnostic:
    line, column = tool.position(pointer) or (None, None)
    return Diagnostic(
        tool.source, pointer, message, level=level, line=line, column=column, hint=hint, code=code
    )


def check_set(tools: list[ToolVersion], seen: Iterable[tuple[str, str]] = ()) -> list[Diagnostic]:
    """``tools`` are the manifests without errors; ``seen`` adds the (name, version) of manifests
    that had errors (already reported), so a reference to one of those is not reported again."""
    seen = {(name, _normal(version)) for name, version in seen}
    problems: list[Diagnostic] = []
    problems.extend(_unique_versions(tools))
    problems.extend(_distinct_names(tools))
    by_name: dict[str, list[ToolVersion]] = {}
    for tool in tools:
        by_name.setdefault(tool.name, []).append(tool)
    for tool in tools:
        problems.extend(_migrations(tool, by_name.get(tool.name, []), seen))
        problems.extend(_deprecation(tool, by_name, seen))
    return problems


def _unique_versions(tools: list[ToolVersion]) -> list[Diagnostic]:
    problems = []
    seen: dict[tuple[str, object], ToolVersion] = {}
    for tool in tools:
        # semver orders versions that differ only in build metadata (+...) as equal, PEP 440 does
        # not: two of them would leave which one is current to a tie-break
        key = (tool.name, _precedence(tool.version))
        if key in seen:
            first = seen[key]
            again = " again" if _normal(first.version) == _normal(tool.version) else (
                f", which semver orders equal to {first.version} (build metadata does not count)")
            problems.append(
                _at(
                    tool,
                    "/version",
                    f"expected one manifest per tool version (got {tool.name} "
                    f"{tool.version}{again}; first in {first.source})",
                    "duplicate-version",
                    hint="bump this manifest's version, or delete one of the two files",
                )
            )
        else:
            seen[key] = tool
    return problems


def _distinct_names(tools: list[ToolVersion]) -> list[Diagnostic]:
    problems = []
    first_by: dict[tuple[str, str], str] = {}
    reported: set[str] = set()
    for tool in tools:
        for kind, mapped in (
            ("Python identifier", python_identifier(tool.name).lower()),
            ("class prefix", class_prefix(tool.name)),
        ):
            owner = first_by.setdefault((kind, mapped), tool.name)
            if owner != tool.name and tool.name not in reported:
                reported.add(tool.name)
                problems.append(
                    _at(
                        tool,
                        "/name",
                        f"expected tool names that stay distinct in generated Python "
                        f"(got {tool.name!r} and {owner!r}, both {kind} {mapped!r})",
                        "name-clash",
                        hint=f"rename {tool.name!r} or {owner!r}",
                    )
                )
    return problems


def _migrations(
    tool: ToolVersion, versions: list[ToolVersion], seen: set[tuple[str, str]]
) -> list[Diagnostic]:
    problems = []
    current = top_level_properties(tool.contract.input_schema)
    for i, migration in enumerate(tool.contract.migrations):
        base = f"/migrations/{i}"
        try:
            spec = SpecifierSet(migration.from_versions)
        except InvalidSpecifier:
            continue  # reported per file
        older = [v for v in versions if v is not tool and _contains(spec, v.version)]
        for j, (new, _) in enumerate(migration.changed):
            if new not in current:
                problems.append(
                    _at(
                        tool,
                        f"{base}/changed/{escape_token(new)}",
                        f"expected an argument of {tool.name} {tool.version} (got {new!r})",
                        "unknown-migration-parameter",
                        hint=did_you_mean(new, current),
                    )
                )
        for old, new in migration.renamed:
            if new not in current:
                problems.append(
                    _at(
                        tool,
                        f"{base}/renamed/{escape_token(old)}",
                        f"expected the new name to be an argument of {tool.name} {tool.version} "
                        f"(got {new!r})",
                        "unknown-migration-parameter",
                        hint=did_you_mean(new, current),
                    )
                )
            if old in current:
                problems.append(
                    _at(
                        tool,
                        f"{base}/renamed/{escape_token(old)}",
                        f"expected {old!r} to be gone in {tool.version} (it is still an argument)",
                        "renamed-parameter-still-present",
                        level=Level.WARNING,
                        hint="a call using the old name is still valid, "
                        "so this rename never applies",
                    )
                )
        for old, _ in migration.removed:
            if old in current:
                problems.append(
                    _at(
                        tool,
                        f"{base}/removed/{escape_token(old)}",
                        f"expected {old!r} to be gone in {tool.version} (it is still an argument)",
                        "removed-parameter-still-present",
                        hint="drop the entry, or remove the argument from `input`",
                    )
                )
        if not older:
            if any(name == tool.name and _contains(spec, version) for name, version in seen):
                continue  # the matching manifests have errors of their own
            problems.append(
                _at(
                    tool,
                    f"{base}/from",
                    f"no checked manifest of {tool.name} matches "
                    f"{migration.from_versions!r}, so its parameters were not checked",
                    "migration-without-source",
                    level=Level.WARNING,
                    hint="check the whole contracts folder, or fix the range",
                )
            )
            continue
        before = set().union(*(top_level_properties(v.contract.input_schema) for v in older))
        shown = ", ".join(v.version for v in older)
        for kind, pairs in (("renamed", migration.renamed), ("removed", migration.removed)):
            for old, _ in pairs:
                if old not in before:
                    problems.append(
                        _at(
                            tool,
                            f"{base}/{kind}/{escape_token(old)}",
                            f"expected an argument of {tool.name} {shown} (got {old!r})",
                            "unknown-migration-parameter",
                            hint=did_you_mean(old, before),
                        )
                    )
    return problems


def _deprecation(
    tool: ToolVersion, by_name: dict[str, list[ToolVersion]], seen: set[tuple[str, str]]
) -> list[Diagnostic]:
    deprecation = tool.contract.deprecation
    if deprecation is None or not deprecation.replacement:
        return []
    parts = deprecation.replacement.split()
    name = parts[0]
    if any(n == name and (len(parts) == 1 or v == _normal(parts[1])) for n, v in seen):
        return []  # it exists, with errors of its own
    if name not in by_name:
        return [
            _at(
                tool,
                "/deprecated/replacement",
                f"expected a checked tool as replacement (got {name!r})",
                "unknown-replacement",
                level=Level.WARNING,
                hint=did_you_mean(name, by_name) or "write it as '<tool name> [version]'",
            )
        ]
    if len(parts) > 1 and not any(_precedence(v.version) == _precedence(parts[1]) for v in by_name[name]):
        known = ", ".join(v.version for v in by_name[name])
        return [
            _at(
                tool,
                "/deprecated/replacement",
                f"expected a checked version of {name} (got {parts[1]!r}; known: {known})",
                "unknown-replacement",
                level=Level.WARNING,
            )
        ]
    return []


def _contains(spec: SpecifierSet, version: str) -> bool:
    try:
        return spec.contains(Version(version), prereleases=True)
    except InvalidVersion:
        return False


def _normal(version: str) -> str:
    try:
        return str(Version(version))
    except InvalidVersion:
        return version


def _precedence(version: str) -> object:
    """What SemVer orders by (build metadata dropped), else the text."""
    return parse_semver(version) or version
