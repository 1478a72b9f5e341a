"""The documentation's code: every program under docs/examples runs from the repository root and
prints exactly what the comment lines that end it promise, and every page that shows one includes
it from that file (``--8<--``), so what the site shows is what ran."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

FOLDER = ROOT / "docs" / "examples"
SCRIPTS = sorted(FOLDER.glob("*.sh"))
#: programs a script runs (after it has built what they import) are run by that script
RUN_BY_SCRIPT = {
    name
    for script in SCRIPTS
    for name in re.findall(r"^python (\S+\.py)", script.read_text("utf-8"), re.MULTILINE)
}
#: files that show what mypy says about a mistake: type-checked, never run
MISTAKES = sorted(FOLDER.glob("*_mistakes.py"))
PROGRAMS = sorted(
    p for p in FOLDER.glob("*.py") if p.name not in RUN_BY_SCRIPT and p not in MISTAKES
)
EXAMPLES = sorted([*FOLDER.glob("*.py"), *SCRIPTS])
INCLUDE = re.compile(r'^--8<-- "([^":]+)(?::[\w-]+)?"$', re.MULTILINE)


def _promised(program: str) -> list[str]:
    """The comment lines that end a program (snippet section markers are not output)."""
    lines = [line for line in program.rstrip("\n").split("\n") if not line.startswith("# --8<-- ")]
    promised: list[str] = []
    while lines and lines[-1].startswith("# "):
        promised.insert(0, lines.pop()[2:])
    return promised


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """``args`` with this checkout importable and this environment's `python` and `contractgen` first."""
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    }
    return subprocess.run(
        args, cwd=cwd, capture_output=True, text=True, timeout=600, check=False, env=env
    )


@pytest.mark.parametrize("example", PROGRAMS, ids=lambda p: p.name)
def test_example_prints_what_it_promises(example: Path) -> None:
    promised = _promised(example.read_text("utf-8"))
    assert promised, f"{example.name}: end the program with the lines it prints, as comments"
    result = _run([sys.executable, str(example)], ROOT)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == promised


def test_every_include_names_a_program_that_runs() -> None:
    pages = sorted((ROOT / "docs").rglob("*.md"))
    included = {match for page in pages for match in INCLUDE.findall(page.read_text("utf-8"))}
    assert included, "no page includes an example"
    assert {ROOT / name for name in included} <= set(EXAMPLES), included


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_script_runs_in_an_empty_folder(script: Path, tmp_path: Path) -> None:
    """The script, with bash -e, in an empty folder where `contractgen` and `python` are this
    environment's; the programs it runs print what they promise."""
    programs = re.findall(r"^python (\S+\.py)", script.read_text("utf-8"), re.MULTILINE)
    for name in programs:
        shutil.copy2(FOLDER / name, tmp_path / name)
    result = _run(["bash", "-e", str(script)], tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    promised = [line for name in programs for line in _promised((FOLDER / name).read_text("utf-8"))]
    assert [
        line for line in result.stdout.splitlines() if not line.startswith("contracts/")
    ] == promised


def _mypy(*files: Path) -> subprocess.CompletedProcess[str]:
    return _run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", *map(str, files)], ROOT
    )


def test_examples_type_check_strict() -> None:
    result = _mypy(*PROGRAMS)
    assert result.returncode == 0, result.stdout


@pytest.mark.parametrize("example", MISTAKES, ids=lambda p: p.name)
def test_mypy_reports_exactly_the_mistakes_the_comments_name(example: Path) -> None:
    expected = {
        (number, message)
        for number, line in enumerate(example.read_text("utf-8").splitlines(), 1)
        for message in re.findall(r"# error: (.+)$", line)
    }
    assert expected
    result = _mypy(example)
    reported = re.findall(
        rf"^{re.escape(str(example.relative_to(ROOT)))}:(\d+): error: (.+?)  \[",
        result.stdout,
        re.MULTILINE,
    )
    assert len(reported) == len(expected), result.stdout
    for number, message in expected:
        assert any(int(n) == number and text.startswith(message) for n, text in reported), (
            number,
            message,
        )


#: pages whose python blocks are API sketches no test runs as written, by count. Every other python
#: block on the site is included from docs/examples or, on the adapter pages, run by
#: tests/test_adapters_docs.py. openapi.md's `implement(base_url=..., headers=...)` reads the
#: reader's own settings; the same call against a real server is tests/test_import_openapi_http.py.
UNTESTED_SKETCHES: dict[str, int] = {"openapi.md": 1}


def test_no_python_block_is_left_untested_beyond_the_known_sketches() -> None:
    counts: dict[str, int] = {}
    for page in sorted((ROOT / "docs").rglob("*.md")):
        if page.parent.name == "adapters" and page.name != "README.md":
            continue
        blocks = re.findall(
            r"^```python\n(.*?)^```$", page.read_text("utf-8"), re.DOTALL | re.MULTILINE
        )
        untested = [b for b in blocks if not INCLUDE.fullmatch(b.strip())]
        if untested:
            counts[page.relative_to(ROOT / "docs").as_posix()] = len(untested)
    assert counts == UNTESTED_SKETCHES
