"""`[tool.contractgen]` in pyproject.toml: a mistake is a diagnostic and exit 2, never a silent default
(a misspelt `output` would otherwise build somewhere else; `describe_parameters = "yes"` would be off)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import ROOT, run_cli


@pytest.fixture
def project(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "contracts" / "get_exchange_rate", tmp_path / "contracts" / "get_exchange_rate")
    return tmp_path


@pytest.mark.parametrize(("body", "expected", "hint"), [
    ('outptu = "src/tools"\n', ("#/tool/contractgen/outptu: unknown key 'outptu' (expected one of: contracts, "
      "describe_parameters, diff, output, package)"), "did you mean 'output'?"),
    ('describe_parameters = "yes"\n', "#/tool/contractgen/describe_parameters: expected true or false (got 'yes')",
     None),
    ("contracts = 3\n", "#/tool/contractgen/contracts: expected a string (got 3)", None),
    # a NUL in a path made every os call raise ValueError: build died with a traceback
    *((f'{key} = "g\\u0000x"\n', f"#/tool/contractgen/{key}: expected a path without NUL characters (got 'g\\x00x')",
       "remove the \\u0000 escape from the string") for key in ("contracts", "output", "package")),
])
@pytest.mark.parametrize("command", [("build",), ("check",), ("diff", "--versions")])
def test_a_mistake_in_the_table_is_exit_2_with_a_diagnostic(project: Path, body: str, expected: str,
                                                            hint: str | None, command: tuple[str, ...]) -> None:
    (project / "pyproject.toml").write_text("[tool.contractgen]\n" + body, "utf-8")
    result = run_cli(*command, cwd=project)
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"pyproject.toml {expected}" in result.stderr
    if hint:
        assert f"hint: {hint}" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (project / "generated").exists()


def test_malformed_toml_is_not_read_as_no_configuration(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.contractgen]\noutput = "src/tools\n', "utf-8")
    result = run_cli("build", cwd=project)
    assert result.returncode == 2
    assert "pyproject.toml:2:20 #: expected a readable TOML file" in result.stderr
    assert not (project / "generated").exists()


def test_a_valid_table_is_used(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.contractgen]\noutput = "src/tools"\ndescribe_parameters = true\n',
                                            "utf-8")
    result = run_cli("build", cwd=project)
    assert result.returncode == 0, result.stderr
    module = next((project / "src" / "tools").glob("get_exchange_rate_v*.py")).read_text("utf-8")
    assert "Parameters" in module or "parameters" in module.lower()
