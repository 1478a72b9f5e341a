"""Golden case directories for `contractgen diff`: one per rule plus cases that must find nothing.

Each case holds old/ and new/ manifests and expected.txt; `pytest --update-goldens` rewrites
expected.txt. Every witness is re-validated here with jsonschema, independently of the diff code.
"""

from __future__ import annotations

import difflib
from pathlib import Path

import jsonschema
import pytest
from diff_support import case_dirs, case_report, finding_lines

from contractgen.manifest import load_contracts

CASES = case_dirs()


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case_matches_expected_findings(case: Path, update_goldens: bool) -> None:
    code, report, _ = case_report(case)
    actual = "\n".join(finding_lines(report)) + "\n" if report["findings"] else ""
    expected_file = case / "expected.txt"
    if update_goldens:
        expected_file.write_text(actual, "utf-8")
    expected = expected_file.read_text("utf-8") if expected_file.exists() else None
    assert expected is not None, f"{expected_file} is missing; run pytest --update-goldens"
    if actual != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True),
                                            "expected.txt", "actual"))
        pytest.fail(f"{case.name}: findings differ (run `pytest --update-goldens` if intended)\n{diff}")
    assert code == report["result"]["exit_code"]


@pytest.mark.parametrize("case", [c for c in CASES if c.name.startswith("none-")],
                         ids=lambda c: c.name)
def test_no_change_cases_find_nothing(case: Path) -> None:
    code, report, _ = case_report(case)
    assert report["findings"] == [] and code == 0


def _schemas(folder: Path, tool: str, version: str) -> dict:
    result = load_contracts([folder])
    assert result.ok, result.diagnostics
    for candidate in result.contracts.tools:
        if candidate.name == tool and candidate.version == version:
            return dict(candidate.contract.input_schema)
    raise AssertionError(f"{tool} {version} not in {folder}")


def test_every_witness_is_accepted_by_old_and_rejected_by_new() -> None:
    checked = 0
    for case in CASES:
        _, report, _ = case_report(case)
        for finding in report["findings"]:
            if finding["witness"] is None:
                continue
            old = _schemas(case / "old", finding["tool"], finding["old_version"])
            new = _schemas(case / "new", finding["tool"], finding["new_version"])
            checker = jsonschema.Draft202012Validator.FORMAT_CHECKER
            assert jsonschema.Draft202012Validator(old, format_checker=checker).is_valid(finding["witness"]), \
                f"{case.name}: old schema rejects the witness of {finding['rule']}"
            assert not jsonschema.Draft202012Validator(new, format_checker=checker).is_valid(finding["witness"]), \
                f"{case.name}: new schema accepts the witness of {finding['rule']}"
            checked += 1
    assert checked >= 20  # the corpus has witnesses for every value rule


def test_breaking_value_findings_carry_a_witness_or_say_why_not() -> None:
    from contractgen.diff import RULES_BY_ID

    for case in CASES:
        _, report, _ = case_report(case)
        for finding in report["findings"]:
            rule = RULES_BY_ID[finding["rule"]]
            if rule.witness and finding["level"] == "breaking":
                assert finding["witness"] is not None or finding["witness_note"], (case.name, finding)
