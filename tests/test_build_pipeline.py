"""The build pipeline through the real CLI: determinism, stable names, --check, atomic writes, stale
files, incremental rebuilds and configuration."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

from build_support import build, imported_package, make_project, read_bytes_tree
from conftest import ROOT

CASES = Path(__file__).resolve().parent / "cases" / "build"


def _project_with_bundled(tmp_path: Path, name: str = "p") -> Path:
    return make_project(tmp_path / name, ROOT / "contracts")


def test_byte_identical_across_runs_and_hash_seeds(tmp_path: Path) -> None:
    first, second = _project_with_bundled(tmp_path, "a"), _project_with_bundled(tmp_path, "b")
    assert build(first, "--no-cache", env={"PYTHONHASHSEED": "1"}).returncode == 0
    assert build(second, "--no-cache", env={"PYTHONHASHSEED": "4242"}).returncode == 0
    tree = read_bytes_tree(first / "generated")
    assert tree == read_bytes_tree(second / "generated")
    # and equal to the committed build, which was made in another directory at another time
    assert tree == read_bytes_tree(ROOT / "generated")


def test_adding_tools_never_renames_another_tools_classes(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p", CASES / "keywords" / "contracts")
    assert build(root, "--no-cache").returncode == 0
    before = (root / "generated" / "odd_names_v1.py").read_bytes()
    # new tools whose nested objects and enums have the same property names, sorting before and after
    for name in ("aaa_first", "zzz_last"):
        manifest = json.loads(json.dumps(_manifest(name)))
        manifest["input"]["properties"].update({
            "nested": {"type": "object", "properties": {"status": {"enum": ["p", "q"]}}},
            "status": {"enum": ["a", "b"]}, "node": {"$ref": "#/$defs/node"}})
        manifest["input"]["$defs"] = {"node": {"type": "object", "properties": {"value": {"type": "string"}}}}
        _write(root, manifest)
    result = build(root, "--no-cache")
    assert result.returncode == 0, result.stderr
    assert (root / "generated" / "odd_names_v1.py").read_bytes() == before
    assert "class AaaFirstV1InputNested(BaseModel)" in (root / "generated" / "aaa_first_v1.py").read_text()


def _merged_manifest(name: str, extra_member: str) -> dict:
    merged = {"allOf": [{"type": "object", "properties": {"a": {"type": "string"}}},
                        {"properties": {extra_member: {"type": "integer"}}}]}
    manifest = _manifest(name)
    manifest["input"]["properties"]["filter"] = merged
    manifest["input"]["properties"]["outer"] = {"type": "object", "properties": {"filter": json.loads(json.dumps(merged))}}
    manifest["output"]["properties"]["filter"] = json.loads(json.dumps(merged))
    return manifest


def test_merged_all_of_classes_belong_to_their_own_tool(tmp_path: Path) -> None:
    """The generator names a class merged from allOf after the property alone: two tools with such a
    property shared one class, and the second tool's model could not be used."""
    together = make_project(tmp_path / "together")
    alone = make_project(tmp_path / "alone")
    for name, member in (("alpha", "b"), ("beta", "b"), ("gamma", "c")):  # same and other members
        _write(together, _merged_manifest(name, member))
    _write(alone, _merged_manifest("beta", "b"))
    for root in (together, alone):
        result = build(root, "--no-cache")
        assert result.returncode == 0, result.stderr
    assert (together / "generated" / "beta_v1.py").read_bytes() == (alone / "generated" / "beta_v1.py").read_bytes()
    with imported_package(together) as generated:
        for name, member in (("alpha", "b"), ("beta", "b"), ("gamma", "c")):
            stub = generated.STUBS[f"{name}_v1"]
            seen: list[Any] = []
            tool = stub.implement(lambda args, seen=seen: seen.append(args.model_dump(mode="json", exclude_unset=True)) or {})
            arguments = {"filter": {"a": "x", member: 1, "extra": True}, "outer": {"filter": {"a": "y"}}}
            envelope = tool(arguments)
            assert envelope["status"] == "ok", envelope
            assert seen == [arguments]  # every member kept, the undeclared one too


def test_check_reports_drift_as_a_unified_diff(tmp_path: Path) -> None:
    root = _project_with_bundled(tmp_path)
    assert build(root).returncode == 0
    assert build(root, "--check").returncode == 0
    module = root / "generated" / "refund_payment_v1.py"
    module.write_text(module.read_text().replace('"refund_payment"', '"edited"', 1))
    (root / "generated" / "leftover_v9.py").write_text("x = 1\n")
    result = build(root, "--check")
    assert result.returncode == 1
    assert "--- generated/refund_payment_v1.py" in result.stdout
    assert '-    name="edited",' in result.stdout or '-    "name": "edited"' in result.stdout or "+" in result.stdout
    assert "--- generated/leftover_v9.py" in result.stdout and "+++ /dev/null" in result.stdout
    assert "stale" in result.stderr
    assert (root / "generated" / "leftover_v9.py").exists(), "--check must not write"
    assert build(root).returncode == 0
    assert not (root / "generated" / "leftover_v9.py").exists()
    assert build(root, "--check").returncode == 0


def test_a_failed_build_leaves_the_output_byte_identical(tmp_path: Path) -> None:
    root = _project_with_bundled(tmp_path)
    assert build(root).returncode == 0
    before = read_bytes_tree(root / "generated")
    siblings = sorted(p.name for p in root.iterdir())
    broken = [
        ("refund_payment/1.0.0.yaml", "name: [unclosed\n"),  # not YAML
        ("refund_payment/1.0.0.yaml", (CASES / "error_clash" / "contracts" / "clash" / "1.0.0.yaml").read_text()
         .replace("name: clash", "name: refund_payment")),  # clashing error class names
        ("remote/1.0.0.yaml", (CASES / "external_ref" / "contracts" / "remote" / "1.0.0.yaml").read_text()),
    ]
    original = (root / "contracts" / "refund_payment" / "1.0.0.yaml").read_text()
    for relative, text in broken:
        target = root / "contracts" / relative
        target.parent.mkdir(exist_ok=True)
        target.write_text(text)
        result = build(root)
        assert result.returncode == 2, result.stderr
        assert "Traceback" not in result.stderr and "not written" in result.stderr
        assert read_bytes_tree(root / "generated") == before
        assert sorted(p.name for p in root.iterdir()) == siblings, "no temporary folder may be left behind"
        if relative.startswith("remote"):
            shutil.rmtree(target.parent)
        else:
            target.write_text(original)
    assert build(root, "--check").returncode == 0


def test_removed_tool_modules_disappear(tmp_path: Path) -> None:
    root = _project_with_bundled(tmp_path)
    assert build(root).returncode == 0
    shutil.rmtree(root / "contracts" / "refund_payment")
    assert build(root).returncode == 0
    assert not (root / "generated" / "refund_payment_v1.py").exists()
    assert "refund_payment" not in (root / "generated" / "__init__.py").read_text()


def test_incremental_rebuild_rerenders_only_what_changed(tmp_path: Path) -> None:
    root = _project_with_bundled(tmp_path)
    cold = build(root)
    assert cold.returncode == 0 and "(8 rendered, 0 from cache" in cold.stderr, cold.stderr
    noop = build(root)
    assert noop.returncode == 0 and "up to date" in noop.stderr, noop.stderr
    manifest = root / "contracts" / "refund_payment" / "1.0.0.yaml"
    manifest.write_text(manifest.read_text().replace("summary: Refund all or part", "summary: Refund all, or part"))
    one = build(root)
    # that tool's module and the registry; the six other modules come from the cache
    assert one.returncode == 0 and "(2 rendered, 6 from cache" in one.stderr, one.stderr
    assert "Refund all, or part" in (root / "generated" / "refund_payment_v1.py").read_text()
    # the cache gives the same bytes as a build without it
    cached = read_bytes_tree(root / "generated")
    assert build(root, "--no-cache", "--output", "fresh").returncode == 0
    assert read_bytes_tree(root / "fresh") == cached
    assert (root / ".contractgen-cache" / ".gitignore").read_text() == "*\n"


def test_output_edited_by_hand_is_rebuilt_even_when_manifests_did_not_change(tmp_path: Path) -> None:
    root = _project_with_bundled(tmp_path)
    assert build(root).returncode == 0
    (root / "generated" / "book_meeting_v2.py").write_text("# edited\n")
    result = build(root)
    assert result.returncode == 0 and "written" in result.stderr
    assert build(root, "--check", "--no-cache").returncode == 0


def test_pyproject_settings_and_flags(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    shutil.copytree(CASES / "basic" / "contracts", root / "specs")
    (root / "pyproject.toml").write_text('[tool.contractgen]\ncontracts = "specs"\noutput = "src/tools"\n')
    assert build(root).returncode == 0
    assert (root / "src" / "tools" / "get_weather_v1.py").read_text().startswith(
        "# Generated by contractgen from specs/get_weather/1.0.0.yaml. Do not edit.")
    assert build(root, "--contracts", "specs", "--output", "elsewhere").returncode == 0
    assert (root / "elsewhere" / "__init__.py").exists()


def test_tool_name_shaped_like_a_path_writes_nothing(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p")
    for name in ("../../escape", "/etc/passwd", "x\\..\\y"):
        manifest = _manifest("placeholder")
        manifest["name"] = name
        (root / "contracts" / "t.json").write_text(json.dumps(manifest))
        result = build(root)
        assert result.returncode == 2, result.stderr
        assert "#/name" in result.stderr and "Traceback" not in result.stderr
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")
                  if ".contractgen-cache" not in p.parts) == ["p", "p/contracts", "p/contracts/t.json", "p/pyproject.toml"]


def test_output_that_is_a_file_is_a_clean_error(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p", CASES / "basic" / "contracts")
    (root / "generated").write_text("not a folder\n")
    result = build(root)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert (root / "generated").read_text() == "not a folder\n"


def _manifest(name: str) -> dict:
    return {"name": name, "version": "1.0.0", "summary": f"Tool {name}.", "description": "Test tool.",
            "input": {"type": "object", "properties": {"q": {"type": "string"}}},
            "output": {"type": "object", "properties": {"r": {"type": "string"}}}}


def _write(root: Path, manifest: dict) -> None:
    folder = root / "contracts" / manifest["name"]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{manifest['version']}.json").write_text(json.dumps(manifest))


os.environ.pop("CONTRACTGEN_NO_CACHE", None)


def test_generated_code_type_checks_in_a_users_project(tmp_path: Path) -> None:
    """mypy --strict outside this repo: contractgen is an installed, typed (py.typed) dependency there."""
    import subprocess
    import sys

    root = make_project(tmp_path / "p")
    for case in ("basic", "keywords", "hostile", "strict", "versions"):
        shutil.copytree(CASES / case / "contracts", root / "contracts", dirs_exist_ok=True)
    assert build(root, "--no-cache").returncode == 0
    result = subprocess.run(check=False, args=[sys.executable, "-m", "mypy", "--strict", "--no-incremental", "generated"], cwd=root,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_tool_names_that_would_shadow_module_names_are_rejected(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p")
    for name in ("Any", "CONTRACT", "annotations", "DESCRIPTION"):
        _write(root, _manifest(name))
    result = build(root)
    assert result.returncode == 2
    for name in ("Any", "CONTRACT", "annotations", "DESCRIPTION"):
        assert f"contracts/{name}/1.0.0.json" in result.stderr and f"(got '{name}':" in result.stderr
    assert not (root / "generated").exists()


def test_progress_display_only_on_a_terminal(tmp_path: Path) -> None:
    import pty
    import subprocess
    import sys

    root = make_project(tmp_path / "p", CASES / "basic" / "contracts")
    piped = build(root, "--no-cache")
    assert piped.returncode == 0 and "generating models" not in piped.stderr
    (root / "generated" / "__init__.py").unlink()
    leader, follower = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "contractgen", "build", "--no-cache"], cwd=root,
                               stdout=subprocess.DEVNULL, stderr=follower, env={**os.environ, "COLUMNS": "100"})
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal closed: the process exited
            break
        if not chunk:
            break
        chunks.append(chunk)
    assert process.wait(timeout=120) == 0
    os.close(leader)
    shown = b"".join(chunks).decode("utf-8", "replace")
    assert "generating models" in shown and "written" in shown
