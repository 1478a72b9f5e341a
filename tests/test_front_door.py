"""What a newcomer reads first says what the code does: the scaffold's comments about the
model-facing text, and (below) the README's figures and commands."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from conftest import ROOT, run_cli


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


README = ROOT / "README.md"


def _blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", text, re.DOTALL | re.MULTILINE)


def test_readme_test_command_is_what_ci_runs() -> None:
    """`.ci/run` runs the README's second command (after `rm -rf .venv` and the cd)."""
    commands = _blocks(README.read_text("utf-8"), "bash")
    ci = (ROOT / ".ci" / "run").read_text("utf-8").strip().splitlines()[-1]
    assert commands[1].strip() == ci


def test_readme_figures_come_from_the_commands_that_print_them() -> None:
    text = README.read_text("utf-8")
    check = run_cli("check")
    printed = check.stderr.strip().splitlines()[-1]
    assert check.returncode == 0 and f"The first prints `{printed}`" in text, printed
    rules = json.loads(run_cli("diff", "--list-rules", "--format", "json").stdout)
    assert f"`contractgen diff --list-rules` prints its {len(rules)} rules" in text
    assert len(re.findall(r"\b\d+ rules\b", text)) == 1  # no other rule count to drift


def test_readme_tour_is_the_example_the_tests_run() -> None:
    shell, python = (
        _blocks(README.read_text("utf-8"), "bash")[2],
        _blocks(README.read_text("utf-8"), "python")[0],
    )
    script = (ROOT / "docs" / "examples" / "tool_author.sh").read_text("utf-8")
    assert shell == "".join(
        line + "\n" for line in script.splitlines() if line.startswith(("contractgen ", "python "))
    )
    program = (ROOT / "docs" / "examples" / "lookup_tool.py").read_text("utf-8")
    assert python == program.split('"""', 2)[2].lstrip("\n")


def test_readme_links_lead_to_files() -> None:
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README.read_text("utf-8"))
    assert links
    assert [
        link for link in links if not link.startswith("http") and not (ROOT / link).exists()
    ] == []


def test_readme_fits_on_a_page_or_two() -> None:
    assert len(README.read_text("utf-8").splitlines()) <= 120
