"""Every way the command line stops says what to do next.

Golden cases under tests/cases/cli/: each folder holds ``command.txt`` (the arguments, one line), the
project files the command sees, and ``expected.txt`` (exit code and exact output, the case folder
written as ``<case>``). The real CLI runs in a copy of the folder. Every case that exits 2 must end
in a concrete ``hint:``; a source audit holds the command line's own messages to the same rule.
"""

from __future__ import annotations

import ast
import os
import re
import shlex
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import ROOT, compare_golden, run_cli, run_cli_in_process

CASES = Path(__file__).parent / "cases" / "cli"
UPDATE_COMMAND = "python -m pytest tests/test_cli_dead_ends.py --update-goldens"
GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def _git_repository(folder: Path) -> None:
    """The case's files committed in a repository of their own, with no remote."""
    env = {**os.environ, **GIT_ENV}
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "first"]):
        subprocess.run(["git", *args], cwd=folder, env=env, check=True, capture_output=True)


#: cases whose setup is more than files
SETUP: dict[str, Callable[[Path], None]] = {"diff-against-unknown-revision": _git_repository}


def _case_names() -> list[str]:
    return sorted(p.name for p in CASES.iterdir() if p.is_dir())


def _run(name: str, work: Path, *, real_process: bool = False) -> tuple[int, str]:
    shutil.copytree(
        CASES / name,
        work,
        ignore=shutil.ignore_patterns("expected.txt", "command.txt", "README.md"),
    )
    if name in SETUP:
        if shutil.which("git") is None:
            pytest.skip("git is not installed")
        SETUP[name](work)
    args = shlex.split((CASES / name / "command.txt").read_text())
    result = (
        run_cli(*args, cwd=work, timeout=120)
        if real_process
        else run_cli_in_process(*args, cwd=work)
    )
    output = f"exit: {result.returncode}\n{result.stderr}"
    if result.stdout:
        output += f"--- stdout\n{result.stdout}"
    return result.returncode, output.replace(str(work.resolve()), "<case>").replace(
        str(work), "<case>"
    )


def test_the_cases_cover_every_command() -> None:
    commands = {shlex.split((CASES / n / "command.txt").read_text())[0] for n in _case_names()}
    assert commands >= {"check", "build", "diff", "import"}, commands


@pytest.mark.parametrize("name", _case_names())
def test_dead_end_case(name: str, tmp_path: Path, update_goldens: bool) -> None:
    code, actual = _run(name, tmp_path / name)
    assert not re.search(r"^Traceback \(most recent call last\):$", actual, re.MULTILINE), actual
    if code == 2:
        assert re.search(r"^    hint: \S", actual, re.MULTILINE), (
            f"an exit-2 stop without a next step:\n{actual}"
        )
    compare_golden(
        CASES / name / "expected.txt", actual, update=update_goldens, update_command=UPDATE_COMMAND
    )


def test_a_case_as_a_real_process_gives_the_same_output(tmp_path: Path) -> None:
    name = "build-check-given-a-value"
    assert _run(name, tmp_path / "real", real_process=True) == _run(name, tmp_path / "in-process")


def test_build_check_is_a_flag(tmp_path: Path) -> None:
    """``build --check`` with no value: up to date after a build, exit 1 with a diff once stale."""
    shutil.copytree(
        Path(__file__).parent / "cases" / "check" / "ok-minimal-yaml",
        tmp_path / "contracts",
        ignore=shutil.ignore_patterns("expected.txt"),
    )
    assert run_cli("build", cwd=tmp_path).returncode == 0
    fresh = run_cli("build", "--check", "--no-cache", cwd=tmp_path)
    assert fresh.returncode == 0 and "up to date" in fresh.stderr, fresh.stderr
    (tmp_path / "generated" / "README.stale").write_text("not generated\n")
    stale = run_cli("build", "--check", "--no-cache", cwd=tmp_path)
    assert stale.returncode == 1 and "stale; run `contractgen build`" in stale.stderr, stale.stderr


@pytest.mark.parametrize("command", [[], ["check"], ["build"], ["diff"], ["import"], ["init"]])
def test_help_shows_flags_as_flags(command: list[str]) -> None:
    """A flag's line names no value type (Typer shows ``<bool>`` unless told), an option's does."""
    result = run_cli(*command, "--help", env={"COLUMNS": "200", "TERM": "dumb"})
    assert result.returncode == 0, result.stderr
    flag_lines = [
        line
        for line in result.stdout.splitlines()
        if re.search(r"--(help|force|check|strict|version)\b", line)
    ]
    assert flag_lines and not [line for line in flag_lines if "<bool>" in line], result.stdout
    assert "<bool>" not in result.stdout
    if command == ["build"]:
        assert re.search(r"--output\s+<path>", result.stdout), result.stdout


#: the modules whose diagnostics are about how the command line was called, its configuration, its paths
#: and git (a manifest's own diagnostics are covered by tests/cases/check)
AUDITED = [
    "contractgen/cli",
    "contractgen/config.py",
    "contractgen/scaffold.py",
    "contractgen/importer/__init__.py",
    "contractgen/compiler/write.py",
    "contractgen/diff/git.py",
    "contractgen/manifest/load.py",
    "contractgen/diff/ignores.py",
]


def _diagnostics_without_hint() -> list[str]:
    found = []
    files = [f for entry in AUDITED for f in sorted((ROOT / entry).glob("*.py")) or [ROOT / entry]]
    for file in files:
        for node in ast.walk(ast.parse(file.read_text())):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", getattr(node.func, "attr", None))
            keywords = {k.arg: k.value for k in node.keywords}
            hintless = (
                name == "Diagnostic"
                and (keywords.get("hint") is None or ast.unparse(keywords["hint"]) == "None")
            ) or (name == "_usage" and ast.unparse(node.args[1]) == "None")
            if hintless:
                found.append(f"{file.relative_to(ROOT)}:{node.lineno}")
    return found


def test_every_command_line_diagnostic_has_a_hint() -> None:
    assert _diagnostics_without_hint() == []
