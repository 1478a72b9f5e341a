"""Rules as data: the ``Rule`` record built from each rule module, and the explicit registry tuple."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from .model import Direction, Level, Scope


@dataclass(frozen=True)
class Rule:
    id: str
    level: Level
    summary: str
    direction: Direction
    scope: Scope
    check: Callable[..., Any]
    module: str
    #: breaking input findings about values must carry a witness (or say why none exists)
    witness: bool = False
    #: the level under ``--strict`` (pure subset semantics), when it differs
    strict_level: Level | None = None
    #: runs after the other rules of its scope, seeing which pointers they already reported (backstops)
    backstop: bool = False

    @property
    def rationale(self) -> str:
        """Why the change matters to callers: the docstring of ``check``, shown to users."""
        return inspect.cleandoc(self.check.__doc__ or "")

    def level_for(self, strict: bool) -> Level:
        return self.strict_level if strict and self.strict_level is not None else self.level

    @classmethod
    def from_module(cls, module: ModuleType) -> Rule:
        return cls(id=module.ID, level=module.LEVEL, summary=module.SUMMARY, direction=module.DIRECTION,
                   scope=module.SCOPE, check=module.check, module=module.__name__.rsplit(".", 1)[-1],
                   witness=getattr(module, "WITNESS", False), strict_level=getattr(module, "STRICT_LEVEL", None),
                   backstop=getattr(module, "BACKSTOP", False))


def _build() -> tuple[Rule, ...]:
    from . import rules

    return tuple(Rule.from_module(m) for m in rules.MODULES)


RULES: tuple[Rule, ...] = _build()
RULES_BY_ID: dict[str, Rule] = {rule.id: rule for rule in RULES}
