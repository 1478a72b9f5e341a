"""`contractgen init NAME`: the scaffold passes `check --strict` and `build` unchanged, mentions every
manifest field, and refuses bad names and existing files. Runs the real CLI."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import ROOT, run_cli

from contractgen.manifest.parse import parse_manifest_text


@pytest.mark.parametrize("name", ["get_weather", "true", "123", "a-b", "X" * 64])
def test_scaffold_passes_strict_check_and_build(name: str, tmp_path: Path) -> None:
    result = run_cli("init", name, "--out", "contracts", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    path = tmp_path / "contracts" / name / "1.0.0.yaml"
    assert result.stdout.strip() == str(Path("contracts") / name / "1.0.0.yaml")
    parsed = parse_manifest_text(str(path), path.read_bytes())
    assert parsed.value["name"] == name and parsed.value["version"] == "1.0.0"
    check = run_cli("check", "--strict", "contracts", cwd=tmp_path)
    assert check.returncode == 0, check.stderr
    assert "warning" not in check.stderr
    if name == "get_weather":  # one build is enough to show the scaffold compiles
        build = run_cli("build", "--contracts", "contracts", "--output", "generated", cwd=tmp_path)
        assert build.returncode == 0, build.stderr
        assert (tmp_path / "generated" / "get_weather_v1.py").is_file()


def test_scaffold_mentions_every_manifest_field(tmp_path: Path) -> None:
    assert run_cli("init", "lookup", "--out", ".", cwd=tmp_path).returncode == 0
    text = (tmp_path / "lookup" / "1.0.0.yaml").read_text("utf-8")
    meta = json.loads((ROOT / "contractgen" / "schema" / "manifest.schema.json").read_text("utf-8"))
    fields = [key for key in meta["properties"] if key != "$schema"]
    missing = [key for key in fields if not re.search(rf"^(# )?{re.escape(key)}:", text, re.MULTILINE)]
    assert not missing, f"scaffold does not mention: {missing}"
    error_fields = meta["properties"]["errors"]["items"]["properties"]
    missing_error_fields = [key for key in error_fields if not re.search(rf"^ +(- )?(# )?{key}:", text, re.MULTILINE)]
    assert not missing_error_fields, f"scaffold's errors do not mention: {missing_error_fields}"
    # every field is explained by a comment line that names it
    for key in fields:
        assert re.search(rf"^# {re.escape(key)}: \S", text, re.MULTILINE), key


@pytest.mark.parametrize("name", ["a.b", "../evil", "with space", "x" * 65, "", "é"])
def test_invalid_names_are_refused(name: str, tmp_path: Path) -> None:
    result = run_cli("init", name, "--out", "contracts", cwd=tmp_path)
    assert result.returncode == 2
    assert "expected a portable tool name matching ^[a-zA-Z0-9_-]{1,64}$" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "contracts").exists()
    assert not any(tmp_path.parent.glob("evil*"))


def test_existing_file_needs_force(tmp_path: Path) -> None:
    path = tmp_path / "contracts" / "lookup" / "1.0.0.yaml"
    path.parent.mkdir(parents=True)
    path.write_text("mine\n", "utf-8")
    refused = run_cli("init", "lookup", "--out", "contracts", cwd=tmp_path)
    assert refused.returncode == 2
    assert "1.0.0.yaml #: expected a new manifest path (got an existing file)" in refused.stderr
    assert "hint: pass --force to overwrite it" in refused.stderr
    assert path.read_text("utf-8") == "mine\n"
    forced = run_cli("init", "lookup", "--out", "contracts", "--force", cwd=tmp_path)
    assert forced.returncode == 0, forced.stderr
    # contractgen lives outside this project: no machine-specific path, no URL that serves nothing
    assert path.read_text("utf-8").startswith("# Editor completion: map contractgen's installed manifest.schema.json")


def test_default_out_is_the_configured_contracts_folder(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.contractgen]\ncontracts = "tools/contracts"\n', "utf-8")
    (tmp_path / "sub").mkdir()
    result = run_cli("init", "lookup", cwd=tmp_path / "sub")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "tools" / "contracts" / "lookup" / "1.0.0.yaml").is_file()


def test_scaffold_is_deterministic(tmp_path: Path) -> None:
    run_cli("init", "lookup", "--out", "a", cwd=tmp_path)
    run_cli("init", "lookup", "--out", "b", cwd=tmp_path, env={"PYTHONHASHSEED": "7"})
    assert (tmp_path / "a/lookup/1.0.0.yaml").read_bytes() == (tmp_path / "b/lookup/1.0.0.yaml").read_bytes()


def test_schema_header_is_relative_inside_this_repository(tmp_path: Path) -> None:
    """In a project that holds contractgen (itself, or in its own .venv) the header points at the
    meta-schema file; elsewhere there is no header path (the schema's $id is a name, not a download)."""
    from contractgen.importer import schema_ref

    ref = schema_ref(ROOT / "contracts" / "new_tool", ROOT)
    assert ref == "../../contractgen/schema/manifest.schema.json"
    assert schema_ref(tmp_path / "contracts" / "x", tmp_path) is None


@pytest.mark.parametrize("out", ["generated", "generated/tools", ".contractgen-cache", "src/gen/x"])
def test_manifests_are_never_written_where_a_build_deletes_them(out: str, tmp_path: Path) -> None:
    """``import --out generated`` (or ``init --out``) wrote manifests into the build's output folder,
    which the next build replaced whole: the manifests were deleted without a word. The output and the
    cache are refused, before anything is written."""
    (tmp_path / "pyproject.toml").write_text('[tool.contractgen]\noutput = "src/gen"\n' if out.startswith("src")
                                             else "[tool.contractgen]\n", "utf-8")
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps([{"name": "echo", "description": "Echo.", "inputSchema": {"type": "object"}}]), "utf-8")
    for command in (("import", str(tools), "--out", out), ("init", "echo", "--out", out)):
        result = run_cli(*command, cwd=tmp_path)
        assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
        assert "expected a folder for manifests apart from the build" in result.stderr, result.stderr
        assert not list(tmp_path.rglob("*.yaml")), list(tmp_path.rglob("*.yaml"))
    result = run_cli("import", str(tools), "--out", "contracts", cwd=tmp_path)
    assert result.returncode == 0 and (tmp_path / "contracts" / "echo" / "1.0.0.yaml").is_file(), result.stderr
