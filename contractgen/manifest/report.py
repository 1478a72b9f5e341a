"""Building located diagnostics for one parsed manifest: pointer -> file, line and column."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..diagnostics import Diagnostic, Level
from .parse import ParsedFile


@dataclass
class Reporter:
    """Collects diagnostics for one file; each is placed at the closest known position."""

    item: ParsedFile
    diagnostics: list[Diagnostic] = field(default_factory=list)

    def position(self, pointer: str, *, key: bool = False) -> tuple[int | None, int | None]:
        if key and pointer in self.item.key_positions:
            return self.item.key_positions[pointer]
        probe = pointer
        while probe not in self.item.positions and probe:
            probe = probe.rsplit("/", 1)[0]
        return self.item.positions.get(probe, (None, None))

    def error(
        self, pointer: str, message: str, code: str, hint: str | None = None, *, key: bool = False
    ) -> None:
        self._add(pointer, message, code, hint, Level.ERROR, key)

    def warning(
        self, pointer: str, message: str, code: str, hint: str | None = None, *, key: bool = False
    ) -> None:
        self._add(pointer, message, code, hint, Level.WARNING, key)

    def _add(
        self, pointer: str, message: str, code: str, hint: str | None, level: Level, key: bool
    ) -> None:
        line, column = self.position(pointer, key=key)
        self.diagnostics.append(
            Diagnostic(
                self.item.path,
                pointer,
                message,
                level=level,
                line=line,
                column=column,
                hint=hint,
                code=code,
            )
        )
