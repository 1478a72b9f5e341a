"""The compiler's intermediate representation: one ``ToolVersion`` per manifest, frozen.

The runtime ``Contract`` is the heart of it; the IR adds where it came from, so that build and diff
diagnostics can point at the manifest's file and line.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .naming import class_prefix, module_name, python_identifier
from .runtime.contract import Contract


@dataclass(frozen=True)
class ToolVersion:
    contract: Contract
    source: str  # manifest path as given (relative to the contracts root where possible)
    #: JSON pointer -> (line, column), 1-based, for diagnostics
    positions: Mapping[str, tuple[int, int]] = field(default_factory=dict, compare=False, hash=False)

    @property
    def name(self) -> str:
        return self.contract.name

    @property
    def version(self) -> str:
        return self.contract.version

    @property
    def major(self) -> int:
        return self.contract.major

    @property
    def identifier(self) -> str:
        return python_identifier(self.contract.name)

    @property
    def module(self) -> str:
        return module_name(self.contract.name, self.major)

    @property
    def class_prefix(self) -> str:
        return class_prefix(self.contract.name)

    def position(self, pointer: str) -> tuple[int, int] | None:
        """The closest known position of ``pointer`` or of one of its parents."""
        while True:
            if pointer in self.positions:
                return self.positions[pointer]
            if not pointer:
                return None
            pointer = pointer.rsplit("/", 1)[0]


@dataclass(frozen=True)
class ContractSet:
    """Every tool version loaded from one contracts tree, sorted by (name, version)."""

    tools: tuple[ToolVersion, ...]

    def by_name(self) -> dict[str, tuple[ToolVersion, ...]]:
        grouped: dict[str, list[ToolVersion]] = {}
        for tool in self.tools:
            grouped.setdefault(tool.name, []).append(tool)
        return {name: tuple(versions) for name, versions in sorted(grouped.items())}
