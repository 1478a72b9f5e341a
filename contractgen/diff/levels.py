"""Rule groups and per-rule level overrides from ``[tool.contractgen.diff.levels]``.

Every rule belongs to exactly one group, derived from its data (scope, direction, ID), so a new rule
joins its group without a list to edit. An override names a group or a rule and gives the level it
reports at under both policies, or ``off``; a rule's own entry wins over its group's.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..manifest.describe import did_you_mean
from .model import Direction, Level, Scope
from .registry import Rule

#: group name -> what it holds (shown by --list-rules and in docs/diff.md)
GROUPS: Mapping[str, str] = {
    "tools": "a tool added, removed, renamed or deprecated",
    "input": "what the input schema accepts",
    "output": "what the output schema may return",
    "errors": "the declared error contract: codes, retryability, actions",
    "policy": "retries, failure budgets, timeouts and behaviour hints",
    "gates": "version and migration gates over the other findings",
}
OFF = "off"
LEVEL_NAMES = (*(level.value for level in Level), OFF)


def group_of(rule: Rule) -> str:
    if rule.scope is Scope.TOOL:
        return "tools"
    if rule.scope is Scope.GATE:
        return "gates"
    if rule.direction is Direction.INPUT:
        return "input"
    if rule.direction is Direction.OUTPUT:
        return "output"
    return "errors" if rule.id.startswith("error-") else "policy"


def apply_levels(rules: Sequence[Rule], levels: Mapping[str, str]) -> tuple[Rule, ...]:
    """The rules as configured: overridden levels under both policies, rules turned ``off`` left out."""
    configured: list[Rule] = []
    for rule in rules:
        chosen = levels.get(rule.id, levels.get(group_of(rule)))
        if chosen is None:
            configured.append(rule)
        elif chosen != OFF:
            configured.append(dataclasses.replace(rule, level=Level(chosen), strict_level=None))
    return tuple(configured)


def parse_levels(table: Any, rule_ids: Iterable[str], problem: Any) -> dict[str, str]:
    """Validate the levels table; ``problem(pointer, message, hint)`` records each mistake."""
    if not isinstance(table, Mapping):
        problem("/levels", f"expected a table of rule or group = level (got {table!r})",
                'e.g. [tool.contractgen.diff.levels] with output = "dangerous"')
        return {}
    names = sorted(set(rule_ids) | set(GROUPS))
    levels: dict[str, str] = {}
    for key, value in table.items():
        pointer = f"/levels/{key}"
        if key not in names:
            guess = did_you_mean(str(key), names)
            problem(pointer, f"expected a rule ID or a group ({', '.join(GROUPS)}) (got '{key}')",
                    guess or "see `contractgen diff --list-rules`")
            continue
        if value not in LEVEL_NAMES:
            guess = did_you_mean(str(value), LEVEL_NAMES)
            problem(pointer, f"expected one of {', '.join(LEVEL_NAMES)} (got {value!r})",
                    guess)
            continue
        levels[key] = value
    return levels
