"""Diagnostics as values: what every stage returns when input is wrong. Only the CLI prints them."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from enum import Enum
from typing import Any

# Control characters (newlines, escapes) in a file name or a quoted value must not break the
# one-line format or drive the terminal, so they are printed escaped; so are the invisible and
# bidirectional format characters (U+202E reorders what follows it on screen, "Trojan Source") and
# lone surrogates (an undecodable byte of a file name, which a strict UTF-8 stream cannot print).
_ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})


def escape_controls(text: str) -> str:
    """``text`` with control characters written as escapes: safe on one line of a terminal."""
    if text.isprintable():  # the common case: nothing to look at character by character
        return text
    return "".join(repr(c)[1:-1] if unicodedata.category(c) in _ESCAPED_CATEGORIES else c for c in text)


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
        location = escape_controls(self.file)
        if self.line is not None:
            location += f":{self.line}"
            if self.column is not None:
                location += f":{self.column}"
        prefix = "" if self.level is Level.ERROR else "warning: "
        pointer, message = escape_controls(self.pointer), escape_controls(self.message)
        text = f"{location} #{pointer}: {prefix}{message}"
        if self.hint:
            text += f"\n    hint: {escape_controls(self.hint)}"
        return text

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping (for ``--format json``)."""
        return {
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "pointer": self.pointer,
            "level": self.level.value,
            "code": self.code,
            "message": self.message,
            "hint": self.hint,
        }


def has_errors(diagnostics: tuple[Diagnostic, ...] | list[Diagnostic]) -> bool:
    return any(d.level is Level.ERROR for d in diagnostics)
