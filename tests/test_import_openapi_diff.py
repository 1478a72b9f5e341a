"""Two revisions of one OpenAPI document, imported into two versions of the contracts: `contractgen
diff` reports the tool-level breaking changes of a request body (the CI recipe in docs/openapi.md).
Runs the real CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conftest import ROOT, run_cli

from contractgen.manifest.parse import parse_manifest_text

DOCUMENT = ROOT / "tests" / "cases" / "import_openapi" / "spec-examples.yaml"
ORIGINAL = DOCUMENT.read_text("utf-8")


def _revise(version: str, *edits: tuple[str, str]) -> str:
    text = ORIGINAL.replace("  version: 2.1.0\n", f"  version: {version}\n")
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new)
    return text


#: the next revision's createUser body requires an email (User gains a required property)
EMAIL_REQUIRED = (
    ("        - password\n", "        - password\n        - email\n"),
    ("        password:\n          type: string\n          writeOnly: true\n",
     ("        email:\n          type: string\n          format: email\n"
      "        password:\n          type: string\n          writeOnly: true\n")),
)
#: the next revision's addPet body no longer takes a lizard
NO_LIZARDS = (("                - $ref: '#/components/schemas/Lizard'\n", ""),)


def _import(root: Path, name: str, text: str, out: str) -> None:
    source = root / name
    source.write_text(text, "utf-8")
    result = run_cli("import", str(source), "--out", str(root / out), cwd=root)
    assert result.returncode == 0, result.stderr


def _diff(root: Path, *paths: str) -> tuple[int, dict[str, Any]]:
    result = run_cli("diff", *paths, "--format", "json", cwd=root)
    assert "Traceback" not in result.stderr
    return result.returncode, json.loads(result.stdout)


def _breaking(report: dict[str, Any]) -> set[tuple[str, str, str]]:
    return {(f["tool"], f["rule"], f["pointer"]) for f in report["findings"] if f["level"] == "breaking"}


@pytest.mark.parametrize(("edits", "expected", "tool"), [
    (EMAIL_REQUIRED, ("createUser", "input-property-added-required", "/input/properties/email"), "createUser"),
    (NO_LIZARDS, ("addPet", "input-branch-removed", "/input/properties/body/oneOf/2"), "addPet"),
], ids=["required-body-property", "one-of-branch-removed"])
def test_a_breaking_request_body_change_in_a_minor_revision_fails_the_diff(
        tmp_path: Path, edits: tuple[tuple[str, str], ...], expected: tuple[str, str, str], tool: str) -> None:
    _import(tmp_path, "v1.yaml", ORIGINAL, "old")
    _import(tmp_path, "v2.yaml", _revise("2.2.0", *edits), "new")
    code, report = _diff(tmp_path, "old", "new")
    assert code == 1
    assert _breaking(report) == {expected, (tool, "major-bump-required", "/version")}
    [finding] = [f for f in report["findings"] if f["rule"] == expected[1]]
    # the witness is a call the old contract accepted: check it against the old input schema
    old = tmp_path / "old" / tool / "2.1.0.yaml"
    schema = parse_manifest_text(str(old), old.read_bytes()).value["input"]
    jsonschema.validate(finding["witness"], schema)
    assert finding["file"].startswith(("old/", "new/")) and finding["line"] is not None


def test_the_same_revisions_side_by_side_in_one_tree(tmp_path: Path) -> None:
    """The CI recipe: contracts/ keeps the versions imported so far; a new revision of the document
    is imported beside them, and `diff` compares each tool's consecutive versions."""
    _import(tmp_path, "v1.yaml", ORIGINAL, "contracts")
    _import(tmp_path, "v2.yaml", _revise("2.2.0", *EMAIL_REQUIRED), "contracts")
    assert sorted(p.name for p in (tmp_path / "contracts" / "createUser").iterdir()) == ["2.1.0.yaml", "2.2.0.yaml"]
    code, report = _diff(tmp_path, "contracts")
    assert code == 1
    assert ("createUser", "input-property-added-required", "/input/properties/email") in _breaking(report)


def test_a_major_revision_allows_the_break_and_still_lists_it(tmp_path: Path) -> None:
    _import(tmp_path, "v1.yaml", ORIGINAL, "old")
    _import(tmp_path, "v3.yaml", _revise("3.0.0", *EMAIL_REQUIRED), "new")
    code, report = _diff(tmp_path, "old", "new")
    assert code == 0
    [finding] = [f for f in report["findings"] if f["level"] == "breaking"]
    assert finding["rule"] == "input-property-added-required"
    assert finding["allowed_by"] == "major version bump 2.1.0 -> 3.0.0"


def test_an_unchanged_revision_has_nothing_to_report(tmp_path: Path) -> None:
    _import(tmp_path, "v1.yaml", ORIGINAL, "old")
    _import(tmp_path, "v1b.yaml", _revise("2.1.1"), "new")
    code, report = _diff(tmp_path, "old", "new")
    assert code == 0 and report["findings"] == [], report["findings"]


def _recipe_steps() -> list[list[str]]:
    """The `contractgen` steps of the workflow in docs/openapi.md, as argument lists."""
    import re
    import shlex

    page = (ROOT / "docs" / "openapi.md").read_text("utf-8")
    [workflow] = re.findall(r"```yaml\n(# .github/workflows/api-contracts.yml.*?)```", page, re.DOTALL)
    steps = [line.split("run:", 1)[1].strip() for line in workflow.splitlines() if line.strip().startswith("- run:")]
    return [shlex.split(step)[1:] for step in steps if step.startswith("contractgen ")]


def test_the_ci_recipe_against_the_committed_contracts(tmp_path: Path) -> None:
    """docs/openapi.md's workflow, its contractgen steps run verbatim (origin/main is the base commit
    here): import the changed document over the committed contracts, check, diff against the base."""
    import subprocess

    steps = _recipe_steps()
    assert [step[0] for step in steps] == ["import", "check", "diff"]

    def git(*args: str) -> None:
        subprocess.run(["git", "-c", "user.email=ci@example.com", "-c", "user.name=ci", *args], cwd=tmp_path,
                       check=True, capture_output=True)

    def run(step: list[str]) -> Any:
        return run_cli(*["HEAD" if arg == "origin/main" else arg for arg in step], cwd=tmp_path)

    git("init", "-q")
    (tmp_path / "openapi.yaml").write_text(ORIGINAL, "utf-8")
    assert run(steps[0]).returncode == 0
    git("add", "-A")
    git("commit", "-qm", "contracts for 2.1.0")
    assert run(steps[2]).returncode == 0  # nothing changed yet
    (tmp_path / "openapi.yaml").write_text(_revise("2.2.0", *EMAIL_REQUIRED), "utf-8")
    for step in steps[:2]:
        result = run(step)
        assert result.returncode == 0, result.stderr
    diff = run(steps[2])
    assert diff.returncode == 1
    assert "input-property-added-required" in diff.stdout and "createUser/2.2.0.yaml" in diff.stdout
    code, report = _diff(tmp_path, "--against", "HEAD", "contracts")
    assert code == 1
    assert ("createUser", "input-property-added-required", "/input/properties/email") in _breaking(report)
