"""Generated code is mypy --strict clean on what the build accepts: every real tool in the shared
corpus (imported with `contractgen import`, its input schema also serving as its output schema) and
the hostile defaults case, in one mypy process; and
the defaults the adapter rewrites still arrive in the field's own type at run time."""

from __future__ import annotations

import ast
import datetime as dt
import shutil
import subprocess
import sys
from pathlib import Path

import yaml
from build_support import build, imported_package, make_project

from contractgen.codegen.defaults import type_defaults

DEFAULTS_CASE = Path(__file__).resolve().parent / "cases" / "build" / "defaults" / "contracts"


def test_corpus_and_hostile_defaults_pass_mypy_strict(imported_corpus: Path, tmp_path: Path) -> None:
    root = tmp_path / "project"
    shutil.copytree(imported_corpus, root)
    imported = len(list((root / "contracts").glob("*/1.0.0.yaml")))
    # no corpus tool declares an output schema: each one's real input schema serves as its output
    # too, so the output models and the TypedDicts of the output's JSON form meet real schemas
    for manifest in (root / "contracts").glob("*/1.0.0.yaml"):
        data = yaml.safe_load(manifest.read_text("utf-8"))
        data["output"] = data["input"]
        manifest.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), "utf-8")
    shutil.copytree(DEFAULTS_CASE, root / "contracts", dirs_exist_ok=True)
    assert build(root).returncode == 0
    modules = sorted((root / "generated").glob("*_v1.py"))
    assert len(modules) == imported + 1 and imported >= 150
    typed_dicts = sum(m.read_text("utf-8").count("(TypedDict):") for m in modules)
    assert typed_dicts >= imported  # the outputs' JSON forms are TypedDicts, not all dict[str, Any]
    result = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", "generated"],
                            cwd=root, capture_output=True, text=True, check=False)
    print(f"\nmypy --strict over {len(modules)} generated modules ({typed_dicts} output TypedDicts): "
          f"{result.stdout.strip().splitlines()[-1]}")
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"in {len(modules) + 1} source files" in result.stdout  # the modules and __init__


def test_rewritten_defaults_are_typed_at_run_time(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p", DEFAULTS_CASE)
    assert build(root, "--no-cache").returncode == 0
    with imported_package(root) as package:
        module = package.hostile_defaults_v1
        first = module.HostileDefaultsV1Input(req_with_default={})
        second = module.HostileDefaultsV1Input(req_with_default={})
        assert isinstance(first.origin, module.HostileDefaultsV1InputPoint) and first.origin.x == 1
        assert isinstance(first.points[0], module.HostileDefaultsV1InputPoint)
        assert isinstance(first.nested.inner, module.HostileDefaultsV1InputNestedInner)
        assert first.nested.inner.a == "q"  # the outer default wins over the inner one
        assert isinstance(first.matrix[0][0], module.HostileDefaultsV1InputMatrixItem)
        assert first.when == dt.date(2026, 1, 1) and isinstance(first.stamp, dt.datetime)
        assert isinstance(first.options, module.HostileDefaultsV1InputOptions)
        assert first.aliased.class_ == 1 and first.aliased.a_b == "x"
        first.points.append(first.points[0])
        assert len(second.points) == 1 and first.filled is not second.filled  # no shared default
        guarded = module.hostile_defaults.implement(lambda args: {"result": {"n": args.origin.x}})
        envelope = guarded({"req_with_default": {"q": 2}})
        assert envelope["status"] == "ok" and envelope["output"] == {"result": {"n": 1}}


def _default_source(code: str, field: str) -> str:
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == field:
            assert node.value is not None
            return ast.unparse(node.value)
    raise AssertionError(field)


def test_type_defaults_rewrites_only_what_mypy_rejects() -> None:
    code = '''from pydantic import BaseModel

class Inner(BaseModel):
    a: int | None = None

class M(BaseModel):
    keep_int: int | None = 3
    keep_float: float = 1
    keep_list: list[str] | None = ["a", "b"]
    keep_map: dict[str, int] | None = {"k": -1}
    keep_literal: Literal["x", "y"] | None = "x"
    keep_any: Any = {"k": [1]}
    keep_empty: list[Inner] | None = []
    model: Inner | None = {"a": 1}
    models: list[Inner] = [{"a": 1}]
    day: date | None = "2026-01-01"
    wrong_literal: Literal[1, 2] = True
    naïve: Inner | None = {"a": 2}
'''
    rewritten = type_defaults(code)
    for field in ("keep_int", "keep_float", "keep_list", "keep_map", "keep_literal", "keep_any", "keep_empty"):
        assert _default_source(rewritten, field) == _default_source(code, field), field
    for field, literal in (("model", "{'a': 1}"), ("models", "[{'a': 1}]"), ("day", "'2026-01-01'"),
                           ("wrong_literal", "True"), ("naïve", "{'a': 2}")):
        assert _default_source(rewritten, field) == f"Field({literal}, validate_default=True)", field
    # (naïve: ast columns count bytes, so the splice must too)
    assert "from pydantic import Field\n" in rewritten
    assert type_defaults(rewritten) == rewritten  # a Field(...) default is never rewritten twice
