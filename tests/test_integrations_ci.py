"""The GitHub Actions example (docs/ci/github-actions.yml): its `run:` steps are executed verbatim with
bash in a git clone of a temporary "origin" repository, on a clean and on a breaking pull request,
including a shallow single-branch checkout where origin/main must be fetched first. The install step
runs for real, once, into a fresh virtual environment, from a git URL of this repository in place of
the template's `<org>`/`<tag>` one; the other steps use what it installed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT

from contractgen.manifest.parse import parse_manifest_text

WORKFLOW = ROOT / "docs" / "ci" / "github-actions.yml"
BIN = Path(sys.executable).parent


def _workflow() -> dict[str, Any]:
    # our YAML 1.2-style reader: PyYAML's 1.1 rules would turn the `on:` key into True
    parsed = parse_manifest_text(str(WORKFLOW), WORKFLOW.read_bytes())
    assert not parsed.diagnostics, parsed.diagnostics
    return parsed.value


def _steps() -> list[dict[str, Any]]:
    return _workflow()["jobs"]["contracts"]["steps"]


def _git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", "-c", "user.email=ci@example.com", "-c", "user.name=ci", "-c",
                           "commit.gpgsign=false", "-c", "init.defaultBranch=main", *args],
                          cwd=cwd, capture_output=True, text=True, check=True).stdout


def _step_env(step: dict[str, Any], bin_dir: Path) -> dict[str, str]:
    # a fresh install answers for itself; this interpreter's runs keep PYTHONPATH (the checkout under test)
    env = {k: v for k, v in os.environ.items() if bin_dir == BIN or k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return {**env, **(step.get("env") or {}), "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
            "GITHUB_EVENT_NAME": "pull_request"}


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The install step, for real: a fresh virtual environment (as setup-python gives) and the step's
    command with CONTRACTGEN naming this repository's committed HEAD by a git URL."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs git and a git checkout of contractgen")
    env_dir = tmp_path_factory.mktemp("setup-python") / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    (install,) = [s for s in _steps() if s.get("name") == "Install contractgen"]
    assert install["env"]["CONTRACTGEN"].startswith("contractgen[compiler] @ git+https://")
    source = f"contractgen[compiler] @ git+file://localhost{ROOT}@{_git('rev-parse', 'HEAD', cwd=ROOT).strip()}"
    env = {**_step_env(install, env_dir / "bin"), "CONTRACTGEN": source}
    result = subprocess.run(["bash", "-e", "-c", install["run"]], check=False, env=env, capture_output=True,
                            text=True, timeout=900)
    assert result.returncode == 0, result.stdout + result.stderr
    version = subprocess.run([env_dir / "bin" / "contractgen", "--version"], check=False, capture_output=True,
                             text=True, env=env)
    assert version.returncode == 0 and version.stdout.startswith("contractgen "), version.stderr
    return env_dir / "bin"


def _run_steps(checkout: Path, bin_dir: Path = BIN) -> dict[str, subprocess.CompletedProcess[str]]:
    """Every `run:` step but the install one, as GitHub runs it (bash -e), on a pull_request event."""
    results = {}
    for step in _steps():
        if "run" not in step or step.get("name") == "Install contractgen":
            continue
        env = _step_env(step, bin_dir)
        results[step["name"]] = subprocess.run(["bash", "-e", "-c", step["run"]], check=False, cwd=checkout, env=env,
                                               capture_output=True, text=True, timeout=300)
    return results


@pytest.fixture
def origin(tmp_path: Path) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    origin = tmp_path / "origin"
    origin.mkdir()
    _git("init", "-q", cwd=origin)
    shutil.copytree(ROOT / "contracts", origin / "contracts")
    build = subprocess.run([sys.executable, "-m", "contractgen", "build"], check=False, cwd=origin, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    (origin / ".gitignore").write_text(".contractgen-cache/\n", "utf-8")
    _git("add", "-A", cwd=origin)
    _git("commit", "-q", "-m", "contracts", cwd=origin)
    return origin


def _pull_request(origin: Path, *, breaking: bool) -> None:
    """A feature branch on origin that adds get_exchange_rate 1.1.0: a breaking one makes `date`
    required (that needs a major version), a clean one only clarifies a description."""
    _git("checkout", "-q", "-b", "feature", cwd=origin)
    folder = origin / "contracts" / "get_exchange_rate"
    text = (folder / "1.0.0.yaml").read_text("utf-8").replace("version: 1.0.0", "version: 1.1.0", 1)
    if breaking:
        assert "required: [base, quote]" in text
        text = text.replace("required: [base, quote]", "required: [base, quote, date]", 1)
        text = text.replace("arguments: {base: EUR, quote: USD}", 'arguments: {base: EUR, quote: USD, date: "2026-11-27"}')
    else:
        text = text.replace("Currency to convert from.", "Currency to convert from (ISO 4217).")
    (folder / "1.1.0.yaml").write_text(text, "utf-8")
    build = subprocess.run([sys.executable, "-m", "contractgen", "build"], check=False, cwd=origin, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    _git("add", "-A", cwd=origin)
    _git("commit", "-q", "-m", "get_exchange_rate 1.1.0", cwd=origin)


def test_workflow_shape() -> None:
    workflow = _workflow()
    assert "pull_request" in workflow["on"]
    steps = _steps()
    checkout = next(s for s in steps if s.get("uses", "").startswith("actions/checkout@"))
    assert checkout["with"]["fetch-depth"] == 0
    commands = "\n".join(s.get("run", "") for s in steps)
    for command in ("contractgen check", "contractgen build --check",
                    "contractgen diff --against origin/main --format github"):
        assert command in commands


def test_clean_pull_request_passes(origin: Path, tmp_path: Path, installed: Path) -> None:
    _pull_request(origin, breaking=False)
    checkout = tmp_path / "checkout"
    _git("clone", "-q", "--branch", "feature", str(origin), str(checkout), cwd=tmp_path)  # fetch-depth: 0
    results = _run_steps(checkout, installed)
    assert list(results) == ["Check manifests", "Generated code is up to date", "No breaking changes against main"]
    for name, result in results.items():
        assert result.returncode == 0, (name, result.stdout, result.stderr)


def test_breaking_pull_request_fails_with_annotations(origin: Path, tmp_path: Path) -> None:
    _pull_request(origin, breaking=True)
    # a shallow single-branch checkout has no origin/main: the step fetches it itself
    checkout = tmp_path / "checkout"
    _git("clone", "-q", "--depth", "1", "--single-branch", "--branch", "feature", origin.as_uri(), str(checkout),
         cwd=tmp_path)
    assert subprocess.run(["git", "rev-parse", "--verify", "--quiet", "origin/main"], check=False, cwd=checkout).returncode != 0
    results = _run_steps(checkout)
    assert results["Check manifests"].returncode == 0, results["Check manifests"].stderr
    assert results["Generated code is up to date"].returncode == 0, results["Generated code is up to date"].stderr
    diff = results["No breaking changes against main"]
    assert diff.returncode == 1, (diff.stdout, diff.stderr)
    annotations = [line for line in diff.stdout.splitlines() if line.startswith("::error ")]
    assert annotations, diff.stdout
    assert any("file=contracts/get_exchange_rate/1.1.0.yaml" in line and "date" in line for line in annotations), annotations


def test_stale_generated_code_fails_the_build_step(origin: Path, tmp_path: Path) -> None:
    manifest = origin / "contracts" / "search_documents" / "1.0.0.yaml"
    manifest.write_text(manifest.read_text("utf-8").replace("Document title.", "Title of the document."), "utf-8")
    _git("checkout", "-q", "-b", "feature", cwd=origin)
    _git("commit", "-q", "-am", "edit without rebuilding", cwd=origin)
    checkout = tmp_path / "checkout"
    _git("clone", "-q", "--branch", "feature", str(origin), str(checkout), cwd=tmp_path)
    results = _run_steps(checkout)
    stale = results["Generated code is up to date"]
    assert stale.returncode == 1
    assert "Title of the document." in stale.stdout + stale.stderr
