"""Acknowledged findings from ``[tool.contractgen.diff]``: by rule ID (and tool) or by fingerprint, never by text."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..diagnostics import Diagnostic
from ..manifest.describe import did_you_mean
from ..prover import TOTAL_SECONDS
from .levels import parse_levels
from .model import Finding, Level

_KEYS = {"rule", "tool", "fingerprint", "reason"}
_TABLE_KEYS = {"fail_on", "ignore", "levels", "proof_budget", "strict"}
_FINGERPRINT = re.compile(r"^[0-9a-f]{16}\Z")


@dataclass(frozen=True)
class IgnoreEntry:
    rule: str | None = None
    tool: str | None = None
    fingerprint: str | None = None
    reason: str | None = None

    def matches(self, finding: Finding) -> bool:
        if self.fingerprint is not None:
            return finding.fingerprint == self.fingerprint
        return finding.rule == self.rule and (self.tool is None or self.tool == finding.tool)

    def describe(self) -> str:
        what = f"fingerprint {self.fingerprint}" if self.fingerprint else \
            f"rule {self.rule}" + (f" for {self.tool}" if self.tool else "")
        return what + (f" ({self.reason})" if self.reason else "")


@dataclass(frozen=True)
class DiffSettings:
    ignores: tuple[IgnoreEntry, ...] = ()
    fail_on: Level = Level.BREAKING
    strict: bool = False
    #: rule ID or group -> level name or "off" (see levels.py)
    levels: Mapping[str, str] = field(default_factory=dict)
    #: seconds all proofs of one diff may take (contractgen/prover/budget.py); past it, "could not prove"
    proof_budget: float = TOTAL_SECONDS


def parse_settings(table: Mapping[str, Any], rule_ids: set[str], where: str = "pyproject.toml") -> tuple[DiffSettings, list[Diagnostic]]:
    """Read the diff table; every problem is a diagnostic (exit 2), not a silent skip."""
    problems: list[Diagnostic] = []
    base = "/tool/contractgen/diff"

    def bad(pointer: str, message: str, hint: str | None = None) -> None:
        problems.append(Diagnostic(where, base + pointer, message, hint=hint, code="invalid-diff-config"))

    for key in sorted(set(table) - _TABLE_KEYS):
        guess = did_you_mean(key, _TABLE_KEYS)
        bad(f"/{key}", f"unknown key '{key}' (expected one of: {', '.join(sorted(_TABLE_KEYS))})",
            hint=guess)
    fail_on = Level.BREAKING
    raw_fail = table.get("fail_on", "breaking")
    if raw_fail in ("breaking", "dangerous"):
        fail_on = Level(raw_fail)
    else:
        bad("/fail_on", f"expected 'breaking' or 'dangerous' (got {raw_fail!r})")
    strict = table.get("strict", False)
    if not isinstance(strict, bool):
        bad("/strict", f"expected true or false (got {strict!r})")
        strict = False
    levels = parse_levels(table.get("levels", {}), rule_ids, bad)
    proof_budget = table.get("proof_budget", TOTAL_SECONDS)
    if isinstance(proof_budget, bool) or not isinstance(proof_budget, (int, float)) or not proof_budget > 0:
        bad("/proof_budget", f"expected a number of seconds above 0 (got {proof_budget!r})",
            hint="proof_budget = 120 gives every proof of one diff two minutes in all")
        proof_budget = TOTAL_SECONDS
    entries: list[IgnoreEntry] = []
    raw = table.get("ignore", [])
    if not isinstance(raw, list):
        bad("/ignore", "expected an array of tables like {rule = \"...\", tool = \"...\"}")
        raw = []
    for index, item in enumerate(raw):
        pointer = f"/ignore/{index}"
        if not isinstance(item, Mapping):
            bad(pointer, f"expected a table like {{rule = \"...\", tool = \"...\"}} (got {item!r})")
            continue
        unknown = sorted(set(item) - _KEYS)
        if unknown:
            bad(f"{pointer}/{unknown[0]}", f"unknown key '{unknown[0]}' (expected one of: fingerprint, reason, rule, tool)",
                hint="findings are acknowledged by rule ID (and tool) or by fingerprint, never by message text")
            continue
        rule, tool, fingerprint = item.get("rule"), item.get("tool"), item.get("fingerprint")
        if fingerprint is not None:
            if not isinstance(fingerprint, str) or not _FINGERPRINT.match(fingerprint):
                bad(f"{pointer}/fingerprint", f"expected 16 lowercase hex digits (got {fingerprint!r})",
                    hint="copy it from `contractgen diff --format json`")
                continue
            if rule is not None or tool is not None:
                bad(pointer, "expected either a fingerprint or a rule (with an optional tool), not both")
                continue
        elif not isinstance(rule, str):
            bad(pointer, "expected a 'rule' (with an optional 'tool') or a 'fingerprint'")
            continue
        elif rule not in rule_ids:
            guess = did_you_mean(rule, rule_ids)
            bad(f"{pointer}/rule", f"unknown rule '{rule}' (expected an ID from `contractgen diff --list-rules`)",
                hint=guess)
            continue
        if tool is not None and not isinstance(tool, str):
            bad(f"{pointer}/tool", f"expected a tool name (got {tool!r})")
            continue
        reason = item.get("reason")
        entries.append(IgnoreEntry(rule, tool, fingerprint, str(reason) if reason is not None else None))
    return DiffSettings(tuple(entries), fail_on, bool(strict), levels, float(proof_budget)), problems
