"""Diagnostics as values: what every stage returns when input is wrong. Only the CLI prints them."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Level(str, Enum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, order=True)
class Diagnostic:
    """One problem in one file, located by JSON pointer (and line/column where known)."""

    file: str
    pointer: str
    message: str  # what is wrong: "expected X (got Y)"
    level: Level = Level.ERROR
    line: int | None = None
    column: int | None = None
    hint: str | None = None
    code: str = "invalid"  # a stable kebab-case id, e.g. "unknown-key"

    def format(self) -> str:
        """``file:line:col #/pointer: message`` plus an indented ``hint:`` line."""
        location = self.file
        if self.line is not None:
            location += f":{self.line}"
            if self.column is not None:
                location += f":{self.column}"
        prefix = "" if self.level is Level.ERROR else "warning: "
        text = f"{location} #{self.pointer}: {prefix}{self.message}"
        if self.hint:
            text += f"\n    hint: {self.hint}"
        return text


def has_errors(diagnostics: "tuple[Diagnostic, ...] | list[Diagnostic]") -> bool:
    return any(d.level is Level.ERROR for d in diagnostics)
