"""``contractgen diff``: compare contract versions, print findings, and gate on breaking changes."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from datetime import date
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from ..diagnostics import Diagnostic
from ..diagnostics import Level as DiagnosticLevel
from ..diff import RULES, Context, Level, parse_settings, resolve_inputs, run_diff
from ..diff.engine import RuleError
from ..diff.levels import GROUPS, group_of
from ..diff.reading import ADJUSTMENTS
from ..diff.render import RENDERERS, Labels, render_text, summary
from ..diff.sarif import render_sarif
from .output import EXIT_INVALID, checked_config, print_diagnostics


class Format(str, Enum):
    text = "text"
    json = "json"
    markdown = "markdown"
    github = "github"
    junit = "junit"
    sarif = "sarif"


_RENDERERS = {**RENDERERS, "sarif": render_sarif}


class FailOn(str, Enum):
    breaking = "breaking"
    dangerous = "dangerous"


def diff(
    paths: Annotated[list[Path] | None, typer.Argument(
        help="OLD NEW (two folders or two files); or one folder to compare the versions side by side in it; "
             "with --against, the working-tree folder (default: the configured contracts folder).")] = None,
    against: Annotated[str | None, typer.Option(
        "--against", metavar="REV", help="Compare the working tree with the same paths at this git revision.")] = None,
    versions: Annotated[bool, typer.Option(
        "--versions", help="Compare each consecutive pair of versions of every tool in the given tree.")] = False,
    output_format: Annotated[Format, typer.Option("--format", "-f", help="Output format.")] = Format.text,
    fail_on: Annotated[FailOn | None, typer.Option(
        "--fail-on", help="Lowest level that fails the run (default from config, else breaking).")] = None,
    strict: Annotated[bool | None, typer.Option(
        "--strict/--no-strict", help="Pure set semantics in both directions: breaking exactly when the accepted "
                                      "inputs shrink or the returned outputs grow (no policy adjustments).")] = None,
    list_rules: Annotated[bool, typer.Option("--list-rules", help="Print every rule (ID, level, summary) and exit.")] = False,
    today: Annotated[str | None, typer.Option(
        "--today", metavar="YYYY-MM-DD", help="The date sunsets are compared with (default: today).")] = None,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write the report to this file.")] = None,
    proof_budget: Annotated[float | None, typer.Option(
        "--proof-budget", metavar="SECONDS", min=0.001, help="Seconds all proofs of this diff may take; past "
        "it a change is reported as 'could not prove' (default: proof_budget in pyproject.toml, else 120).")] = None,
) -> None:
    """Find breaking changes between contract versions (exit 0 none, 1 found, 2 invalid input)."""
    if list_rules:
        typer.echo(_rules_listing(output_format), nl=False)
        raise typer.Exit(0)
    config = checked_config(*(["contracts"] if paths else []))
    settings, problems = parse_settings(config.diff, {r.id for r in RULES},
                                        str(config.root / "pyproject.toml") if config.diff else "pyproject.toml")
    given = list(paths or [])
    if against is not None and len(given) > 1:
        problems.append(_usage(f"expected at most one path with --against (got {len(given)})",
                               "contractgen diff --against main contracts/"))
    if against is None and not versions and len(given) > 2:
        problems.append(_usage(f"expected one or two paths (got {len(given)})",
                               "contractgen diff OLD NEW, or --versions with several folders"))
    day = date.today()
    if today is not None:
        try:
            day = date.fromisoformat(today)
        except ValueError:
            problems.append(_usage(f"expected --today as YYYY-MM-DD (got {today!r})",
                                   "write the date in ISO form, e.g. --today 2030-01-31"))
    if output is not None:
        clobbered = _report_path_problem(output, given or [config.contracts])
        if clobbered is not None:
            problems.append(clobbered)
    if problems:
        print_diagnostics(problems)
        raise typer.Exit(EXIT_INVALID)
    settings = dataclasses.replace(
        settings, fail_on=Level(fail_on.value) if fail_on is not None else settings.fail_on,
        strict=settings.strict if strict is None else strict,
        proof_budget=settings.proof_budget if proof_budget is None else proof_budget)
    inputs = resolve_inputs(given, against=against, versions=versions, default_contracts=config.contracts)
    # warnings are `contractgen check`'s business; the diff only stops on errors
    print_diagnostics(d for d in inputs.diagnostics if d.level is DiagnosticLevel.ERROR)
    if not inputs.ok:
        typer.echo(_not_run(inputs.diagnostics), err=True)
        raise typer.Exit(EXIT_INVALID)
    try:
        report = run_diff(inputs.pairs, inputs.changes, settings, Context(today=day, strict=settings.strict))
        # versions left out unread were byte-identical: compared, and found equal
        report = dataclasses.replace(report, compared=report.compared + inputs.unchanged)
    except RuleError as exc:  # a defect in a rule: say which, never print a traceback
        print_diagnostics([Diagnostic("contractgen diff", "", f"internal error: {exc}", code="rule-failed",
                                      hint="please report this with the two manifests involved")])
        raise typer.Exit(EXIT_INVALID) from None
    labels = Labels(inputs.mode, inputs.old_label, inputs.new_label,
                    old_prefix=f"{against}:" if against is not None else "", strict=settings.strict)
    if output_format is Format.text:
        colour = output is None and sys.stdout.isatty() and "NO_COLOR" not in os.environ
        text = render_text(report, labels, color=colour)
    else:
        text = _RENDERERS[output_format.value](report, labels)
    if output is not None:
        try:
            output.write_text(text, "utf-8")
        except OSError as exc:
            print_diagnostics([Diagnostic(str(output), "", f"expected a file the report can be written to "
                                          f"(got {exc.strerror or exc})", code="unwritable-report",
                                          hint="pass --output a file in a folder that exists and has room")])
            raise typer.Exit(EXIT_INVALID) from None
        typer.echo(summary(report), err=True)
    else:
        sys.stdout.write(text)
    raise typer.Exit(report.exit_code)


def _not_run(diagnostics: list[Diagnostic]) -> str:
    """The closing line when the diff cannot run: what to fix, named after what went wrong."""
    from ..diff.git import GIT_CODES

    errors = [d for d in diagnostics if d.level is DiagnosticLevel.ERROR]
    if errors and all(d.code in GIT_CODES for d in errors):
        return "diff not run: fix --against as the hint above says, then run the same command again"
    return "diff not run: fix the manifests above first (`contractgen check` lists every problem)"


def _report_path_problem(output: Path, compared: list[Path]) -> Diagnostic | None:
    """Why ``--output`` may not be written: a folder, one of the manifests compared (it was replaced
    by the report), or a manifest name inside a compared folder (the next run would read the report
    as a manifest)."""
    from ..manifest.load import MANIFEST_SUFFIXES

    target = output.resolve()
    if target.is_dir():
        return _usage(f"expected --output to name a file (got {output}, a folder)", "add a file name: -o report.txt")
    for path in compared:
        root = path.resolve()
        inside = target == root or (root.is_dir() and root in target.parents)
        if inside and (target == root or target.name.endswith(MANIFEST_SUFFIXES)):
            return _usage(f"expected --output outside the manifests compared (got {output}, "
                          f"{'one of them' if target == root or target.exists() else 'a manifest name in ' + str(path)})",
                          "write the report elsewhere, e.g. -o diff-report.txt in the project root")
    return None


def _usage(message: str, hint: str | None) -> Diagnostic:
    return Diagnostic("contractgen diff", "", message, hint=hint, code="usage")


def _rules_listing(output_format: Format) -> str:
    if output_format is Format.json:
        return json.dumps([{"id": r.id, "level": r.level.value, "tag": r.level.tag, "direction": r.direction.value,
                            "scope": r.scope.value, "group": group_of(r), "summary": r.summary, "rationale": r.rationale,
                            "witness": r.witness,
                            "strict_level": r.strict_level.value if r.strict_level else None} for r in RULES],
                          indent=2) + "\n"
    width = max(len(r.id) for r in RULES)
    lines = [f"{'LEVEL':<5} {'RULE':<{width}}  {'DIRECTION':<9}  {'GROUP':<7}  SUMMARY"]
    for rule in RULES:
        lines.append(f"{rule.level.tag:<5} {rule.id:<{width}}  {rule.direction.value:<9}  {group_of(rule):<7}  "
                     f"{rule.summary}")
    lines += ["", "Groups (for [tool.contractgen.diff.levels]):"]
    lines += [f"  {name:<7}  {meaning}" for name, meaning in GROUPS.items()]
    lines += ["", "Default policy = set semantics (--strict) plus these adjustments:"]
    lines += [f"  {direction:<6} {what}: {why}" for direction, what, why in ADJUSTMENTS]
    return "\n".join(lines) + "\n"


def register(app: typer.Typer) -> None:
    app.command("diff")(diff)
