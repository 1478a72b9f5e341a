"""The pre-commit hooks in `.pre-commit-hooks.yaml`, run by the real `pre-commit` against a temporary git
repository, with `repo:` pointing at a snapshot clone of this repository (committed HEAD plus the
working tree's changes, as `pre-commit try-repo` does). pre-commit installs the hooks into its own
environment with pip, once per test session."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import ROOT

PRE_COMMIT = [sys.executable, "-m", "pre_commit"]


def _git(*args: str, cwd: Path) -> str:
    result = subprocess.run(["git", "-c", "user.email=test@example.com", "-c", "user.name=test",
                             "-c", "commit.gpgsign=false", *args],
                            cwd=cwd, capture_output=True, text=True, check=True)
    return result.stdout


def _snapshot_clone(target: Path) -> str:
    """A clone of this repository whose HEAD holds the current working tree; returns that commit."""
    subprocess.run(["git", "clone", "-q", str(ROOT), str(target)], check=True, capture_output=True)
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                            capture_output=True, check=True).stdout
    for raw in filter(None, listed.split(b"\0")):
        source, destination = ROOT / raw.decode(), target / raw.decode()
        if source.is_file():
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, destination)
    _git("add", "-A", cwd=target)
    _git("commit", "-q", "--allow-empty", "-m", "snapshot of the working tree", cwd=target)
    return _git("rev-parse", "HEAD", cwd=target).strip()


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str, Path]]:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    base = tmp_path_factory.mktemp("precommit")
    clone = base / "contractgen"
    sha = _snapshot_clone(clone)
    yield clone, sha, base / "pre-commit-home"


@pytest.fixture
def project(hook_repo: tuple[Path, str, Path], tmp_path: Path) -> tuple[Path, dict[str, str]]:
    clone, sha, home = hook_repo
    project = tmp_path / "project"
    project.mkdir()
    _git("init", "-q", cwd=project)
    shutil.copytree(ROOT / "contracts", project / "contracts")
    build = subprocess.run([sys.executable, "-m", "contractgen", "build"], check=False, cwd=project, capture_output=True,
                           text=True)
    assert build.returncode == 0, build.stderr
    (project / ".gitignore").write_text(".contractgen-cache/\n", "utf-8")
    (project / ".pre-commit-config.yaml").write_text(
        "repos:\n"
        f"  - repo: {clone.as_posix()}\n"
        f"    rev: {sha}\n"
        "    hooks:\n"
        "      - id: contractgen-check\n"
        "      - id: contractgen-build-check\n", "utf-8")
    (project / "README.md").write_text("A project with tool contracts.\n", "utf-8")
    _git("add", "-A", cwd=project)
    _git("commit", "-q", "-m", "contracts and generated code", cwd=project)
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"}
    env.pop("VIRTUAL_ENV", None)
    return project, env


def _run(project: tuple[Path, dict[str, str]], *args: str) -> subprocess.CompletedProcess[str]:
    folder, env = project
    return subprocess.run([*PRE_COMMIT, "run", *args], check=False, cwd=folder, env=env, capture_output=True, text=True,
                          timeout=600)


def _status(output: str, hook_name: str) -> str:
    for line in output.splitlines():
        if line.startswith(hook_name + "."):
            match = re.search(r"(Passed|Failed|Skipped)$", line.strip())
            assert match, line
            return match.group(1)
    raise AssertionError(f"hook {hook_name!r} not in the output:\n{output}")


def test_hook_manifest_is_valid() -> None:
    result = subprocess.run([*PRE_COMMIT, "validate-manifest", str(ROOT / ".pre-commit-hooks.yaml")],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_hooks_pass_on_clean_contracts(project: tuple[Path, dict[str, str]]) -> None:
    result = _run(project, "--all-files")
    assert result.returncode == 0, result.stdout + result.stderr
    assert _status(result.stdout, "contractgen check") == "Passed"
    assert _status(result.stdout, "contractgen build --check") == "Passed"


def test_check_hook_fails_on_a_broken_manifest(project: tuple[Path, dict[str, str]]) -> None:
    manifest = project[0] / "contracts" / "book_meeting" / "2.0.0.yaml"
    manifest.write_text(manifest.read_text("utf-8").replace("summary:", "sumary:", 1), "utf-8")
    result = _run(project, "--all-files")
    assert result.returncode == 1, result.stdout + result.stderr
    assert _status(result.stdout, "contractgen check") == "Failed"
    assert "unknown key 'sumary'" in result.stdout
    assert "did you mean 'summary'?" in result.stdout


def test_build_check_hook_fails_when_generated_code_is_stale(project: tuple[Path, dict[str, str]]) -> None:
    manifest = project[0] / "contracts" / "get_exchange_rate" / "1.0.0.yaml"
    text = manifest.read_text("utf-8")
    assert "Units of quote per one unit of base." in text
    manifest.write_text(text.replace("Units of quote per one unit of base.", "Units of quote per base unit."),
                        "utf-8")
    result = _run(project, "--all-files")
    assert result.returncode == 1, result.stdout + result.stderr
    assert _status(result.stdout, "contractgen check") == "Passed"
    assert _status(result.stdout, "contractgen build --check") == "Failed"
    assert "Units of quote per base unit." in result.stdout  # the unified diff of the stale file


def test_hooks_skip_commits_that_touch_no_contracts(project: tuple[Path, dict[str, str]]) -> None:
    folder = project[0]
    (folder / "README.md").write_text("Changed.\n", "utf-8")
    _git("add", "README.md", cwd=folder)
    result = _run(project)  # staged files only, as on `git commit`
    assert result.returncode == 0, result.stdout + result.stderr
    assert _status(result.stdout, "contractgen check") == "Skipped"
    assert _status(result.stdout, "contractgen build --check") == "Skipped"


def test_check_hook_fails_on_a_weakened_guarantee_by_default(project: tuple[Path, dict[str, str]]) -> None:
    """A misspelt keyword would drop its constraint from the guard: the default hook (no --strict) fails."""
    manifest = project[0] / "contracts" / "book_meeting" / "2.0.0.yaml"
    text = manifest.read_text("utf-8")
    assert "minLength: 1" in text
    manifest.write_text(text.replace("minLength: 1", "minLenght: 1", 1), "utf-8")
    result = _run(project, "--all-files")
    assert result.returncode == 1, result.stdout + result.stderr
    assert _status(result.stdout, "contractgen check") == "Failed"
    assert "unknown JSON Schema keyword 'minLenght'" in result.stdout and "did you mean 'minLength'?" in result.stdout


def _with_a_style_warning(project: tuple[Path, dict[str, str]]) -> None:
    manifest = project[0] / "contracts" / "book_meeting" / "2.0.0.yaml"
    text = manifest.read_text("utf-8")
    assert "minLength: 1\n" in text
    manifest.write_text(text.replace("minLength: 1\n", "minLength: 1\n      example: Weekly review\n", 1), "utf-8")


def test_warnings_pass_by_default_and_fail_with_strict_args(project: tuple[Path, dict[str, str]]) -> None:
    _with_a_style_warning(project)
    result = _run(project, "--all-files", "contractgen-check")
    assert result.returncode == 0, result.stdout + result.stderr
    assert _status(result.stdout, "contractgen check") == "Passed"  # pre-commit hides a passing hook's output
    config = project[0] / ".pre-commit-config.yaml"
    # the documented way to make warnings fail too (docs/integrations.md)
    config.write_text(config.read_text("utf-8").replace(
        "      - id: contractgen-check\n", "      - id: contractgen-check\n        args: [--strict]\n"), "utf-8")
    result = _run(project, "--all-files", "contractgen-check")
    assert result.returncode == 1, result.stdout + result.stderr
    assert _status(result.stdout, "contractgen check") == "Failed"
    assert "warning: 'example' is not a JSON Schema 2020-12 keyword" in result.stdout
