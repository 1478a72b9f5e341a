"""Helpers shared by the diff tests: run `contractgen diff` on a case directory and read its findings."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from conftest import ROOT, run_cli, run_cli_in_process

CASES = ROOT / "tests" / "cases" / "diff"
#: cases run on a fixed date, so sunset comparisons never drift
TODAY = "2026-11-30"


def case_dirs() -> list[Path]:
    return sorted(p for p in CASES.iterdir() if p.is_dir() and (p / "old").is_dir())


def _case_command(case: Path, extra: tuple[str, ...], fmt: str) -> list[str]:
    args_file = case / "args.txt"
    args = args_file.read_text("utf-8").split() if args_file.exists() else []
    return ["diff", "old", "new", "--format", fmt, "--today", TODAY, *args, *extra]


def run_case(case: Path, *extra: str, fmt: str = "json") -> tuple[int, str, str]:
    """The case through the real CLI in a fresh process."""
    result = run_cli(*_case_command(case, extra, fmt), cwd=case)
    return result.returncode, result.stdout, result.stderr


def run_case_in_process(case: Path, *extra: str, fmt: str = "json") -> tuple[int, str, str]:
    """The same command line inside this process (see ``run_cli_in_process``); one thread at a time."""
    result = run_cli_in_process(*_case_command(case, extra, fmt), cwd=case)
    return result.returncode, result.stdout, result.stderr


def strict_case_dirs() -> list[Path]:
    """Cases that also pin their findings under --strict (expected-strict.txt)."""
    return [c for c in case_dirs() if (c / "labels.json").exists()]


#: every this-many-th case is also run as a real process, and must give exactly the in-process result
SAMPLE_STRIDE = 12


def sampled_case_dirs(strict: bool = False) -> list[Path]:
    return (strict_case_dirs() if strict else case_dirs())[::SAMPLE_STRIDE]


@lru_cache(maxsize=2)
def _all_runs(strict: bool = False) -> dict[Path, tuple[int, str, str]]:
    """Every case through the CLI's entry point once per session, in this process: a fresh interpreter
    per case cost about a second each, the diff itself a few milliseconds (the sampled cases prove the
    two ways agree)."""
    cases = strict_case_dirs() if strict else case_dirs()
    extra = ("--strict",) if strict else ()
    return {case: run_case_in_process(case, *extra) for case in cases}


def case_run(case: Path, strict: bool = False) -> tuple[int, str, str]:
    """The session's run of ``case`` (exit code, stdout, stderr)."""
    return _all_runs(strict)[case]


def case_report(case: Path, strict: bool = False) -> tuple[int, dict[str, Any], str]:
    code, out, err = case_run(case, strict)
    assert code in (0, 1), f"{case.name}: exit {code}\n{err}"
    return code, json.loads(out), err


def finding_lines(report: dict[str, Any]) -> list[str]:
    """The golden form: `LEVEL rule-id #/pointer: message`, then the witness (or why there is none)."""
    lines: list[str] = []
    for finding in report["findings"]:
        lines.append(f"{finding['tag']} {finding['rule']} #{finding['pointer']}: {finding['message']}")
        if finding["has_witness"]:
            lines.append("    witness: " + json.dumps(finding["witness"], sort_keys=True))
        elif finding["witness_note"]:
            lines.append(f"    {finding['witness_note']}")
    return lines
