"""Helpers shared by the diff tests: run `contractgen diff` on a case directory and read its findings."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path
from typing import Any

from conftest import ROOT, run_cli

CASES = ROOT / "tests" / "cases" / "diff"
#: cases run on a fixed date, so sunset comparisons never drift
TODAY = "2026-11-30"


def case_dirs() -> list[Path]:
    return sorted(p for p in CASES.iterdir() if p.is_dir() and (p / "old").is_dir())


def run_case(case: Path, *extra: str, fmt: str = "json") -> tuple[int, str, str]:
    args_file = case / "args.txt"
    args = args_file.read_text("utf-8").split() if args_file.exists() else []
    result = run_cli("diff", "old", "new", "--format", fmt, "--today", TODAY, *args, *extra, cwd=case)
    return result.returncode, result.stdout, result.stderr


def strict_case_dirs() -> list[Path]:
    """Cases that also pin their findings under --strict (expected-strict.txt)."""
    return [c for c in case_dirs() if (c / "labels.json").exists()]


def _run_strict(case: Path) -> tuple[int, str, str]:
    return run_case(case, "--strict")


@lru_cache(maxsize=2)
def _all_runs(strict: bool = False) -> dict[Path, tuple[int, str, str]]:
    """Every case through the real CLI once per session, a few at a time (each run is a fresh process)."""
    cases = strict_case_dirs() if strict else case_dirs()
    with ThreadPoolExecutor(max_workers=4) as pool:
        return dict(zip(cases, pool.map(_run_strict if strict else run_case, cases)))


def case_report(case: Path, strict: bool = False) -> tuple[int, dict[str, Any], str]:
    code, out, err = _all_runs(strict)[case]
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
