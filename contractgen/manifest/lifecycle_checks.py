"""Checks on a manifest's lifecycle: its version, deprecation dates, migration ranges, file layout."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import PurePath
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from .describe import show
from .report import Reporter
from .semver import pep440_disagreement

_SEMVER_FILE = re.compile(r"^v?\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]*)?\Z")


def check_lifecycle(report: Reporter, data: dict[str, Any]) -> None:
    """The version orders; deprecation dates are real and in order; migration specifiers parse."""
    version = data["version"]
    try:
        Version(version)
        disagreement = pep440_disagreement(version)
    except InvalidVersion:
        disagreement = "PEP 440 (migration ranges) cannot read it"
    if disagreement is not None:
        report.error(
            "/version",
            f"expected a version that both semver and PEP 440 order the same way (got {version!r}: "
            f"{disagreement})",
            "unorderable-version",
            hint="use pre-release tags alpha.N, beta.N or rc.N, e.g. 2.0.0-rc.1",
        )
    deprecated = data.get("deprecated")
    if isinstance(deprecated, dict):
        since, sunset = deprecated.get("since"), deprecated.get("sunset")
        since_date = sunset_date = None
        if since is not None:
            since_date = _iso_date(since)
            if since_date is None:
                # a version: the release that announced the deprecation (this one or a later one)
                try:
                    Version(since)
                except InvalidVersion:
                    report.error(
                        "/deprecated/since",
                        f"expected an ISO date YYYY-MM-DD or a version (got {show(since)})",
                        "invalid-deprecation-since",
                        hint='e.g. since: "2026-11-01" or since: 2.0.0',
                    )
        if sunset is not None:
            sunset_date = _iso_date(sunset)
            if sunset_date is None:
                report.error(
                    "/deprecated/sunset",
                    f"expected a real calendar date YYYY-MM-DD (got {show(sunset)})",
                    "invalid-sunset-date",
                )
        if since_date and sunset_date and sunset_date <= since_date:
            report.error(
                "/deprecated/sunset",
                f"expected sunset after since (got {sunset} <= {since})",
                "sunset-before-since",
            )
    for i, migration in enumerate(data.get("migrations", [])):
        try:
            SpecifierSet(migration["from"])
        except InvalidSpecifier:
            text = migration["from"].strip()
            suggestion = f"'=={text}'" if _parses(text) else "'>=1,<2'"
            report.error(
                f"/migrations/{i}/from",
                f"expected a PEP 440 version specifier (got {show(migration['from'])})",
                "invalid-migration-from",
                hint=f"e.g. {suggestion}",
            )
            continue
        if _parses(version) and SpecifierSet(migration["from"]).contains(version, prereleases=True):
            report.error(
                f"/migrations/{i}/from",
                f"expected a range of earlier versions (got {migration['from']!r}, "
                f"which includes {version} itself)",
                "migration-from-includes-self",
                hint=f"end the range below this version, e.g. '<{Version(version).major}'",
            )
        for part in ("renamed", "removed", "changed"):
            for old, new in (migration.get(part) or {}).items():
                if part == "renamed" and old == new:
                    report.error(
                        f"/migrations/{i}/renamed/{old}",
                        f"expected a new name (got {old!r} renamed to itself)",
                        "rename-to-self",
                    )


def check_layout(report: Reporter, data: dict[str, Any]) -> None:
    """contracts/<tool>/<version>.yaml: a file named after a version should hold that version."""
    path = PurePath(report.item.path)
    if _SEMVER_FILE.match(path.stem) and path.stem.lstrip("v") != data["version"]:
        # an error: diff and build pair versions by the manifest, a reader by the file name
        report.error(
            "/version",
            f"expected the version to match the file name (got {data['version']!r} in {path.name})",
            "version-file-mismatch",
            hint=f"rename the file to {data['version']}{path.suffix}, or set version: {path.stem.lstrip('v')}",
        )
        return
    if _SEMVER_FILE.match(path.stem) and path.parent.name not in ("", ".", data["name"]):
        report.warning(
            "/name",
            f"expected the tool's folder to be named after it (got {data['name']!r} in folder "
            f"{path.parent.name!r})",
            "name-folder-mismatch",
            hint=f"move the file to {data['name']}/{path.name}",
        )


def _iso_date(value: Any) -> dt.date | None:
    if not isinstance(value, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        return None


def _parses(version: str) -> bool:
    try:
        Version(version)
        return True
    except InvalidVersion:
        return False
