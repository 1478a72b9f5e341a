"""The prover answers within a bound (contractgen/diff/budget.py): a proof past its time budget, or past
what is left of the whole diff's (`--proof-budget`, `proof_budget`), says "could not prove", never a
wrong verdict and never a hang. The time limits below are hang guards only, far above the budgets."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import run_cli

from contractgen.prover import Verdict, clear_caches, contains
from contractgen.prover.budget import OverBudget, proof_step, start_diff

#: generous: the budgets are 2 s per proof and the patterns below took 17 s to over 60 s before
HANG_GUARD = 60


def write_pair(root: Path, old_input: dict[str, Any], new_input: dict[str, Any]) -> Path:
    for side, schema, version in (("old", old_input, "1.0.0"), ("new", new_input, "1.1.0")):
        doc = {"name": "demo", "version": version, "summary": "Demo tool.", "description": "A demo tool.",
               "input": {"type": "object", "additionalProperties": False, "properties": {"code": schema}},
               "output": {"type": "object", "properties": {"result": {"type": "string"}}}}
        (root / side).mkdir(parents=True, exist_ok=True)
        (root / side / "demo.yaml").write_text(yaml.safe_dump(doc, sort_keys=False), "utf-8")
    return root


def diff(root: Path, *extra: str) -> tuple[int, list[dict[str, Any]], float]:
    started = time.monotonic()
    try:
        result = run_cli("diff", "old", "new", "--format", "json", *extra, cwd=root, timeout=HANG_GUARD)
    except subprocess.TimeoutExpired:
        pytest.fail(f"contractgen diff did not answer within {HANG_GUARD} s")
    assert result.returncode in (0, 1), result.stderr
    return result.returncode, json.loads(result.stdout)["findings"], time.monotonic() - started


def test_an_exponential_pattern_automaton_is_could_not_prove(tmp_path: Path) -> None:
    """`^b[ab]*a[ab]{12}$` relaxed to `^[ab]*a[ab]{12}$` (a widening): its automaton grows as 2^12 and
    the inclusion step used to run for minutes; now the step gives up and the change is WARN."""
    root = write_pair(tmp_path, {"type": "string", "pattern": "^b[ab]*a[ab]{12}$"},
                      {"type": "string", "pattern": "^[ab]*a[ab]{12}$"})
    code, findings, _ = diff(root)
    assert code == 0 and findings, findings
    assert {f["level"] for f in findings} == {"dangerous"}, findings
    assert all((f["witness_note"] or f["message"]).count("could not prove") for f in findings), findings


def test_an_any_of_of_a_hundred_widened_patterns_answers(tmp_path: Path) -> None:
    """Branch pairs are weighed against their most alike counterparts only, and the whole schema's
    proof gives up at its budget: every branch is proven harmless, the whole is WARN at worst."""
    branches = [{"type": "string", "pattern": f"^q{i}[a-z]{{3}}$"} for i in range(100)]
    widened = [{"type": "string", "pattern": f"^q{i}[a-z]{{3,5}}$"} for i in range(100)]
    code, findings, _ = diff(write_pair(tmp_path, {"anyOf": branches}, {"anyOf": widened}))
    assert code == 0 and not any(f["level"] == "breaking" for f in findings), findings
    pattern_findings = [f for f in findings if f["rule"] == "input-pattern-changed"]
    assert len(pattern_findings) == 100 and all(f["level"] == "safe" for f in pattern_findings)
    # each branch was paired with its own widening, not a neighbour's
    assert all(f["pointer"].endswith(f"/anyOf/{f['message'].split('^q')[1].split('[')[0]}")
               for f in pattern_findings)


def test_the_whole_diff_budget_is_the_users(tmp_path: Path) -> None:
    """--proof-budget bounds every proof of the diff: with almost none, what the default budget proves
    harmless becomes "could not prove", and the note names the option."""
    root = write_pair(tmp_path, {"type": "string", "pattern": "^[a-z]{3}$"}, {"type": "string", "pattern": "^[a-z]{3,5}$"})
    _, proven, _ = diff(root)
    assert [f["level"] for f in proven] == ["safe"], proven
    code, starved, _ = diff(root, "--proof-budget", "0.001")
    assert code == 0 and starved and {f["level"] for f in starved} == {"dangerous"}, starved
    assert any("--proof-budget" in (f["witness_note"] or f["message"]) for f in starved), starved


@pytest.mark.parametrize("value", ["'soon'", "0", "-1", "true"])
def test_a_proof_budget_that_is_not_seconds_is_a_diagnostic(tmp_path: Path, value: str) -> None:
    root = write_pair(tmp_path, {"type": "string"}, {"type": "string", "maxLength": 3})
    (root / "pyproject.toml").write_text(f"[tool.contractgen.diff]\nproof_budget = {value}\n", "utf-8")
    result = run_cli("diff", "old", "new", cwd=root, timeout=HANG_GUARD)
    assert result.returncode == 2 and "proof_budget" in result.stderr and "Traceback" not in result.stderr
    assert "expected a number of seconds above 0" in result.stderr


def test_a_proof_step_interrupts_pure_python_work() -> None:
    started = time.monotonic()
    with pytest.raises(OverBudget, match="budget"), proof_step(0.2):
        while time.monotonic() - started < HANG_GUARD:
            pass
    assert time.monotonic() - started < HANG_GUARD


def test_a_spent_diff_budget_answers_unknown_at_once() -> None:
    clear_caches()
    try:
        start_diff(0.000001)
        time.sleep(0.01)
        proof = contains({"type": "string"}, {"type": "string", "maxLength": 3})
        assert proof.verdict is Verdict.UNKNOWN and "--proof-budget" in proof.reason
    finally:
        start_diff()
        clear_caches()


def test_a_diff_budget_ends_with_its_run() -> None:
    """A spent diff budget once outlived its run: a later proof in the same process (a ``check``, say)
    answered "could not prove" at once."""
    from datetime import date

    from contractgen.diff.engine import run_diff
    from contractgen.diff.ignores import DiffSettings
    from contractgen.diff.model import Context

    clear_caches()
    try:
        run_diff([], [], DiffSettings(proof_budget=0.000001), Context(today=date(2026, 1, 1)))
        time.sleep(0.01)
        proof = contains({"type": "string"}, {"type": "string", "maxLength": 3})
        assert proof.verdict is Verdict.COVERS, proof
    finally:
        start_diff()
        clear_caches()
