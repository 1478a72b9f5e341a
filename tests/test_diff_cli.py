"""`contractgen diff` end to end: exit codes, policies, every output format, acknowledgements, versions mode."""

from __future__ import annotations

import json
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import yaml
from conftest import run_cli
from diff_support import CASES, TODAY, run_case


def _copy_case(name: str, tmp_path: Path) -> Path:
    target = tmp_path / name
    shutil.copytree(CASES / name, target)
    return target


def _manifest(path: Path, **fields: object) -> None:
    doc = {"name": "demo", "version": "1.0.0", "summary": "Demo.", "description": "A demo tool.",
           "input": {"type": "object", "additionalProperties": False, "required": ["query"],
                     "properties": {"query": {"type": "string"}}},
           "output": {"type": "object", "properties": {"result": {"type": "string"}}}}
    doc.update(fields)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(doc, sort_keys=False), "utf-8")


def test_breaking_change_without_major_bump_exits_1() -> None:
    code, out, _ = run_case(CASES / "major-bump-required", fmt="text")
    assert code == 1
    assert "ERR  major-bump-required" in out and "FAILED" in out


def test_breaking_change_with_major_bump_is_allowed_and_exits_0() -> None:
    code, out, _ = run_case(CASES / "input-enum-value-removed", fmt="text")
    assert code == 0
    assert "allowed: major version bump 1.0.0 -> 2.0.0" in out
    assert "\x1b[" not in out  # no colour when stdout is not a terminal


def test_breaking_change_from_a_pre_release_is_allowed_in_every_format() -> None:
    """2.0.0-rc.1 -> 2.0.0: a pre-release promised no compatibility (SemVer 2.0, section 9), so the
    break is printed, marked allowed, and fails nothing; text, markdown and SARIF say why."""
    case = CASES / "input-enum-value-removed--from-a-pre-release"
    code, out, _ = run_case(case, fmt="text")
    assert code == 0, out
    assert "ERR  input-enum-value-removed" in out and "major-bump-required" not in out
    assert "allowed: 2.0.0-rc.1 is a pre-release, which promises no compatibility (2.0.0-rc.1 -> 2.0.0)" in out
    assert "(1 allowed by a pre-release version)" in out and out.rstrip().endswith("OK")
    assert "(allowed: pre-release)" in run_case(case, fmt="markdown")[1]
    sarif = json.loads(run_case(case, fmt="sarif")[1])
    suppressions = [s for r in sarif["runs"][0]["results"] for s in r.get("suppressions", [])]
    assert suppressions and all("pre-release" in s["justification"] for s in suppressions), suppressions


def test_breaking_change_to_a_pre_release_of_the_same_major_still_fails() -> None:
    """1.0.0 -> 1.1.0-beta.1: the release it leads to must keep 1.0.0's calls working."""
    code, out, _ = run_case(CASES / "major-bump-required--to-a-pre-release", fmt="text")
    assert code == 1
    assert "ERR  major-bump-required" in out and "allowed" not in out


def test_dangerous_fails_only_with_fail_on_dangerous() -> None:
    case = CASES / "input-default-changed"  # WARN only (output-enum-value-added is ERR since the set grows)
    assert run_case(case)[0] == 0
    code, out, _ = run_case(case, "--fail-on", "dangerous")
    assert code == 1
    assert json.loads(out)["result"]["failing"]


def test_invalid_manifest_exits_2_with_a_diagnostic(tmp_path: Path) -> None:
    _manifest(tmp_path / "old" / "demo.yaml")
    (tmp_path / "new").mkdir()
    (tmp_path / "new" / "demo.yaml").write_text("name: demo\nversion: [1\n", "utf-8")
    result = run_cli("diff", "old", "new", cwd=tmp_path)
    assert result.returncode == 2
    assert "new/demo.yaml:" in result.stderr and "expected valid YAML" in result.stderr
    assert "Traceback" not in result.stderr


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    for path in ("a", "b", "c"):
        _manifest(tmp_path / path / "demo.yaml")
    result = run_cli("diff", "a", "b", "c", cwd=tmp_path)
    assert result.returncode == 2 and "expected one or two paths (got 3)" in result.stderr
    result = run_cli("diff", "a", "b", "--today", "tomorrow", cwd=tmp_path)
    assert result.returncode == 2 and "YYYY-MM-DD" in result.stderr
    result = run_cli("diff", "a", "missing", cwd=tmp_path)
    assert result.returncode == 2 and "missing" in result.stderr


def test_json_shape_and_stable_fingerprints() -> None:
    case = CASES / "migration-missing"
    first = json.loads(run_case(case)[1])
    second = json.loads(run_case(case)[1])
    assert first == second
    assert first["schema"] == "contractgen-diff/1" and first["mode"] == "trees"
    assert set(first["result"]) == {"exit_code", "compared", "breaking", "dangerous", "safe", "acknowledged", "failing"}
    keys = {"fingerprint", "rule", "level", "tag", "tool", "old_version", "new_version", "pointer", "message", "file",
            "line", "column", "side", "witness", "has_witness", "witness_note", "allowed_by", "acknowledged_by",
            "counts"}
    prints = [f["fingerprint"] for f in first["findings"]]
    assert all(set(f) == keys for f in first["findings"])
    assert all(re.fullmatch(r"[0-9a-f]{16}", p) for p in prints) and len(set(prints)) == len(prints)
    assert first["result"]["failing"] == [f["fingerprint"] for f in first["findings"] if f["rule"] == "migration-missing"]


def test_github_annotations_point_at_the_manifest_line() -> None:
    case = CASES / "input-maximum-lowered"
    code, out, _ = run_case(case, fmt="github")
    assert code == 0
    line = next(x for x in out.splitlines() if "input-maximum-lowered" in x)
    match = re.match(r"::warning file=new/demo\.yaml,line=(\d+),col=(\d+),title=ERR input-maximum-lowered", line)
    assert match, line
    text = (case / "new" / "demo.yaml").read_text("utf-8").splitlines()
    assert text[int(match.group(1)) - 1].strip() == "maximum: 50"  # the changed keyword itself
    assert "%0Awitness: " in line
    code, out, _ = run_case(CASES / "major-bump-required", fmt="github")
    assert code == 1 and "::error file=new/demo.yaml,line=2," in out


def test_markdown_has_a_table_and_the_witnesses() -> None:
    code, out, _ = run_case(CASES / "major-bump-required", fmt="markdown")
    assert code == 1
    assert "| Level | Rule | Tool | Where | Finding |" in out
    assert "| **ERR** | `major-bump-required` |" in out
    assert '```json\n{"mode": "fuzzy", "query": ""}\n```' in out


def test_junit_reports_failures_per_finding() -> None:
    code, out, _ = run_case(CASES / "major-bump-required", fmt="junit")
    assert code == 1
    suite = ET.fromstring(out.split("\n", 1)[1])
    assert suite.tag == "testsuite" and suite.get("failures") == "2"
    failures = [case for case in suite if case.find("failure") is not None]
    assert {c.get("name").split(" ")[0] for c in failures} == {"input-enum-value-removed", "major-bump-required"}


def test_output_file_option(tmp_path: Path) -> None:
    target = tmp_path / "report.md"
    code, out, err = run_case(CASES / "tool-removed", "--output", str(target), fmt="markdown")
    assert code == 1 and out == "" and "FAILED" in err
    assert "`tool-removed`" in target.read_text("utf-8")


def _write_config(folder: Path, body: str) -> None:
    (folder / "pyproject.toml").write_text("[tool.contractgen]\ncontracts = \"new\"\n\n[tool.contractgen.diff]\n" + body,
                                           "utf-8")


def test_ignore_by_rule_and_tool(tmp_path: Path) -> None:
    case = _copy_case("major-bump-required", tmp_path)
    _write_config(case, 'ignore = [{rule = "input-enum-value-removed", tool = "demo", reason = "agreed with clients"}]\n')
    code, out, _ = run_case(case)
    report = json.loads(out)
    assert code == 0, out
    [finding] = report["findings"]
    assert finding["acknowledged_by"] == "rule input-enum-value-removed for demo (agreed with clients)"
    assert report["result"]["acknowledged"] == 1


def test_ignore_for_another_tool_does_not_apply(tmp_path: Path) -> None:
    case = _copy_case("major-bump-required", tmp_path)
    _write_config(case, 'ignore = [{rule = "input-enum-value-removed", tool = "other"}]\n')
    assert run_case(case)[0] == 1


def test_ignore_by_fingerprint(tmp_path: Path) -> None:
    case = _copy_case("tool-removed", tmp_path)
    report = json.loads(run_case(case)[1])
    fingerprint = report["findings"][0]["fingerprint"]
    _write_config(case, f'ignore = [{{fingerprint = "{fingerprint}"}}]\n')
    code, out, _ = run_case(case)
    assert code == 0 and json.loads(out)["findings"][0]["acknowledged_by"] == f"fingerprint {fingerprint}"


def test_ignore_by_message_text_is_refused(tmp_path: Path) -> None:
    case = _copy_case("tool-removed", tmp_path)
    _write_config(case, 'ignore = [{message = "tool demo 1.0.0 was removed"}]\n')
    code, _, err = run_case(case)
    assert code == 2
    assert "unknown key 'message'" in err and "never by message text" in err
    _write_config(case, 'ignore = [{rule = "tool-vanished"}]\n')
    code, _, err = run_case(case)
    assert code == 2 and "unknown rule 'tool-vanished'" in err


def test_strict_from_configuration(tmp_path: Path) -> None:
    case = _copy_case("input-property-added-optional", tmp_path)
    assert run_case(case)[0] == 0
    _write_config(case, "strict = true\n")
    code, out, _ = run_case(case)
    assert code == 1
    rules = {f["rule"]: f for f in json.loads(out)["findings"]}
    assert rules["input-property-added-optional"]["level"] == "breaking"
    assert rules["input-property-added-optional"]["witness"] is not None
    code, _, _ = run_case(case, "--no-strict")
    assert code == 0


def test_removal_before_sunset_is_breaking() -> None:
    case = CASES / "tool-removed-after-sunset"
    code, out, _ = run_case(case, "--today", "2025-12-31")
    [finding] = json.loads(out)["findings"]
    assert code == 1 and finding["rule"] == "tool-removed"
    assert "sunset 2026-01-31 has not passed" in finding["message"]


def test_versions_side_by_side_are_paired_in_version_order(tmp_path: Path) -> None:
    enum = {"type": "object", "additionalProperties": False, "required": ["query"],
            "properties": {"query": {"type": "string"}, "mode": {"enum": ["a", "b", "c"]}}}
    narrower = json.loads(json.dumps(enum))
    narrower["properties"]["mode"]["enum"] = ["a", "b"]
    _manifest(tmp_path / "contracts" / "demo" / "1.9.0.yaml", version="1.9.0", input=enum)
    _manifest(tmp_path / "contracts" / "demo" / "1.10.0.yaml", version="1.10.0", input=narrower)
    _manifest(tmp_path / "contracts" / "demo" / "2.0.0.yaml", version="2.0.0", input=narrower)
    for args in (("contracts",), ("--versions", "contracts")):
        result = run_cli("diff", *args, "--format", "json", "--today", TODAY, cwd=tmp_path)
        report = json.loads(result.stdout)
        assert result.returncode == 1, result.stdout
        assert report["mode"] == "versions" and report["result"]["compared"] == 2
        pairs = {(f["old_version"], f["new_version"], f["rule"]) for f in report["findings"]}
        assert pairs == {("1.9.0", "1.10.0", "input-enum-value-removed"), ("1.9.0", "1.10.0", "major-bump-required")}


def test_two_files_with_different_names_are_a_rename(tmp_path: Path) -> None:
    _manifest(tmp_path / "a.yaml")
    _manifest(tmp_path / "b.yaml", name="demo_two")
    result = run_cli("diff", "a.yaml", "b.yaml", "--format", "json", cwd=tmp_path)
    report = json.loads(result.stdout)
    assert result.returncode == 1 and report["mode"] == "files"
    assert [f["rule"] for f in report["findings"]] == ["tool-renamed"]


def test_the_report_never_replaces_a_manifest_and_a_write_failure_is_a_diagnostic(tmp_path: Path) -> None:
    """``-o old/demo.yaml`` replaced the manifest being compared with the report (exit 0, the manifest
    gone); ``-o`` naming a folder, a missing folder or a full disk raised a traceback. Each is now exit
    2 with a diagnostic, and every manifest stays byte for byte as it was."""
    case = CASES / "timeout-decreased"
    shutil.copytree(case, tmp_path / "case")
    old, new = tmp_path / "case" / "old", tmp_path / "case" / "new"
    before = {p: p.read_bytes() for p in (tmp_path / "case").rglob("*") if p.is_file()}
    refused = {str(old / "demo.yaml"): "one of them", str(new / "demo.yaml"): "one of them",
               str(old / "report.json"): "a manifest name in", str(old): "a folder",
               str(tmp_path / "missing" / "report.txt"): "No such file or directory", "/dev/full": "No space left"}
    for target, said in refused.items():
        result = run_cli("diff", str(old), str(new), "-o", target, cwd=tmp_path)
        assert result.returncode == 2 and "Traceback" not in result.stderr, (target, result.stderr)
        assert said in result.stderr, (target, result.stderr)
    assert {p: p.read_bytes() for p in (tmp_path / "case").rglob("*") if p.is_file()} == before
    for fine in (old / "report.txt", tmp_path / "report.json"):
        result = run_cli("diff", str(old), str(new), "-o", str(fine), cwd=tmp_path)
        assert result.returncode == 0 and "timeout-decreased" in fine.read_text("utf-8"), result.stderr
