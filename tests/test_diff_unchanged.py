"""`contractgen diff` reads only what changed: a tool whose manifests are byte-identical on both sides is
neither parsed nor checked (contractgen/diff/unchanged.py), in two folders and with --against, and
leaving it out never changes what is found about the tools that did change."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from conftest import run_cli

from contractgen.diff.unchanged import named_tool, unchanged_folders

ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
       "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}
#: a manifest that names its tool plainly and then fails to parse: read, it stops the diff (exit 2)
UNREADABLE = "name: frozen\nversion: 1.0.0\nsummary: [unclosed\n"


def manifest(name: str, version: str, modes: list[str]) -> str:
    doc = {"name": name, "version": version, "summary": "Demo.", "description": "A demo tool.",
           "input": {"type": "object", "additionalProperties": False, "required": ["query"],
                     "properties": {"query": {"type": "string"}, "mode": {"enum": modes}}},
           "output": {"type": "object", "properties": {"result": {"type": "string"}}}}
    return yaml.safe_dump(doc, sort_keys=False)


def write(root: Path, relative: str, text: str) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")


def trees(tmp_path: Path, frozen: str) -> Path:
    """old/ and new/: `demo` loses an enum value, `frozen` is the same bytes on both sides."""
    for side, modes in (("old", ["fast", "exact"]), ("new", ["fast"])):
        write(tmp_path / side, "demo/1.0.0.yaml", manifest("demo", "1.0.0", ["fast", "exact"]))
        write(tmp_path / side, "demo/1.1.0.yaml" if side == "new" else "demo/1.0.0.yaml",
              manifest("demo", "1.1.0" if side == "new" else "1.0.0", modes))
        write(tmp_path / side, "frozen/1.0.0.yaml", frozen)
    return tmp_path


def findings(result: subprocess.CompletedProcess[str]) -> list[tuple[str, str, str | None]]:
    assert result.returncode in (0, 1), result.stderr
    return [(f["rule"], f["tool"], f["new_version"]) for f in json.loads(result.stdout)["findings"]]


def test_an_identical_tool_is_not_parsed_or_checked(tmp_path: Path) -> None:
    root = trees(tmp_path, UNREADABLE)
    result = run_cli("diff", "old", "new", "--format", "json", cwd=root)
    assert ("input-enum-value-removed", "demo", "1.1.0") in findings(result)
    # demo 1.0.0 -> 1.0.0 and -> 1.1.0, and frozen 1.0.0 (left out unread: the same bytes)
    assert json.loads(result.stdout)["result"]["compared"] == 3
    # the same file changed on one side is read, and stops the diff as before
    write(root / "new", "frozen/1.0.0.yaml", UNREADABLE + "# edited\n")
    assert run_cli("diff", "old", "new", "--format", "json", cwd=root).returncode == 2


def test_leaving_out_the_identical_tools_changes_no_finding(tmp_path: Path) -> None:
    """The same trees with the identical tool made one byte different (a comment) give the same findings."""
    frozen = manifest("frozen", "1.0.0", ["a"])
    left_out = findings(run_cli("diff", "old", "new", "--format", "json", cwd=trees(tmp_path / "a", frozen)))
    root = trees(tmp_path / "b", frozen)
    write(root / "new", "frozen/1.0.0.yaml", frozen + "# touched\n")
    assert left_out == findings(run_cli("diff", "old", "new", "--format", "json", cwd=root)) != []


def test_a_changed_version_in_another_folder_still_finds_its_predecessor(tmp_path: Path) -> None:
    """`demo` 1.0.0 sits unchanged in demo/; its new version 1.1.0 arrives in next/ with an enum value
    removed. The unchanged folder names a tool a read manifest names, so it is read: the new version is
    compared with 1.0.0, not reported as a new tool."""
    for side in ("old", "new"):
        write(tmp_path / side, "demo/1.0.0.yaml", manifest("demo", "1.0.0", ["fast", "exact"]))
    write(tmp_path / "new", "next/1.1.0.yaml", manifest("demo", "1.1.0", ["fast"]))
    found = findings(run_cli("diff", "old", "new", "--format", "json", cwd=tmp_path))
    assert ("input-enum-value-removed", "demo", "1.1.0") in found
    assert not any(rule == "tool-added" for rule, _, _ in found)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_against_a_revision_leaves_out_the_identical_tools(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    write(repo, "contracts/demo/1.0.0.yaml", manifest("demo", "1.0.0", ["fast", "exact"]))
    write(repo, "contracts/frozen/1.0.0.yaml", UNREADABLE)
    env = {**os.environ, **ENV}
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "v1"]):
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, env=env)
    write(repo, "contracts/demo/1.1.0.yaml", manifest("demo", "1.1.0", ["fast"]))
    result = run_cli("diff", "--against", "main", "contracts", "--format", "json", cwd=repo)
    assert ("input-enum-value-removed", "demo", "1.1.0") in findings(result)
    write(repo, "contracts/frozen/1.0.0.yaml", UNREADABLE + "# edited\n")
    assert run_cli("diff", "--against", "main", "contracts", "--format", "json", cwd=repo).returncode == 2


@pytest.mark.parametrize(("text", "name"), [
    (b"name: search\nversion: 1.0.0\n", "search"),
    (b"version: 1.0.0\nname: 'search'  # the tool\n", "search"),
    (b'{"name": "search"}', None),  # JSON: not read plainly, so never left out
    (b"name: a\nname: b\n", None),  # two names: the parser decides, so it is read
    (b"input:\n  name: nested\n", None),
])
def test_a_tool_is_named_plainly_or_its_folder_is_read(text: bytes, name: str | None) -> None:
    assert named_tool(text) == name


def test_a_folder_is_left_out_only_when_every_file_is_the_same_on_both_sides() -> None:
    same = b"name: t\n"
    old = {"t/1.yaml": same, "u/1.yaml": same.replace(b"t", b"u"), "v/1.yaml": b"name: v\n"}
    new = {"t/1.yaml": same, "u/1.yaml": same.replace(b"t", b"u"), "u/2.yaml": b"name: u\n", "v/1.yaml": None}
    assert unchanged_folders(old, new) == {"t": {"t"}}


def test_manifest_discovery_lists_what_a_recursive_glob_lists(tmp_path: Path) -> None:
    """Both trees are listed with one os.walk (manifest/load.py): the same entries, in the same order, as
    the filter over ``sorted(rglob("*"))`` it replaced: hidden names and folders left out, links kept
    (a link to a folder too: it is reported as not a file), folders behind links not entered."""
    from contractgen.manifest.load import MANIFEST_SUFFIXES, discover_manifests

    root = tmp_path / "tree"
    for folder in ("a/b", ".hidden/x", "c.yaml", "d", "e", "z/.q"):
        (root / folder).mkdir(parents=True)
    for name in ("a/1.yaml", "a/b/2.yml", "a/b/.h.yaml", ".hidden/x/3.yaml", "c.yaml/4.json", "d/5.txt",
                 "e/6.JSON", "a-b.yaml", "a/7.json", "z/.q/8.yaml"):
        (root / name).write_text("name: x\n", "utf-8")
    (root / "e/linkdir.yaml").symlink_to("../a")
    (root / "e/linkdir").symlink_to("../a")
    (root / "e/broken.yaml").symlink_to("nowhere")
    (root / "e/file.yaml").symlink_to("../a/1.yaml")
    os.mkfifo(root / "e/pipe.yaml")
    globbed = [p for p in sorted(root.rglob("*")) if p.suffix in MANIFEST_SUFFIXES
               and (p.is_symlink() or not p.is_dir()) and not any(part.startswith(".") for part in p.relative_to(root).parts)]
    assert [p.relative_to(root).as_posix() for p in globbed] == [
        "a/1.yaml", "a/7.json", "a/b/2.yml", "a-b.yaml", "c.yaml/4.json", "e/broken.yaml", "e/file.yaml",
        "e/linkdir.yaml", "e/pipe.yaml"]
    found, problems = discover_manifests([root])
    assert found == [p for p in globbed if p.is_file()]
    assert sorted(d.file for d in problems) == sorted(str(p) for p in globbed if not p.is_file())
    assert all(d.code == "not-a-file" for d in problems)
