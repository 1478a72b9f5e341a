"""The action's inputs (action.yml) are data on every command line and in every step output, run as the
runner runs them (tests/test_integrations_action.py's Runner: each step's script under
``bash -eo pipefail`` with its ``env`` evaluated from the inputs, $GITHUB_OUTPUT read back).

Before: ``against: --upload-pack=touch F;:`` reached ``git fetch`` as an option and ran a command, and
``sarif: "report.sarif\\nextra-output=x"`` added a step output. An input is the workflow's to set, and
workflows fill them from what a pull request controls (a branch name, a path).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from test_integrations_action import Runner, _shallow_checkout, origin  # noqa: F401 (a fixture)
from test_integrations_ci import _pull_request

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

PR = {"GITHUB_EVENT_NAME": "pull_request", "GITHUB_BASE_REF": "main"}


@pytest.fixture
def venv() -> Path:
    """This interpreter's environment, as the install step leaves one (its bin/ holds `contractgen`)."""
    prefix = Path(sys.prefix)
    if not (prefix / "bin" / "contractgen").exists():
        pytest.skip("contractgen is not installed in this environment")
    return prefix


@pytest.fixture
def checkout(origin: Path, tmp_path: Path) -> Path:  # noqa: F811 (the fixture imported above)
    _pull_request(origin, breaking=False)
    return _shallow_checkout(origin, tmp_path)


@pytest.mark.parametrize(
    "option",
    [
        "--upload-pack=touch {marker};:",
        "--upload-pack=touch {marker}",
        "-uploadpack",
        "--exec=touch {marker}",
        "--output={marker}",
    ],
)
def test_against_is_never_read_as_an_option(
    venv: Path, checkout: Path, tmp_path: Path, option: str
) -> None:
    marker = tmp_path / "PWNED"
    results = Runner(tmp_path, PR).run(
        checkout,
        {"against": option.format(marker=marker), "build-check": "false"},
        install_venv=venv,
    )
    diff = results["No breaking changes"]
    assert not marker.exists(), (diff.stdout, diff.stderr)
    assert diff.returncode != 0, (diff.stdout, diff.stderr)
    assert "against: expected a git revision" in diff.stdout + diff.stderr, (
        diff.stdout,
        diff.stderr,
    )
    assert "Traceback" not in diff.stderr


@pytest.mark.parametrize(
    "value",
    ["report.sarif\nextra-output=x", "report.sarif\rextra-output=x", "sarif-file<<EOF\nx\nEOF"],
)
def test_a_line_break_in_sarif_adds_no_step_output(
    venv: Path, checkout: Path, tmp_path: Path, value: str
) -> None:
    results = Runner(tmp_path, PR).run(
        checkout, {"sarif": value, "build-check": "false"}, install_venv=venv
    )
    diff = results["No breaking changes"]
    assert diff.outputs == {}, diff.outputs  # type: ignore[attr-defined]
    assert diff.returncode != 0
    assert "sarif: expected a file name" in diff.stdout + diff.stderr, (diff.stdout, diff.stderr)
    assert not any(p.name.startswith("report.sarif") for p in checkout.iterdir())


def test_an_option_like_sarif_or_contracts_is_a_path(
    venv: Path, checkout: Path, tmp_path: Path
) -> None:
    """``sarif: --help`` was read as contractgen's own option, ``contracts: --format=json`` likewise."""
    results = Runner(tmp_path, PR).run(
        checkout, {"sarif": "--help", "build-check": "false"}, install_venv=venv
    )
    diff = results["No breaking changes"]
    assert diff.returncode == 0, (diff.stdout, diff.stderr)
    assert diff.outputs == {"sarif-file": "--help"}  # type: ignore[attr-defined]
    assert (
        (checkout / "--help").read_text("utf-8").startswith("{")
    )  # the SARIF, written where it was asked
    results = Runner(tmp_path, PR).run(
        checkout, {"contracts": "--format=json", "build-check": "false"}, install_venv=venv
    )
    check = results["Check manifests"]
    assert check.returncode == 2, (check.stdout, check.stderr)
    assert (
        check.stdout == "" and "--format=json" in check.stderr
    )  # a path that does not exist, not a flag


def test_a_plain_revision_still_works(venv: Path, checkout: Path, tmp_path: Path) -> None:
    results = Runner(tmp_path, {"GITHUB_EVENT_NAME": "push"}).run(
        checkout,
        {"against": "origin/main", "sarif": "out.sarif", "build-check": "false"},
        install_venv=venv,
    )
    diff = results["No breaking changes"]
    assert diff.returncode == 0, (diff.stdout, diff.stderr)
    assert diff.outputs == {"sarif-file": "out.sarif"}  # type: ignore[attr-defined]
    assert "0 breaking" in diff.stdout
