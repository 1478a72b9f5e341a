"""What a newcomer reads first says what the code does: the scaffold's comments about the
model-facing text, and (below) the README's figures and commands."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import run_cli


def _description(project: Path) -> str:
    build = run_cli("build", cwd=project)
    assert build.returncode == 0, build.stderr
    code = "import generated.lookup_v1 as m; print(m.DESCRIPTION)"
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=project, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_the_scaffold_says_what_the_build_adds_to_the_description(tmp_path: Path) -> None:
    """The scaffold's comment: errors, timeout and retry rules always; parameters only with
    describe_parameters = true."""
    assert run_cli("init", "lookup", cwd=tmp_path).returncode == 0
    text = (tmp_path / "contracts" / "lookup" / "1.0.0.yaml").read_text("utf-8")
    assert "declared errors and the timeout and retry rules" in text
    assert (
        "with\n# `describe_parameters = true` in [tool.contractgen], the parameters and results"
        in text
    )
    plain = _description(tmp_path)
    assert "Errors:" in plain and "Timeout 10 s." in plain and "Parameters:" not in plain
    (tmp_path / "pyproject.toml").write_text(
        "[tool.contractgen]\ndescribe_parameters = true\n", "utf-8"
    )
    described = _description(tmp_path)
    assert "Parameters:" in described and "Returns:" in described and "Errors:" in described
