"""Printing diagnostics: the one place that turns diagnostic values into text on stderr."""

from __future__ import annotations

import sys
from typing import Iterable

from ..diagnostics import Diagnostic, Level

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_INVALID = 2


def print_diagnostics(diagnostics: Iterable[Diagnostic]) -> None:
    for diagnostic in diagnostics:
        print(diagnostic.format(), file=sys.stderr)


def exit_code_for(diagnostics: Iterable[Diagnostic], *, strict: bool = False) -> int:
    levels = {d.level for d in diagnostics}
    if Level.ERROR in levels:
        return EXIT_INVALID
    if strict and Level.WARNING in levels:
        return EXIT_FINDINGS
    return EXIT_OK
