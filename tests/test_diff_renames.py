"""Renames are compared, not only reported: with `migrations.renamed`, the old parameter's schema is
compared with its new name's, and a narrowing is reported at the new pointer with an old value the new
name refuses (tests/cases/diff/input-maximum-lowered--renamed)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import yaml
from conftest import run_cli
from diff_support import CASES

from contractgen.runtime import reference_validator

CASE = CASES / "input-maximum-lowered--renamed"


def findings(root: Path) -> list[dict]:
    result = run_cli("diff", "old", "new", "--format", "json", cwd=root)
    assert result.returncode in (0, 1), result.stderr
    return json.loads(result.stdout)["findings"]


def test_the_narrowing_of_a_renamed_parameter_is_reported_at_its_new_name() -> None:
    lowered = [f for f in findings(CASE) if f["rule"] == "input-maximum-lowered"]
    assert [f["pointer"] for f in lowered] == ["/input/properties/adults"], lowered
    witness = lowered[0]["witness"]
    new_input = yaml.safe_load((CASE / "new" / "demo.yaml").read_text("utf-8"))["input"]
    migrated = {"origin": witness["origin"], "adults": witness["passengers"]}
    assert not reference_validator.validator(new_input).is_valid(migrated), witness  # the value shows it


def test_without_the_migration_nothing_is_compared_across_names(tmp_path: Path) -> None:
    shutil.copytree(CASE, tmp_path / "case")
    new = tmp_path / "case" / "new" / "demo.yaml"
    doc = yaml.safe_load(new.read_text("utf-8"))
    doc["migrations"][0] = {"from": ">=1,<2", "removed": {"passengers": "send adults"}}
    new.write_text(yaml.safe_dump(doc, sort_keys=False), "utf-8")
    assert not any(f["rule"] == "input-maximum-lowered" for f in findings(tmp_path / "case"))
