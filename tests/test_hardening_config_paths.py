"""Configuration from a cloned repository: ``[tool.contractgen]`` paths stay inside the project, and a path
the system refuses is a diagnostic.

A repository's pyproject.toml is not the user's word: ``contracts = "../outside"`` read manifests from
the rest of the disk (and echoed their content), ``output = "/elsewhere"`` wrote a whole tree there, and a
link inside the project that points out did the same. A 6,000-character path ended in a traceback
(``File name too long``), in the table and on the command line alike. The command line is the user's own
choice: a path named there may lead anywhere.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from build_support import make_project, read_bytes_tree
from conftest import run_cli

CASES = Path(__file__).resolve().parent / "cases" / "build"
SECRET = "the description of a manifest outside the project"
LONG = "a" * 6000


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() if p.is_file() else b"<folder>"
        for p in sorted(folder.rglob("*"))
    }


@pytest.fixture
def world(tmp_path: Path) -> Path:
    """``project/`` (a clone: its own contracts) beside ``outside/`` (manifests that are not its own)."""
    make_project(tmp_path / "project", CASES / "basic" / "contracts")
    outside = tmp_path / "outside"
    shutil.copytree(CASES / "basic" / "contracts", outside / "contracts")
    for manifest in (outside / "contracts").rglob("*.yaml"):
        text = manifest.read_text("utf-8")
        manifest.write_text(text.replace("description: ", f"description: {SECRET} ", 1), "utf-8")
    return tmp_path


def _configure(project: Path, body: str) -> None:
    (project / "pyproject.toml").write_text(
        f"[tool.contractgen]\n# a clone's settings\n{body}\n", "utf-8"
    )


def _refused(result, key: str) -> None:  # type: ignore[no-untyped-def]
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    assert (
        f"pyproject.toml:3 #/tool/contractgen/{key}: expected a path inside the project"
        in result.stderr
    ), result.stderr
    assert SECRET not in result.stdout + result.stderr


@pytest.mark.parametrize(
    "value",
    ["../outside/contracts", "{outside}/contracts", "linked", "sub/../../outside/contracts"],
)
@pytest.mark.parametrize(
    "command", [("check",), ("build",), ("build", "--check"), ("diff", "--versions")]
)
def test_configured_contracts_outside_the_project_are_not_read(
    world: Path, value: str, command: tuple[str, ...]
) -> None:
    project = world / "project"
    (project / "linked").symlink_to(world / "outside" / "contracts", target_is_directory=True)
    (project / "sub").mkdir()
    _configure(project, f'contracts = "{value.format(outside=world / "outside")}"')
    before = _snapshot(world / "outside")
    result = run_cli(*command, cwd=project)
    _refused(result, "contracts")
    assert "hint: a project's configuration may not reach outside it" in result.stderr
    assert not (project / "generated").exists()
    assert _snapshot(world / "outside") == before


@pytest.mark.parametrize("value", ["{world}/elsewhere", "../elsewhere", "out/generated", "..", "/"])
@pytest.mark.parametrize("args", [(), ("--check",)])
def test_a_configured_output_outside_the_project_is_not_written(
    world: Path, value: str, args: tuple[str, ...]
) -> None:
    project = world / "project"
    (world / "elsewhere").mkdir()
    (project / "out").symlink_to(
        world / "elsewhere", target_is_directory=True
    )  # a link committed in the clone
    _configure(project, f'output = "{value.format(world=world)}"')
    before = _snapshot(world)
    result = run_cli("build", *args, cwd=project)
    _refused(result, "output")
    assert "--output PATH" in result.stderr
    assert _snapshot(world) == before


def test_the_command_line_may_name_a_path_outside_the_project(world: Path) -> None:
    project = world / "project"
    _configure(project, 'contracts = "../outside/contracts"\noutput = "../elsewhere"')
    elsewhere = world / "elsewhere"
    built = run_cli(
        "build",
        "--contracts",
        str(world / "outside" / "contracts"),
        "--output",
        str(elsewhere),
        cwd=project,
    )
    assert built.returncode == 0, built.stderr
    assert any(SECRET in text.decode() for text in read_bytes_tree(elsewhere).values())
    checked = run_cli("check", "../outside/contracts", cwd=project)
    assert checked.returncode == 0, checked.stderr
    # one key on the command line does not excuse the other in the table
    partly = run_cli("build", "--output", str(elsewhere), cwd=project)
    _refused(partly, "contracts")
    # inside the project, the table is used as before
    _configure(project, 'contracts = "contracts"\noutput = "src/generated"')
    inside = run_cli("build", cwd=project)
    assert inside.returncode == 0, inside.stderr
    assert (project / "src" / "generated").is_dir()


@pytest.mark.parametrize("key", ["contracts", "output"])
@pytest.mark.parametrize("command", [("check",), ("build",), ("build", "--check")])
def test_a_path_the_system_refuses_in_the_table_is_a_diagnostic(
    world: Path, key: str, command: tuple[str, ...]
) -> None:
    project = world / "project"
    _configure(project, f'{key} = "{LONG}"')
    result = run_cli(*command, cwd=project)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr, result.stderr[-2000:]
    assert (
        f"pyproject.toml:3 #/tool/contractgen/{key}: expected a path the system can use"
        in result.stderr
    )
    assert "File name too long" in result.stderr
    assert len(result.stderr) < 1000  # the path is shortened, not printed 6,000 characters long


def test_a_loop_of_links_in_the_table_is_a_diagnostic(world: Path) -> None:
    project = world / "project"
    (project / "loop").symlink_to("loop")
    _configure(project, 'contracts = "loop/contracts"')
    result = run_cli("check", cwd=project)
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert "#/tool/contractgen/contracts: expected a path the system can use" in result.stderr
    assert os.strerror(40) in result.stderr  # ELOOP: Too many levels of symbolic links


@pytest.mark.parametrize(
    "command",
    [
        ("build", "--output", LONG),
        ("build", "--contracts", LONG),
        ("check", LONG),
        ("build", "--output", f"{LONG[:200]}/" * 30),
    ],
)
def test_a_path_the_system_refuses_on_the_command_line_is_a_diagnostic(
    world: Path, command: tuple[str, ...]
) -> None:
    result = run_cli(*command, cwd=world / "project")
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr, result.stderr[-2000:]
    assert "expected a path the system can use (got: File name too long)" in result.stderr, (
        result.stderr[-2000:]
    )
    assert len(result.stderr) < 1000
