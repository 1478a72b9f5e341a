"""Golden case directories for `contractgen diff`: one per rule plus cases that must find nothing.

Each case holds old/ and new/ manifests and expected.txt; `pytest --update-goldens` rewrites
expected.txt. Every witness is re-validated here with jsonschema, independently of the diff code.
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path

import pytest
from diff_support import (
    case_dirs,
    case_report,
    case_run,
    finding_lines,
    run_case,
    run_case_in_process,
    sampled_case_dirs,
    strict_case_dirs,
)

from contractgen.diff import RULES_BY_ID
from contractgen.manifest import load_contracts
from contractgen.runtime import reference_validator

CASES = case_dirs()
STRICT_CASES = strict_case_dirs()
CASES_BY_NAME = {c.name: c for c in CASES}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case_matches_expected_findings(case: Path, update_goldens: bool) -> None:
    _check_golden(case, "expected.txt", False, update_goldens)


@pytest.mark.parametrize("case", STRICT_CASES, ids=[c.name for c in STRICT_CASES])
def test_case_matches_expected_findings_under_strict(case: Path, update_goldens: bool) -> None:
    _check_golden(case, "expected-strict.txt", True, update_goldens)


SAMPLED = [(c, False) for c in sampled_case_dirs()] + [(c, True) for c in sampled_case_dirs(strict=True)]


@pytest.mark.parametrize(("case", "strict"), SAMPLED,
                         ids=[f"{c.name}{'-strict' if s else ''}" for c, s in SAMPLED])
def test_real_process_gives_exactly_the_in_process_run(case: Path, strict: bool) -> None:
    """The golden runs go through the CLI's entry point inside the test process; on a sample of the
    cases a real `python -m contractgen diff` must print the same bytes and exit the same way."""
    extra = ("--strict",) if strict else ()
    assert run_case(case, *extra) == case_run(case, strict)


@pytest.mark.parametrize("case", sampled_case_dirs()[::2], ids=lambda c: c.name)
def test_real_process_gives_exactly_the_in_process_sarif(case: Path) -> None:
    """The same for the SARIF output, which the CI-ergonomics tests read in process for every kind of case."""
    assert run_case(case, fmt="sarif") == run_case_in_process(case, fmt="sarif")


def _check_golden(case: Path, name: str, strict: bool, update_goldens: bool) -> None:
    code, report, _ = case_report(case, strict)
    actual = "\n".join(finding_lines(report)) + "\n" if report["findings"] else ""
    expected_file = case / name
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


def _schemas(folder: Path, tool: str, version: str, direction: str) -> dict:
    result = load_contracts([folder])
    assert result.ok, result.diagnostics
    for candidate in result.contracts.tools:
        if candidate.name == tool and candidate.version == version:
            contract = candidate.contract
            return dict(contract.input_schema if direction == "input" else contract.output_schema)
    raise AssertionError(f"{tool} {version} not in {folder}")


def _all_reports() -> list[tuple[str, dict]]:
    runs = [(c, False) for c in CASES] + [(c, True) for c in STRICT_CASES]
    return [(f"{case.name}{' --strict' if strict else ''}", case_report(case, strict)[1]) for case, strict in runs]


def test_every_witness_is_confirmed_by_jsonschema_in_its_direction() -> None:
    """Input: accepted by the old input schema, rejected by the new. Output: allowed by the new output
    schema, rejected by the old. Checked here with jsonschema, independently of the diff's own
    reasoning, with the project's one regex semantics (the guard's, runtime/reference_validator.py)."""
    checked = {"input": 0, "output": 0}
    for name, report in _all_reports():
        case = CASES_BY_NAME[name.split(" ")[0]]
        for finding in report["findings"]:
            if not finding["has_witness"]:
                continue
            direction = RULES_BY_ID[finding["rule"]].direction.value
            if direction == "contract":  # a result rule's witness: judged by the rules themselves
                _confirm_result_rule_witness(name, case, finding)
                checked[direction] = checked.get(direction, 0) + 1
                continue
            old = _schemas(case / "old", finding["tool"], finding["old_version"], direction)
            new = _schemas(case / "new", finding["tool"], finding["new_version"], direction)
            accepting, rejecting = (old, new) if direction == "input" else (new, old)
            assert reference_validator.validator(accepting).is_valid(finding["witness"]), \
                f"{name}: the witness of {finding['rule']} is not a valid {direction} of the side it must fit"
            assert not reference_validator.validator(rejecting).is_valid(
                finding["witness"]), f"{name}: the witness of {finding['rule']} does not tell the schemas apart"
            checked[direction] += 1
    assert checked["input"] >= 40 and checked["output"] >= 10 and checked.get("contract", 0) >= 5, checked


def _confirm_result_rule_witness(name: str, case: Path, finding: dict) -> None:
    """The old contract's result rules refuse the witness and the new contract's accept it (a
    date-time relative to the call is written out for the call made now)."""
    import re
    from datetime import UTC, datetime, timedelta

    from contractgen.runtime.result_rules import compile_result_rules

    units = {"d": 86400, "h": 3600, "min": 60, "s": 1}
    now = datetime.now(UTC)

    def timestamp(match: re.Match[str]) -> str:
        seconds = float(match[1]) * units[match[2]] * (1 if match[3] == "before" else -1)
        return (now - timedelta(seconds=seconds)).isoformat()

    text = re.sub(r"<([0-9.]+) (d|h|min|s) (before|after) the call>", timestamp, json.dumps(finding["witness"]))
    witness = json.loads(text)
    contracts = []
    for side, version in (("old", finding["old_version"]), ("new", finding["new_version"])):
        loaded = load_contracts([case / side])
        contracts.append(next(t.contract for t in loaded.contracts.tools
                              if t.name == finding["tool"] and t.version == version))
    refuse, accept = (compile_result_rules(c) for c in contracts)
    assert refuse is not None and refuse(witness), f"{name}: the old rules accept the witness {witness}"
    assert accept is None or accept(witness) == [], f"{name}: the new rules refuse the witness {witness}"


def test_every_breaking_value_finding_carries_a_witness() -> None:
    """No ERR about values without proof: without a witness a value finding is at most WARN."""
    for name, report in _all_reports():
        for finding in report["findings"]:
            rule = RULES_BY_ID[finding["rule"]]
            if rule.witness and finding["level"] == "breaking":
                assert finding["has_witness"], (name, finding)
            downgraded = rule.level_for(name.endswith("--strict")).value == "breaking" and \
                finding["level"] == "dangerous"
            if rule.witness and downgraded:
                assert (finding["witness_note"] or "").startswith("could not prove"), (name, finding)


@pytest.mark.parametrize("case", STRICT_CASES, ids=[c.name for c in STRICT_CASES])
def test_labelled_verdicts_hold(case: Path) -> None:
    """labels.json says, per direction and reading, whether the change breaks; ERR findings must agree."""
    labels = json.loads((case / "labels.json").read_text("utf-8"))
    for reading, strict in (("default", False), ("strict", True)):
        _, report, _ = case_report(case, strict)
        for direction in ("input", "output"):
            breaking = any(f["level"] == "breaking" and RULES_BY_ID[f["rule"]].direction.value == direction
                           for f in report["findings"])
            assert ("breaking" if breaking else "safe") == labels[direction][reading], (reading, direction)


#: what each rule's witness must show at its pointer (contractgen/diff/claims.py says the same, and
#: this reads it independently from the finding's pointer)
WITNESS_CLAIMS = {"output-property-removed": "absent", "output-optional-property-removed": "absent",
                  "output-property-became-optional": "absent", "input-property-became-required": "absent",
                  "input-property-added-required": "absent", "output-nullability-added": "null",
                  "input-nullability-removed": "null"}


def _at(witness: object, pointer: str) -> tuple[bool, object]:
    """(found, value) at a pointer made of /properties/<name> steps (found False when a step is missing);
    None for a pointer through anything else."""
    parts = pointer.split("/")[2:]
    if len(parts) % 2 or any(parts[i] != "properties" for i in range(0, len(parts), 2)):
        return None  # type: ignore[return-value]
    value = witness
    for name in parts[1::2]:
        name = name.replace("~1", "/").replace("~0", "~")
        if not isinstance(value, dict) or name not in value:
            return False, None
        value = value[name]
    return True, value


def test_every_witness_shows_its_own_claim_or_says_it_does_not() -> None:
    """Per rule, in both readings: the property absent for became-optional/removed/newly required, null
    for nullability; a witness that only tells the schemas apart carries a note saying so."""
    checked = 0
    for name, report in _all_reports():
        for finding in report["findings"]:
            claim = WITNESS_CLAIMS.get(finding["rule"])
            if claim is None or not finding["has_witness"]:
                continue
            located = _at(finding["witness"], finding["pointer"])
            if located is None:
                continue
            found, value = located
            shown = not found if claim == "absent" else found and value is None
            assert shown or (finding["witness_note"] or "").startswith("this witness tells the schemas apart"), \
                (name, finding["rule"], finding["pointer"], finding["witness"])
            checked += shown
    assert checked >= 10, checked
