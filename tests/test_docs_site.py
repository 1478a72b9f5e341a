"""The documentation site: it builds with `mkdocs build --strict` (broken links, missing includes and
pages left out of the nav fail it), it has a page per role, and its reference pages, written from the
code by docs/hooks/reference.py, say what the command line itself prints."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from conftest import ROOT, run_cli

ROLES = ["roles/tool-author", "roles/ci", "roles/framework-user", "roles/operator"]


def _hook() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "reference_hook", ROOT / "docs" / "hooks" / "reference.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_MKDOCS_2_WARNING": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return out


def test_site_builds_strict_with_a_page_per_role_and_the_reference(site: Path) -> None:
    for page in [*ROLES, *(p.removesuffix(".md") for p in _hook().PAGES)]:
        assert (site / page / "index.html").is_file(), page
    for framework in ("fastmcp", "adk", "openai_agents", "pydantic_ai", "langchain"):
        assert (site / "adapters" / framework / "index.html").is_file(), framework
    # the included example is on the page, not the include line
    author = (site / "roles" / "tool-author" / "index.html").read_text("utf-8")
    assert (
        "contractgen init lookup" in author and "--8&lt;--" not in author and "--8<--" not in author
    )


def _page(path: str) -> str:
    return _hook().reference_pages()[path]


def test_rule_reference_lists_what_list_rules_prints() -> None:
    rules = json.loads(run_cli("diff", "--list-rules", "--format", "json").stdout)
    page = _page("reference/rules.md")
    rows = re.findall(
        r"^\| \[`([a-z0-9-]+)`\]\(\.\./diff\.md#\1\) \| (ERR|WARN|INFO) \|", page, re.MULTILINE
    )
    assert rows == [(r["id"], r["tag"]) for r in rules]
    assert f"{len(rules)} rules." in page


@pytest.mark.parametrize("command", ["check", "build", "diff", "import", "init"])
def test_cli_reference_lists_every_option_help_shows(command: str) -> None:
    shown = run_cli(command, "--help", env={"COLUMNS": "200", "TERM": "dumb"}).stdout
    options = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]+)", shown)) - {"--help"}
    section = (
        _page("reference/cli.md").split(f"## `contractgen {command}`", 1)[1].split("\n## ", 1)[0]
    )
    documented = set(re.findall(r"`(--[a-z][a-z-]+)`", section))
    assert options and options <= documented, options - documented
    flags = set(
        re.findall(r"^\| `(--[a-z-]+)`(?:, `--?[a-z-]+`)? \| flag \|", section, re.MULTILINE)
    )
    import typer

    from contractgen.cli import app

    params = typer.main.get_command(app).commands[command].params  # type: ignore[attr-defined]
    assert flags == {p.opts[0] for p in params if getattr(p, "is_flag", False)}


def test_manifest_reference_lists_every_meta_schema_field() -> None:
    schema = json.loads(
        (ROOT / "contractgen" / "schema" / "manifest.schema.json").read_text("utf-8")
    )
    page = _page("reference/manifest-fields.md")
    rows = dict(re.findall(r"^\| `([^`]+)` \| (yes|) \|", page, re.MULTILINE))
    for name in schema["properties"]:
        assert name in rows, name
        assert (rows[name] == "yes") == (name in schema["required"]), name
    error_fields = schema["properties"]["errors"]["items"]["properties"]
    assert {f"errors[].{name}" for name in error_fields} <= set(rows)


def test_error_code_reference_is_the_code_table() -> None:
    from contractgen.runtime.codes import ACTIONS, CODES

    page = _page("reference/error-codes.md")
    rows = re.findall(r"^\| `([A-Z_]+)` \| (\w+) \| (yes|no) \| `(\w+)` \|", page, re.MULTILINE)
    assert rows == [
        (c.code, c.category, "yes" if c.retryable else "no", c.action) for c in CODES.values()
    ]
    assert all(f"| `{action}` |" in page for action in ACTIONS)
