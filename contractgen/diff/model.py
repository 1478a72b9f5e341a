"""The diff's vocabulary: levels, directions, rule scopes, hits and findings, as frozen values (a hit's
witness mutations are the prover's: ``contractgen.prover.Mutation``)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from ..prover import Mutation, Step


class Level(str, Enum):
    """How a change affects existing callers; ordered from worst to harmless."""

    BREAKING = "breaking"
    DANGEROUS = "dangerous"
    SAFE = "safe"

    @property
    def tag(self) -> str:
        return {"breaking": "ERR", "dangerous": "WARN", "safe": "INFO"}[self.value]

    @property
    def rank(self) -> int:
        return {"breaking": 0, "dangerous": 1, "safe": 2}[self.value]


class Direction(str, Enum):
    """Input schemas are contravariant (narrowing breaks callers); output covariant (widening breaks consumers)."""

    INPUT = "input"
    OUTPUT = "output"
    CONTRACT = "contract"  # errors, retries, timeout, versions: neither schema


class Scope(str, Enum):
    """What a rule's ``check`` receives."""

    TOOL = "tool"  # a ToolChange: a tool present on one side only (or renamed)
    SCHEMA = "schema"  # a SchemaPair of the rule's direction
    CONTRACT = "contract"  # a ToolPair: the non-schema parts of two versions
    GATE = "gate"  # a ToolPair plus the findings kept so far


@dataclass(frozen=True)
class Hit:
    """What a rule reports; the engine adds tool, level, location, fingerprint and the verified witness."""

    message: str
    pointer: str | None = None  # default: the pair's logical pointer
    source: str | None = None  # manifest pointer for file:line (default: derived from the pair)
    side: str | None = None  # "old" or "new": which manifest the source points into
    #: the schema keyword that changed; the location narrows to its line when the manifest has it
    keywords: tuple[str, ...] = ()
    mutations: tuple[Mutation, ...] = ()
    #: try generic probes at this instance path when the rule's own mutations fail (None: do not)
    probe_path: tuple[Step, ...] | None = None
    #: why a witness may be impossible here (shown when none is found)
    witness_hint: str | None = None
    #: a lower level for this hit only (e.g. a --strict rule whose premise does not hold here)
    level: Level | None = None
    #: a value the rule built itself (a contract-scope rule has no schema for the witness search)
    witness: Any = None


@dataclass(frozen=True)
class Finding:
    rule: str
    level: Level
    tool: str
    old_version: str | None
    new_version: str | None
    pointer: str
    message: str
    file: str | None = None
    line: int | None = None
    column: int | None = None
    side: str = "new"
    #: for breaking value findings on inputs: arguments the old schema accepts and the new rejects
    witness: Any = None
    has_witness: bool = False
    witness_note: str | None = None
    allowed_by: str | None = None  # e.g. "major version bump 1.2.0 -> 2.0.0"
    ignored_by: str | None = None  # the ignore entry that acknowledged it
    fingerprint: str = field(default="")

    def __post_init__(self) -> None:
        if not self.fingerprint:
            object.__setattr__(self, "fingerprint", fingerprint(
                self.rule, self.tool, self.old_version, self.new_version, self.pointer))

    @property
    def counts(self) -> bool:
        """Whether it can fail the run: neither acknowledged nor allowed by a major bump."""
        return self.ignored_by is None and self.allowed_by is None

    @property
    def sort_key(self) -> tuple[Any, ...]:
        return (self.tool, self.old_version or "", self.new_version or "", self.level.rank,
                self.pointer, self.rule, self.message)


def fingerprint(rule: str, tool: str, old_version: str | None, new_version: str | None, pointer: str) -> str:
    """Stable id of one finding: sha256 of rule, tool, versions and pointer (never the message), 16 hex."""
    text = "\x1f".join((rule, tool, old_version or "", new_version or "", pointer))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]  # names may hold lone surrogates


@dataclass(frozen=True)
class Context:
    """Policy a run is under: the date sunsets are compared with, and pure subset semantics."""

    today: Any  # datetime.date
    strict: bool = False
    #: logical pointers that already have a breaking finding (set for the backstop pass only)
    covered: frozenset[str] = frozenset()

    def is_covered(self, pointer: str) -> bool:
        """Whether a specific rule already reported a break at ``pointer`` or below it."""
        return any(p == pointer or p.startswith(pointer + "/") for p in self.covered)
