"""``diff`` under hostile input: control characters in names never reach the terminal raw, a partial
clone never makes ``--against`` fetch, and an oversized blob is refused from its size.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st
from test_diff_git import ENV, git, write_manifest

from contractgen.diff.engine import DiffReport
from contractgen.diff.model import Finding, Level
from contractgen.diff.render import Labels, render_markdown, render_text

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

CONTROLS = "".join(chr(c) for c in [*range(0x20), *range(0x7f, 0xa0)]) + "\u2028\u2029"
#: invisible and bidirectional format characters, and a lone surrogate (an undecodable file-name byte)
FORMATS = "\u202e\u202a\u2066\u2069\u200b\u200f\u061c\ufeff\xad\U000e0041\udcff"


def _missing(repo: Path, revision: str) -> list[str]:
    listing = subprocess.run(["git", "rev-list", "--objects", "--no-walk", "--missing=print", revision], cwd=repo,
                             capture_output=True, text=True, check=True,
                             env={**os.environ, **ENV, "GIT_NO_LAZY_FETCH": "1"})
    return [line for line in listing.stdout.splitlines() if line.startswith("?")]


def test_partial_clone_never_fetches_and_explains_the_missing_blob(tmp_path: Path) -> None:
    origin = tmp_path / "origin"
    origin.mkdir()
    git(origin, "init", "-q", "-b", "main")
    git(origin, "config", "uploadpack.allowFilter", "true")
    write_manifest(origin, "1.0.0", ["fast", "exact"])
    git(origin, "add", "-A")
    git(origin, "commit", "-q", "-m", "v1")
    write_manifest(origin, "1.1.0", ["fast"])
    git(origin, "commit", "-q", "-am", "v2")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--filter=blob:none", f"file://{origin}", str(clone))
    assert _missing(clone, "HEAD~1"), "the old blob should be absent from the partial clone"
    result = run_cli("diff", "--against", "HEAD~1", "contracts", cwd=clone)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "partial clone" in result.stderr and "hint: fetch it once: git cat-file -p HEAD~1:" in result.stderr
    assert "Traceback" not in result.stderr
    assert _missing(clone, "HEAD~1"), "contractgen fetched the blob from the remote"


def test_an_oversized_blob_is_refused_from_its_size(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    write_manifest(repo, "1.0.0", ["fast"])
    big = repo / "contracts" / "big" / "1.0.0.yaml"
    big.parent.mkdir(parents=True)
    big.write_text("name: big\n" + "# padding\n" * 150_000, "utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "big")
    big.unlink()
    result = run_cli("diff", "--against", "main", "contracts", "--format", "json", cwd=repo)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "file-too-large" in result.stdout + result.stderr or "at most 1,000,000 bytes" in result.stderr


def _report(text: str) -> DiffReport:
    finding = Finding(rule="input-property-removed", level=Level.BREAKING, tool=f"t{text}", old_version="1.0.0",
                      new_version="1.1.0", pointer=f"/input/properties/{text}", message=f"removed {text}",
                      file=f"contracts/{text}.yaml", line=3, column=1)
    return DiffReport(findings=(finding,), compared=1)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(CONTROLS + FORMATS + "ab\\\"'"), min_size=1, max_size=12))
def test_text_and_markdown_output_hold_no_raw_control_characters(text: str) -> None:
    labels = Labels(mode="folders", old="old", new="new")
    for rendered in (render_text(_report(text), labels), render_markdown(_report(text), labels)):
        body = rendered.replace("\n", "")  # line breaks of the layout itself
        assert not any(c in CONTROLS + FORMATS for c in body), repr(rendered)
        rendered.encode("utf-8")  # printable on a strict UTF-8 stream


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_escaped_text_holds_no_control_format_or_surrogate_character(text: str) -> None:
    import unicodedata

    from contractgen.diagnostics import escape_controls

    escaped = escape_controls(text)
    assert not any(unicodedata.category(c) in {"Cc", "Cf", "Zl", "Zp", "Cs"} for c in escaped), repr(escaped)
    assert escape_controls(escaped) == escaped


def test_paths_the_cli_echoes_are_escaped_and_sarif_takes_undecodable_names(tmp_path: Path) -> None:
    """build printed its --output path raw (a terminal escape sequence in a configured output ran on the
    developer's terminal), and diff --format sarif raised UnicodeEncodeError on a manifest folder whose
    name is not UTF-8."""
    hostile = "gen\x1b]0;owned\x07\u202e\n"
    for side, modes in (("old", ["fast", "exact"]), ("new", ["fast"])):
        write_manifest(tmp_path / side, "1.0.0" if side == "old" else "1.1.0", modes)
        os.rename(tmp_path / side / "contracts" / "demo", os.fsencode(tmp_path / side / "contracts") + b"/demo\xff")
    built = run_cli("build", "--output", hostile, cwd=tmp_path / "new")
    assert built.returncode == 0, built.stderr
    assert not any(c in CONTROLS + FORMATS for c in built.stdout + built.stderr.replace("\n", "")), built.stderr
    assert "gen\\x1b]0;owned\\x07\\u202e\\n: written" in built.stderr
    sarif = run_cli("diff", str(tmp_path / "old"), str(tmp_path / "new"), "--format", "sarif")
    assert sarif.returncode == 1, sarif.stderr
    uris = [location["physicalLocation"]["artifactLocation"]["uri"]
            for result in json.loads(sarif.stdout)["runs"][0]["results"] for location in result["locations"]
            if "physicalLocation" in location]
    assert uris and all("demo%FF" in uri for uri in uris), uris


def test_a_hostile_file_name_is_printed_escaped_by_the_cli(tmp_path: Path) -> None:
    for side, modes in (("old", ["fast", "exact"]), ("new", ["fast"])):
        write_manifest(tmp_path / side, "1.0.0" if side == "old" else "1.1.0", modes)
        source = tmp_path / side / "contracts" / "demo" / "tool.yaml"
        target = tmp_path / side / "evil\x1b[31m\nname.yaml"
        source.rename(target)
    result = run_cli("diff", str(tmp_path / "old"), str(tmp_path / "new"))
    assert result.returncode == 1, result.stdout + result.stderr
    assert "\x1b" not in result.stdout and "\\x1b[31m\\nname.yaml" in result.stdout
    assert json.loads(run_cli("diff", str(tmp_path / "old"), str(tmp_path / "new"), "--format", "json").stdout)


def test_a_symlinked_manifest_at_a_revision_is_read_through_the_link_or_refused(tmp_path: Path) -> None:
    """The working tree follows a link named like a manifest; ``--against`` reads the same file at the
    revision (not the link's text as a manifest), and refuses a link it cannot follow there."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    write_manifest(repo, "1.0.0", ["fast", "exact"])
    shared = repo / "shared" / "demo.yaml"
    shared.parent.mkdir()
    (repo / "contracts" / "demo" / "tool.yaml").rename(shared)
    (repo / "shared" / "current.yaml").symlink_to("demo.yaml")
    (repo / "contracts" / "demo" / "tool.yaml").symlink_to("../../shared/current.yaml")  # two links
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "linked")
    (repo / "contracts" / "demo" / "tool.yaml").unlink()
    write_manifest(repo, "1.0.0", ["fast"])  # the link is replaced by a file that drops a mode
    result = run_cli("diff", "--against", "main", "contracts", "--format", "json", cwd=repo)
    assert result.returncode == 1, result.stdout + result.stderr  # the narrowed enum, read through the link
    assert "input-enum-value-removed" in result.stdout, result.stdout

    odd = {"broken": ("../nowhere.yaml", "a broken symbolic link to ../nowhere.yaml"),
           "outside": ("/etc/hostname", "a symbolic link to /etc/hostname, outside the repository"),
           "folder": ("../demo", "a symbolic link to ../demo, which is not a file"),
           "loop": ("loop.yaml", "a chain of more than 8 symbolic links")}
    for name, (target, _) in odd.items():
        link = repo / "contracts" / "odd" / f"{name}.yaml"
        link.parent.mkdir(exist_ok=True)
        link.symlink_to(target)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "odd links")
    for link in (repo / "contracts" / "odd").iterdir():
        link.unlink()
    result = run_cli("diff", "--against", "main", "contracts", cwd=repo)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    for name, (_, got) in odd.items():
        assert f"odd/{name}.yaml #: expected a manifest file at 'main' (got {got})" in result.stderr, result.stderr


LFS_POINTER_TEXT = ("version https://git-lfs.github.com/spec/v1\n"
                    "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n")


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_a_git_lfs_pointer_is_named_as_one_at_a_revision_and_in_the_tree(tmp_path: Path, suffix: str) -> None:
    """A manifest kept in Git LFS is a three-line pointer until ``git lfs pull``: it read as the YAML
    string 'version https://...' ('expected a mapping at the top of the manifest (got string)'), or as
    malformed JSON, with nothing saying what the file was or how to get the manifest."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    pointer = repo / "contracts" / "demo" / f"1.0.0{suffix}"
    pointer.parent.mkdir(parents=True)
    pointer.write_text(LFS_POINTER_TEXT, "utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "in LFS")
    for command in (("diff", "--against", "main", "contracts"), ("check", "contracts")):
        result = run_cli(*command, cwd=repo)
        assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
        assert f"1.0.0{suffix}:1 #: expected a manifest (got a Git LFS pointer" in result.stderr, result.stderr
        assert "git lfs pull" in result.stderr
