"""Printing diagnostics: the one place that turns diagnostic values into text (or JSON)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

import typer

from ..config import PATH_CODES, Config, load_config
from ..diagnostics import Diagnostic, Level

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_INVALID = 2


def print_diagnostics(diagnostics: Iterable[Diagnostic]) -> None:
    for diagnostic in diagnostics:
        print(diagnostic.format(), file=sys.stderr)


def print_diagnostics_json(diagnostics: Sequence[Diagnostic], **extra: object) -> None:
    """One JSON document on stdout: ``{"diagnostics": [...], **extra}``, for editors and CI."""
    print(
        json.dumps(
            {"diagnostics": [d.to_dict() for d in diagnostics], **extra}, indent=2, sort_keys=True
        )
    )


def summary(diagnostics: Sequence[Diagnostic], files: int) -> str:
    """``3 manifests checked: 2 errors, 1 warning`` (or ``..., no errors``)."""
    errors = sum(d.level is Level.ERROR for d in diagnostics)
    warnings = sum(d.level is Level.WARNING for d in diagnostics)
    head = f"{files} manifest{'s' if files != 1 else ''} checked"
    if not errors and not warnings:
        return f"{head}, no errors"
    parts = [f"{errors} error{'s' if errors != 1 else ''}"] if errors else ["no errors"]
    if warnings:
        parts.append(f"{warnings} warning{'s' if warnings != 1 else ''}")
    return f"{head}: {', '.join(parts)}"


def exit_code_for(diagnostics: Iterable[Diagnostic], *, strict: bool = False) -> int:
    levels = {d.level for d in diagnostics}
    if Level.ERROR in levels:
        return EXIT_INVALID
    if strict and Level.WARNING in levels:
        return EXIT_FINDINGS
    return EXIT_OK


def checked_config(*given: str) -> Config:
    """``[tool.contractgen]``, or exit 2 with a diagnostic for each mistake in it (never a silent default).

    ``given`` names the keys the command line set instead (``"contracts"``, ``"output"``): a path the
    table may not use (outside the project, unusable) is then not the table's to decide."""
    config = load_config()
    overridden = {f"/tool/contractgen/{key}" for key in given}
    problems = [p for p in config.problems if not (p.code in PATH_CODES and p.pointer in overridden)]
    if problems:
        print_diagnostics(problems)
        raise typer.Exit(EXIT_INVALID)
    return config


def manifests_folder_problem(folder: Path, config: Config, flag: str = "--out") -> Diagnostic | None:
    """Why manifests may not be written into ``folder``: it is, or lies inside, the build's output or
    its cache, which the next build replaces whole (the manifests would be deleted without a word)."""
    from ..compiler.cache import CACHE_DIR_NAME

    target = folder.resolve()
    for what, owned in (("the build output", config.output), ("the build cache", config.root / CACHE_DIR_NAME)):
        place = owned.resolve()
        if target == place or place in target.parents:
            return Diagnostic(flag, "", f"expected a folder for manifests apart from {what} (got {folder}, "
                              f"{'which is' if target == place else 'inside'} {owned}, which contractgen owns: a build replaces what it holds)",
                              code="unsafe-out", hint="write them to the contracts folder, e.g. --out contracts")
    return None


def os_error_diagnostic(exc: OSError) -> Diagnostic:
    """What the system said about a path, as a diagnostic (the path shortened: it may be 6,000 characters)."""
    path = os.fsdecode(exc.filename) if isinstance(exc.filename, (str, bytes)) else str(exc.filename)
    shown = path if len(path) <= 120 else f"{path[:60]}...{path[-40:]} ({len(path):,} characters)"
    return Diagnostic(shown, "", f"expected a path the system can use (got: {exc.strerror or exc})",
                      code="unusable-path", hint="check the path given on the command line or in [tool.contractgen]")
