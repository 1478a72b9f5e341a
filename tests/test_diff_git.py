"""`contractgen diff --against REV`: the old tree comes from git (ls-tree + cat-file), never a clone."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from conftest import run_cli

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
       "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}


def git(cwd: Path, *args: str) -> str:
    import os

    result = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env={**os.environ, **ENV},
                            check=True)
    return result.stdout.strip()


def write_manifest(repo: Path, version: str, modes: list[str]) -> None:
    doc = {"name": "demo", "version": version, "summary": "Demo.", "description": "A demo tool.",
           "input": {"type": "object", "additionalProperties": False, "required": ["query"],
                     "properties": {"query": {"type": "string"}, "mode": {"enum": modes}}},
           "output": {"type": "object", "properties": {"result": {"type": "string"}}}}
    path = repo / "contracts" / "demo" / "tool.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(doc, sort_keys=False), "utf-8")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    write_manifest(root, "1.0.0", ["fast", "exact", "fuzzy"])
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "v1")
    git(root, "tag", "v1")
    return root


def test_working_tree_against_a_revision(repo: Path) -> None:
    write_manifest(repo, "1.1.0", ["fast", "exact"])
    result = run_cli("diff", "--against", "main", "contracts", "--format", "json", cwd=repo)
    report = json.loads(result.stdout)
    assert result.returncode == 1, result.stderr
    assert report["mode"] == "against" and report["old"] == "main:contracts"
    assert [(f["rule"], f["old_version"], f["new_version"]) for f in report["findings"]] == [
        ("input-enum-value-removed", "1.0.0", "1.1.0"), ("major-bump-required", "1.0.0", "1.1.0")]
    assert report["findings"][0]["file"] == "contracts/demo/tool.yaml"
    assert report["findings"][0]["witness"] == {"mode": "fuzzy", "query": ""}


def test_default_path_comes_from_configuration_and_subfolders_work(repo: Path) -> None:
    (repo / "pyproject.toml").write_text('[tool.contractgen]\ncontracts = "contracts"\n', "utf-8")
    write_manifest(repo, "2.0.0", ["fast", "exact"])
    result = run_cli("diff", "--against", "v1", cwd=repo)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "allowed: major version bump 1.0.0 -> 2.0.0" in result.stdout
    # from a subfolder, paths are relative to where the command runs
    result = run_cli("diff", "--against", "v1", ".", "--format", "json", cwd=repo / "contracts")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["findings"][0]["file"] == "demo/tool.yaml"


def test_old_side_locations_name_the_revision(repo: Path) -> None:
    (repo / "contracts" / "demo" / "tool.yaml").rename(repo / "contracts" / "other.yaml")
    other = yaml.safe_load((repo / "contracts" / "other.yaml").read_text("utf-8"))
    other["name"] = "other"
    del other["input"]["properties"]["mode"]  # a different tool, not a rename
    (repo / "contracts" / "other.yaml").write_text(yaml.safe_dump(other), "utf-8")
    result = run_cli("diff", "--against", "HEAD", "contracts", cwd=repo)
    assert result.returncode == 1
    assert "ERR  tool-removed  HEAD:contracts/demo/tool.yaml:1:7 #: tool demo 1.0.0 was removed" in result.stdout
    assert "INFO tool-added  contracts/other.yaml:" in result.stdout


def test_unchanged_tree_has_no_findings(repo: Path) -> None:
    result = run_cli("diff", "--against", "HEAD", "contracts", cwd=repo)
    assert result.returncode == 0 and "no changes found" in result.stdout


def test_unknown_revision_exits_2_with_a_hint(repo: Path) -> None:
    result = run_cli("diff", "--against", "release-9", "contracts", cwd=repo)
    assert result.returncode == 2
    assert "got 'release-9', which is not a commit in this repository" in result.stderr
    assert "hint: check the name; this repository has no remote to fetch it from" in result.stderr


def test_outside_a_repository_exits_2(tmp_path: Path) -> None:
    write_manifest(tmp_path, "1.0.0", ["a"])
    result = run_cli("diff", "--against", "main", "contracts", cwd=tmp_path)
    assert result.returncode == 2 and "expected a git working tree" in result.stderr


def test_invalid_manifest_at_the_revision_is_labelled(repo: Path) -> None:
    bad = repo / "contracts" / "demo" / "tool.yaml"
    bad.write_text("name: demo\n", "utf-8")
    git(repo, "commit", "-q", "-am", "broken")
    write_manifest(repo, "1.0.0", ["fast"])
    result = run_cli("diff", "--against", "HEAD", "contracts", cwd=repo)
    assert result.returncode == 2
    assert "HEAD:contracts/demo/tool.yaml" in result.stderr and "Traceback" not in result.stderr


def test_shallow_clone_missing_the_revision(repo: Path, tmp_path: Path) -> None:
    write_manifest(repo, "1.1.0", ["fast", "exact", "fuzzy", "new"])
    git(repo, "commit", "-q", "-am", "v1.1")
    write_manifest(repo, "1.2.0", ["fast", "exact", "fuzzy", "new", "newer"])
    git(repo, "commit", "-q", "-am", "v1.2")
    first = git(repo, "rev-list", "--max-parents=0", "HEAD")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo}", str(clone))
    assert git(clone, "rev-parse", "--is-shallow-repository") == "true"
    result = run_cli("diff", "--against", first, "contracts", cwd=clone)
    assert result.returncode == 2, result.stdout
    assert "which is not in this shallow clone" in result.stderr
    assert f"git fetch --no-tags --depth=1 origin {first}" in result.stderr
    # the revision that is present works in the shallow clone
    write_manifest(clone, "1.3.0", ["fast", "exact", "fuzzy", "new", "newer", "newest"])
    result = run_cli("diff", "--against", "HEAD", "contracts", "--format", "json", cwd=clone)
    assert result.returncode == 0, result.stderr
    assert [f["rule"] for f in json.loads(result.stdout)["findings"]] == ["input-enum-value-added"]
    # after fetching the missing commit, the same command succeeds
    git(clone, "fetch", "-q", "--depth=1", "origin", first)
    result = run_cli("diff", "--against", first, "contracts", "--format", "json", cwd=clone)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["findings"][0]["old_version"] == "1.0.0"


def _printed_fetch(stderr: str) -> list[str]:
    match = re.search(r"run the same command again: (git fetch [^\n]+)$", stderr, re.MULTILINE)
    assert match, stderr
    return shlex.split(match.group(1))


#: every form a revision takes; COMMIT and SHORT stand for main's commit id, in full and abbreviated
REVISION_FORMS = ["main", "origin/main", "v1", "COMMIT", "SHORT", "HEAD~1", "HEAD~2", "HEAD^", "HEAD^^", "@~2",
                  "feature~2", "main~0", "v1^0"]


@pytest.mark.parametrize("revision", REVISION_FORMS)
def test_depth_1_clone_prints_a_fetch_command_that_works(repo: Path, tmp_path: Path, revision: str) -> None:
    """A pull-request checkout: depth 1, one branch, two commits on top of main. The printed command,
    run as printed, makes the very same diff command work."""
    git(repo, "checkout", "-q", "-b", "feature")
    write_manifest(repo, "1.0.1", ["fast", "exact", "fuzzy"])
    git(repo, "commit", "-q", "-am", "patch")
    write_manifest(repo, "1.1.0", ["fast", "exact"])
    git(repo, "commit", "-q", "-am", "drop fuzzy")
    main = git(repo, "rev-parse", "main")
    revision = revision.replace("COMMIT", main).replace("SHORT", main[:10])
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "1", "--single-branch", "--no-tags", "--branch", "feature",
        f"file://{repo}", str(clone))
    command = ["diff", "--against", revision, "contracts", "--format", "json"]
    result = run_cli(*command, cwd=clone)
    assert result.returncode == 2 and "which is not in this shallow clone" in result.stderr, result.stderr
    fetch = _printed_fetch(result.stderr)
    subprocess.run(fetch, cwd=clone, check=True, capture_output=True)
    result = run_cli(*command, cwd=clone)
    assert result.returncode == 1, result.stderr
    assert [f["rule"] for f in json.loads(result.stdout)["findings"]] == [
        "input-enum-value-removed", "major-bump-required"]


@pytest.mark.parametrize(("revision", "hint"), [
    ("HEAD~5", "the history here is shorter than that"),
    ("no-such-branch", "git fetch --no-tags origin no-such-branch:no-such-branch"),
])
def test_complete_clone_missing_the_revision_says_what_to_check(repo: Path, tmp_path: Path, revision: str,
                                                                 hint: str) -> None:
    """A clone with all its history: no depth in the fetch (it would make the clone shallow), and
    no fetch at all for steps back from HEAD that the history does not have."""
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", f"file://{repo}", str(clone))
    result = run_cli("diff", "--against", revision, "contracts", cwd=clone)
    assert result.returncode == 2, result.stderr
    assert "which is not a commit in this repository" in result.stderr and hint in result.stderr, result.stderr
    assert "diff not run: fix --against as the hint above says" in result.stderr


def test_folder_missing_at_the_revision_means_every_tool_is_new(repo: Path) -> None:
    write_manifest(repo / "more", "1.0.0", ["a"])
    result = run_cli("diff", "--against", "HEAD", "more/contracts", "--format", "json", cwd=repo)
    assert result.returncode == 0, result.stderr
    assert [f["rule"] for f in json.loads(result.stdout)["findings"]] == ["tool-added"]
