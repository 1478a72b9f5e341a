"""Run the rules over tool changes and tool pairs; add witnesses, acknowledgements, gates and allowances."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from ..ir import ToolVersion
from ..prover import Mutation, Step, Verdict, WitnessFinder, contains, proofs_within, rejects
from ..runtime.jsonvalue import thaw
from ..runtime.pointer import unescape_token
from .claims import Claim, claim_for
from .ignores import DiffSettings, IgnoreEntry
from .levels import apply_levels
from .model import Context, Direction, Finding, Hit, Level, Scope
from .reading import plain, prove
from .registry import RULES, RULES_BY_ID, Rule
from .rules._versions import breaking_allowance, content_key
from .structure import SchemaPair, ToolChange, ToolPair


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
    """The diff's report; its proofs share ``settings.proof_budget``, which ends with the run."""
    with proofs_within(settings.proof_budget):
        return _run_diff(pairs, changes, settings, context, rules)


def _run_diff(pairs: Sequence[ToolPair], changes: Sequence[ToolChange], settings: DiffSettings,
              context: Context, rules: Sequence[Rule]) -> DiffReport:
    configured = apply_levels(rules, settings.levels)
    kept_ids = {r.id for r in configured}
    silenced = tuple(r for r in rules if r.id not in kept_ids and r.scope is Scope.SCHEMA and not r.backstop)
    rules = configured
    findings: list[Finding] = []
    for change in changes:
        for rule in rules:
            if rule.scope is Scope.TOOL:
                findings.extend(_acknowledge(settings.ignores, _tool_findings(rule, change, context)))
    for pair in pairs:
        if pair.old.version == pair.new.version and content_key(pair.old) == content_key(pair.new):
            continue  # identical manifests: no rule can report anything
        findings.extend(_pair_findings(pair, settings, context, rules, silenced))
    findings.sort(key=lambda f: f.sort_key)
    return DiffReport(tuple(findings), len(pairs), settings.fail_on)


def _pair_findings(pair: ToolPair, settings: DiffSettings, context: Context,
                   rules: Sequence[Rule], silenced: Sequence[Rule] = ()) -> list[Finding]:
    found: list[Finding] = []
    # what rules turned off in configuration would have reported: the backstops must not report it again
    quiet = {(rule.direction, hit.pointer if hit.pointer is not None else schema_pair.pointer)
             for rule in silenced for schema_pair in pair.pairs(rule.direction)
             for hit in _checked(rule, pair, schema_pair, context)}
    finders: dict[Direction, WitnessFinder] = {}

    def finder(direction: Direction) -> WitnessFinder:
        if direction not in finders:
            finders[direction] = _witness_finder(pair, direction)
        return finders[direction]

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
                    covered |= {pointer for direction, pointer in quiet if direction is rule.direction}
                    rule_context = dataclasses.replace(context, covered=covered)
                for hit in _checked(rule, pair, schema_pair, rule_context):
                    if (rule.witness or rule.id in RELAXATIONS) and _equivalent(schema_pair):
                        continue  # the same values spelled differently: nothing narrowed or widened
                    finding = _finding(rule, hit, pair.old, pair.new, context, schema_pair)
                    if rule.witness and finding.level is Level.BREAKING:
                        proved = _proved(finding, hit, schema_pair, finder(rule.direction), context.strict)
                        if proved is None:
                            continue
                        finding = proved
                    found.append(finding)
        elif rule.scope is Scope.CONTRACT:
            found.extend(_finding(rule, hit, pair.old, pair.new, context)
                         for hit in _checked(rule, pair, pair, context))
    for direction in (Direction.INPUT, Direction.OUTPUT):
        if not any(d is direction for d, _ in quiet):  # a silenced rule explains part of it: the user decided
            found.extend(_root_backstop(pair, direction, found, finder, context))
    found = list(_acknowledge(settings.ignores, found))
    allowance = breaking_allowance(pair.old.version, pair.new.version)
    if allowance is not None:
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
                   file=located.source, line=line, column=column, side="new" if located is new else "old",
                   witness=hit.witness, has_witness=hit.witness is not None)


def _witness_finder(pair: ToolPair, direction: Direction) -> WitnessFinder:
    """Inputs: values old accepts and new rejects. Outputs: values new may return and old excluded."""
    if direction is Direction.INPUT:
        return WitnessFinder(thaw(pair.old.contract.input_schema), thaw(pair.new.contract.input_schema),
                             pair.old_input, [e.arguments for e in pair.old.contract.examples], pair.new_input)
    return WitnessFinder(thaw(pair.new.contract.output_schema), thaw(pair.old.contract.output_schema),
                         pair.new_output, [], pair.old_output, results=True)


PROVEN_SAFE = {Direction.INPUT: " (proven harmless: the new schema accepts every value the old one accepted here)",
               Direction.OUTPUT: " (proven harmless: the old schema already admitted every value the new one allows here)"}


#: rules that only report a relaxation (values gained), silent where old and new are proven equivalent
RELAXATIONS = frozenset({"input-constraint-relaxed", "input-type-widened", "input-nullability-added",
                         "input-enum-value-added", "input-branch-added", "output-type-narrowed"})


def _equivalent(schema_pair: SchemaPair) -> bool:
    """Both sides present and each covers the other (pure set semantics)."""
    if not schema_pair.both:
        return False
    old, new = plain(schema_pair.old), plain(schema_pair.new)
    return contains(new, old).verdict is Verdict.COVERS and contains(old, new).verdict is Verdict.COVERS


def _proved(finding: Finding, hit: Hit, schema_pair: SchemaPair, finder: WitnessFinder,
            strict: bool) -> Finding | None:
    """A breaking value finding stands only with a checked witness; a proven "covers" makes it INFO and
    no witness (and no proof) makes it WARN "could not prove". A backstop whose difference cannot be
    shown on the whole schema yields to the enclosing position (None)."""
    proof, steps = prove(schema_pair, strict)
    if proof.verdict is Verdict.COVERS:
        return dataclasses.replace(finding, level=Level.SAFE,
                                   message=finding.message + PROVEN_SAFE[schema_pair.direction])
    mutations = hit.mutations
    if proof.verdict is Verdict.NOT_COVERS:
        mutations = (*mutations, Mutation(steps, "set", proof.witness))
    if schema_pair.old_name is not None:  # renamed: show an old value its new name refuses, not any old call
        new_schema = plain(schema_pair.new)
        mutations = tuple(m for m in mutations if m.action == "set" and rejects(new_schema, m.value))
    claim = _claim(finding, hit, schema_pair, steps)
    own = claim.mutation() if claim is not None else None
    if own is not None:  # the witness search looks for the finding's own claim first
        mutations = (own, *mutations)
    result = finder.find(mutations, hit.probe_path if hit.probe_path is not None else steps)
    if result.found:
        note = None if claim is None or claim.shown_by(result.value) else \
            f"this witness tells the schemas apart but does not show the claim ({claim.words()} at " \
            f"#{finding.pointer}): none that does was found"
        return dataclasses.replace(finding, witness=result.value, has_witness=True, witness_note=note)
    if RULES_BY_ID[finding.rule].backstop:
        return None
    why = proof.reason if proof.over_budget else \
        hit.witness_hint or (proof.reason if proof.verdict is Verdict.UNKNOWN else result.note)
    return dataclasses.replace(finding, level=Level.DANGEROUS, witness_note=f"could not prove: {why}")


def _claim(finding: Finding, hit: Hit, schema_pair: SchemaPair, steps: tuple[Step, ...]) -> Claim | None:
    """The finding's claim at the value it speaks of: the pair's own, or one property further when
    the hit points at a property of the pair's object."""
    prefix = f"{schema_pair.pointer}/properties/"
    if hit.pointer is not None and hit.pointer.startswith(prefix) and schema_pair.new is not None \
            and "/" not in hit.pointer[len(prefix):]:
        name = unescape_token(hit.pointer[len(prefix):])
        old, new = (_property(node, name) for node in (schema_pair.old, schema_pair.new))
        return claim_for(finding.rule, schema_pair.direction, schema_pair.child_steps(name, old), old, new)
    return claim_for(finding.rule, schema_pair.direction, schema_pair.steps if schema_pair.steps else steps,
                     schema_pair.old, schema_pair.new)


def _property(node: object, name: str) -> object:
    properties = node.get("properties") if isinstance(node, dict) else None
    return properties.get(name) if isinstance(properties, dict) else None


_ROOT_RULES = {Direction.INPUT: ("input-schema-narrowed", "input-keyword-changed"),
               Direction.OUTPUT: ("output-schema-widened", "output-keyword-changed")}


def _root_backstop(pair: ToolPair, direction: Direction, found: Sequence[Finding],
                   finder: Callable[[Direction], WitnessFinder], context: Context) -> Iterable[Finding]:
    """The whole schema's proof has the last word: a proven break no rule reported is reported here,
    and an undecided change nothing flagged is flagged as "could not prove"."""
    schema_pairs = pair.pairs(direction)
    if not schema_pairs or not schema_pairs[0].both:
        return
    mine = [f for f in found if RULES_BY_ID[f.rule].direction is direction]
    if any(f.level is Level.BREAKING for f in mine):
        return
    root = schema_pairs[0]
    proof, steps = prove(root, context.strict)
    narrowed, unknown = (RULES_BY_ID[r] for r in _ROOT_RULES[direction])
    if proof.verdict is Verdict.NOT_COVERS:
        result = finder(direction).find((Mutation(steps, "set", proof.witness),), None)
        if result.found:
            what = "rejects arguments the old schema accepted" if direction is Direction.INPUT \
                else "admits results the old schema excluded"
            hit = Hit(f"the new schema {what} (proved on the whole schema)")
            yield dataclasses.replace(_finding(narrowed, hit, pair.old, pair.new, context, root),
                                      witness=result.value, has_witness=True)
            return
    if proof.verdict is not Verdict.COVERS and not any(f.level is Level.DANGEROUS for f in mine):
        reason = proof.reason if proof.verdict is Verdict.UNKNOWN else \
            "a difference was found but no whole value could be built and checked to show it"
        hit = Hit(f"could not prove the change is safe: {reason}")
        yield dataclasses.replace(_finding(unknown, hit, pair.old, pair.new, context, root),
                                  level=Level.DANGEROUS)


def _acknowledge(ignores: Sequence[IgnoreEntry], findings: Iterable[Finding]) -> Iterable[Finding]:
    for finding in findings:
        entry = next((e for e in ignores if e.matches(finding)), None)
        yield dataclasses.replace(finding, ignored_by=entry.describe()) if entry else finding
