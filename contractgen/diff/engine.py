"""Run the rules over tool changes and tool pairs; add witnesses, acknowledgements, gates and allowances."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..ir import ToolVersion
from .ignores import DiffSettings, IgnoreEntry
from .levels import apply_levels
from .model import Context, Direction, Finding, Hit, Level, Scope
from .registry import RULES, Rule
from .rules._versions import content_key, is_major_bump
from .structure import SchemaPair, ToolChange, ToolPair
from .witness import WitnessFinder, thaw


@dataclass(frozen=True)
class DiffReport:
    findings: tuple[Finding, ...]
    compared: int  # tool version pairs compared
    fail_on: Level = Level.BREAKING

    @property
    def failing(self) -> tuple[Finding, ...]:
        limit = self.fail_on.rank
        return tuple(f for f in self.findings if f.counts and f.level.rank <= limit)

    @property
    def exit_code(self) -> int:
        return 1 if self.failing else 0

    def count(self, level: Level) -> int:
        return sum(1 for f in self.findings if f.level is level and f.ignored_by is None)

    @property
    def ignored(self) -> int:
        return sum(1 for f in self.findings if f.ignored_by is not None)


def run_diff(pairs: Sequence[ToolPair], changes: Sequence[ToolChange], settings: DiffSettings,
             context: Context, rules: Sequence[Rule] = RULES) -> DiffReport:
    rules = apply_levels(rules, settings.levels)
    findings: list[Finding] = []
    for change in changes:
        for rule in rules:
            if rule.scope is Scope.TOOL:
                findings.extend(_acknowledge(settings.ignores, _tool_findings(rule, change, context)))
    for pair in pairs:
        if pair.old.version == pair.new.version and content_key(pair.old) == content_key(pair.new):
            continue  # identical manifests: no rule can report anything
        findings.extend(_pair_findings(pair, settings, context, rules))
    findings.sort(key=lambda f: f.sort_key)
    return DiffReport(tuple(findings), len(pairs), settings.fail_on)


def _pair_findings(pair: ToolPair, settings: DiffSettings, context: Context,
                   rules: Sequence[Rule]) -> list[Finding]:
    found: list[Finding] = []
    finders: list[WitnessFinder] = []

    def finder() -> WitnessFinder:
        if not finders:
            finders.append(WitnessFinder(thaw(pair.old.contract.input_schema), thaw(pair.new.contract.input_schema),
                                         pair.old_input, [e.arguments for e in pair.old.contract.examples],
                                         pair.new_input))
        return finders[0]

    ordered = [r for r in rules if not r.backstop] + [r for r in rules if r.backstop]
    for rule in ordered:
        if rule.scope is Scope.SCHEMA:
            schema_pairs = pair.pairs(rule.direction)
            if rule.backstop:  # deepest first, and only where nothing reported a break at or below
                schema_pairs = tuple(reversed(schema_pairs))
            for schema_pair in schema_pairs:
                rule_context = context
                if rule.backstop:
                    covered = frozenset(f.pointer for f in found if f.level is Level.BREAKING)
                    rule_context = dataclasses.replace(context, covered=covered)
                for hit in _checked(rule, pair, schema_pair, rule_context):
                    finding = _finding(rule, hit, pair.old, pair.new, context, schema_pair)
                    if rule.witness and finding.level is Level.BREAKING and rule.direction is Direction.INPUT:
                        finding = _with_witness(finding, hit, finder())
                    found.append(finding)
        elif rule.scope is Scope.CONTRACT:
            found.extend(_finding(rule, hit, pair.old, pair.new, context)
                         for hit in _checked(rule, pair, pair, context))
    found = list(_acknowledge(settings.ignores, found))
    if is_major_bump(pair.old.version, pair.new.version):
        allowance = f"major version bump {pair.old.version} -> {pair.new.version}"
        found = [dataclasses.replace(f, allowed_by=allowance) if f.level is not Level.SAFE else f for f in found]
    kept = [f for f in found if f.ignored_by is None]
    for rule in rules:
        if rule.scope is Scope.GATE:
            gates = [_finding(rule, hit, pair.old, pair.new, context) for hit in rule.check(pair, kept, context)]
            found.extend(_acknowledge(settings.ignores, gates))
    return found


class RuleError(Exception):
    """A rule failed on some input: a defect in contractgen, reported with enough context to file it."""


def _checked(rule: Rule, pair: ToolPair, subject: object, context: Context) -> list[Hit]:
    try:
        return list(rule.check(subject, context))
    except Exception as exc:
        where = getattr(subject, "pointer", "")
        raise RuleError(f"rule {rule.id} failed on {pair.new.name} {pair.old.version} -> {pair.new.version} "
                        f"at #{where}: {type(exc).__name__}: {exc}") from exc


def _tool_findings(rule: Rule, change: ToolChange, context: Context) -> Iterable[Finding]:
    for hit in rule.check(change, context):
        yield _finding(rule, hit, change.old, change.new, context)


def _finding(rule: Rule, hit: Hit, old: ToolVersion | None, new: ToolVersion | None, context: Context,
             schema_pair: SchemaPair | None = None) -> Finding:
    side = hit.side
    source = hit.source
    if schema_pair is not None:
        side = side or ("new" if schema_pair.new is not None else "old")
        if source is None:
            node = schema_pair.new if side == "new" else schema_pair.old
            source = node.source if node is not None else schema_pair.pointer
    side = side or ("new" if new is not None else "old")
    located = new if side == "new" and new is not None else old or new
    assert located is not None
    source = source or ""
    for keyword in hit.keywords:
        if f"{source}/{keyword}" in located.positions:
            source = f"{source}/{keyword}"
            break
    line, column = located.position(source) or (None, None)
    level = rule.level_for(context.strict)
    if hit.level is not None and hit.level.rank > level.rank:
        level = hit.level
    tool = old.name if old is not None else located.name  # a renamed tool is reported under its old name
    pointer = hit.pointer if hit.pointer is not None else (schema_pair.pointer if schema_pair else "")
    return Finding(rule=rule.id, level=level, tool=tool, old_version=old.version if old else None,
                   new_version=new.version if new else None, pointer=pointer, message=hit.message,
                   file=located.source, line=line, column=column, side="new" if located is new else "old")


def _with_witness(finding: Finding, hit: Hit, finder: WitnessFinder) -> Finding:
    result = finder.find(hit.mutations, hit.probe_path)
    if result.found:
        return dataclasses.replace(finding, witness=result.value, has_witness=True)
    return dataclasses.replace(finding, witness_note=hit.witness_hint or result.note)


def _acknowledge(ignores: Sequence[IgnoreEntry], findings: Iterable[Finding]) -> Iterable[Finding]:
    for finding in findings:
        entry = next((e for e in ignores if e.matches(finding)), None)
        yield dataclasses.replace(finding, ignored_by=entry.describe()) if entry else finding
