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
from contractgen.runtime import Contract, reference_validator

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
    contract = _contract(folder, tool, version)
    return dict(contract.input_schema if direction == "input" else contract.output_schema)


def _contract(folder: Path, tool: str, version: str) -> Contract:
    result = load_contracts([folder])
    assert result.ok, result.diagnostics
    for candidate in result.contracts.tools:
        if candidate.name == tool and candidate.version == version:
            return candidate.contract
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


#: what each rule's witness must show at its pointer (contractgen/diff/claims.py says the same; this
#: reads it independently, from the finding's pointer and the case's own schemas, with jsonschema)
WITNESS_CLAIMS = {
    **dict.fromkeys(("output-property-removed", "output-property-became-optional", "input-property-became-required",
                     "input-property-added-required"), "absent"),
    **dict.fromkeys(("input-property-removed", "input-property-added-optional", "output-property-added"), "present"),
    **dict.fromkeys(("output-nullability-added", "input-nullability-removed"), "null"),
    **dict.fromkeys(("input-enum-value-removed", "input-const-changed", "output-enum-value-added"), "enum"),
    **dict.fromkeys(("input-type-narrowed", "output-type-widened"), "type"),
    **dict.fromkeys(("input-minimum-raised", "input-maximum-lowered", "input-min-length-raised",
                     "input-max-length-lowered", "input-min-items-raised", "input-max-items-lowered",
                     "input-unique-items-added", "input-pattern-added", "input-pattern-changed", "input-format-added",
                     "input-format-changed", "input-additional-properties-closed", "input-branch-removed",
                     "input-schema-narrowed", "output-optional-property-removed", "output-schema-widened"), "refused"),
}


def _at(witness: object, pointer: str) -> tuple[bool, object] | None:
    """(found, value) at a pointer made of /properties/<name> steps and branches of anyOf/oneOf/allOf
    (which apply to the same value); found False when a step is missing; None for a pointer through
    anything else."""
    parts = pointer.split("/")[2:]
    names = []
    while parts:
        if len(parts) >= 2 and parts[0] in ("anyOf", "oneOf", "allOf") and parts[1].isdigit():
            parts = parts[2:]
        elif len(parts) >= 2 and parts[0] == "properties":
            names.append(parts[1].replace("~1", "/").replace("~0", "~"))
            parts = parts[2:]
        else:
            return None
    value = witness
    for name in names:
        if not isinstance(value, dict) or name not in value:
            return False, None
        value = value[name]
    return True, value


def _subschema(root: dict, pointer: str) -> object:
    """The schema at ``pointer`` (#/input/...) in ``root``, following local $refs on the way; None
    where the position does not exist on this side."""
    node: object = root
    for part in pointer.split("/")[2:]:
        while isinstance(node, dict) and isinstance(node.get("$ref"), str) and node["$ref"].startswith("#/"):
            node = _subschema(root, "#/x" + node["$ref"][1:])
        if not isinstance(node, dict) or part.replace("~1", "/").replace("~0", "~") not in node:
            return None
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def _listed(schema: object) -> list:
    if not isinstance(schema, dict):
        return []
    return [schema["const"]] if "const" in schema else list(schema.get("enum", []))


def _claim_holds(claim: str, found: bool, value: object, roots: tuple[dict, dict], pointers: tuple[str, str]) -> bool:
    """Whether the value at the finding's pointer shows ``claim``; ``roots`` and ``pointers`` are the
    (accepting, refusing) sides' (an input witness is an old call: a renamed parameter has its old name)."""
    if claim in ("absent", "present"):
        return found == (claim == "present")
    if not found:
        return False
    if claim == "null":
        return value is None
    accepting, refusing = (_subschema(root, pointer) for root, pointer in zip(roots, pointers))
    if claim == "enum":
        def listed_in(schema: object) -> bool:
            return any(type(v) is type(value) and v == value for v in _listed(schema))
        return (not _listed(accepting) or listed_in(accepting)) and not listed_in(refusing)

    def valid(root: dict, schema: object, only_type: bool = False) -> bool:
        if schema is None:
            return False
        if only_type:
            schema = {"type": schema["type"]} if isinstance(schema, dict) and "type" in schema else True
        return bool(reference_validator.validator(root).evolve(schema=schema).is_valid(value))

    if claim == "type":
        return valid(roots[0], accepting, True) and not valid(roots[1], refusing, True)
    # a position gone from the accepting side leaves the value to the rest of its object (the witness
    # is checked against the whole schema on each side by the test above)
    return (accepting is None or valid(roots[0], accepting)) and (refusing is None or not valid(roots[1], refusing))


def test_every_witness_shows_its_own_claim_or_says_it_does_not() -> None:
    """Per rule, in both readings, over every case directory: the property absent for became-optional/
    removed/newly required, present where a closed input no longer takes it, null for nullability, the
    gained or lost enum value, a type only one side allows, otherwise a value the narrowed position
    itself refuses. A witness that only tells the schemas apart carries a note saying so, and one that
    shows its claim carries none."""
    shown: dict[str, int] = {}
    for name, report in _all_reports():
        case = CASES_BY_NAME[name.split(" ")[0]]
        for finding in report["findings"]:
            claim = WITNESS_CLAIMS.get(finding["rule"])
            if claim is None or not finding["has_witness"]:
                continue
            direction = RULES_BY_ID[finding["rule"]].direction.value
            instance = finding["pointer"]
            if direction == "input" and claim not in ("absent", "present"):  # a value claim: an input witness
                # is an old call, where a renamed parameter has its old name
                renamed = {f"/input/properties/{new}": f"/input/properties/{old}" for migration in
                           _contract(case / "new", finding["tool"], finding["new_version"]).migrations
                           for old, new in migration.renamed}
                instance = renamed.get(instance, instance)
            located = _at(finding["witness"], instance)
            if located is None:
                continue  # an instance path this test cannot read from the pointer (items, branches)
            old = _schemas(case / "old", finding["tool"], finding["old_version"], direction)
            new = _schemas(case / "new", finding["tool"], finding["new_version"], direction)
            roots = (old, new) if direction == "input" else (new, old)
            pointers = (instance, finding["pointer"]) if direction == "input" else (instance, instance)
            holds = _claim_holds(claim, *located, roots, pointers)
            noted = (finding["witness_note"] or "").startswith("this witness tells the schemas apart")
            assert holds != noted, (name, finding["rule"], finding["pointer"], finding["witness"], noted)
            shown[finding["rule"]] = shown.get(finding["rule"], 0) + holds
    # every rule that prints a witness has its claim shown somewhere in the cases
    witness_rules = {r.id for r in RULES_BY_ID.values() if r.witness}
    assert set(WITNESS_CLAIMS) == witness_rules
    missing = sorted(rule for rule in witness_rules if not shown.get(rule))
    assert missing == [], (missing, shown)
