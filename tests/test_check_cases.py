"""Golden cases for `contractgen check`: one directory per input under tests/cases/check/.

Each case holds manifest files and ``expected.txt`` (the exit code and the exact diagnostics, with
paths relative to the case directory). The real CLI runs with the case directory as working
directory (on a copy, so generated inputs never land in the repo). Cases named ``ok-*`` and
``warn-*`` are valid input; every other case is invalid input and must exit 2 without a traceback.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import compare_golden, run_cli, run_cli_in_process

CASES = Path(__file__).parent / "cases" / "check"
UPDATE_COMMAND = "python -m pytest tests/test_check_cases.py --update-goldens"


def _ten_megabytes(folder: Path) -> None:
    """A 10 MB manifest: too big to keep in git, so it is written at test time."""
    target = folder / "lookup_order" / "1.0.0.yaml"
    target.parent.mkdir(parents=True, exist_ok=True)
    line = "# " + "x" * 97 + "\n"
    with target.open("w") as out:
        out.write("name: lookup_order\n")
        out.write(line * (10 * 1024 * 1024 // len(line) + 1))


def _hostile_file_name(folder: Path) -> None:
    """A manifest whose file name holds a quote, a newline and a terminal escape."""
    (folder / 'evil"\n\x1b[31m.yaml').write_text("name: evil\nversion: 1.0.0\n")


#: cases whose input is generated instead of committed
GENERATED: dict[str, Callable[[Path], None]] = {
    "file-too-large": _ten_megabytes,
    "hostile-file-name": _hostile_file_name,
}


def _case_names() -> list[str]:
    return sorted(p.name for p in CASES.iterdir() if p.is_dir())


def _is_valid_input(name: str) -> bool:
    return name.startswith(("ok-", "warn-"))


def test_enough_distinct_bad_cases() -> None:
    bad = [n for n in _case_names() if not _is_valid_input(n)]
    assert len(bad) >= 30, bad


def test_every_generated_case_has_a_directory() -> None:
    assert set(GENERATED) <= set(_case_names())


def _case_copy(name: str, work: Path) -> list[str]:
    """Copy the case to ``work``; returns the `check` arguments."""
    source = CASES / name
    shutil.copytree(source, work, ignore=shutil.ignore_patterns("expected.txt", "args.txt"))
    if name in GENERATED:
        GENERATED[name](work)
    args_file = source / "args.txt"
    return args_file.read_text().split() if args_file.exists() else ["."]


def _run_case(name: str, work: Path) -> subprocess.CompletedProcess[str]:
    """The case through the real CLI in a fresh process."""
    return run_cli("check", *_case_copy(name, work), cwd=work, timeout=60)


@pytest.fixture(scope="module")
def case_results(
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, subprocess.CompletedProcess[str]]:
    """Every case's CLI run, through the CLI's entry point in this process (a fresh interpreter per case
    cost about a second each; test_real_process_gives_exactly_the_in_process_run proves on a sample that
    the two agree)."""
    root = tmp_path_factory.mktemp("check-cases")
    return {name: run_cli_in_process("check", *_case_copy(name, root / name), cwd=root / name)
            for name in _case_names()}


#: every this-many-th case (and every case with generated input) is also run as a real process
SAMPLE_STRIDE = 8
SAMPLED = sorted(set(_case_names()[::SAMPLE_STRIDE]) | set(GENERATED))


@pytest.mark.parametrize("name", SAMPLED)
def test_real_process_gives_exactly_the_in_process_run(
    name: str, case_results: dict[str, subprocess.CompletedProcess[str]], tmp_path: Path
) -> None:
    real = _run_case(name, tmp_path / name)
    in_process = case_results[name]
    assert (real.returncode, real.stdout, real.stderr) == (
        in_process.returncode, in_process.stdout, in_process.stderr)


@pytest.mark.parametrize("name", _case_names())
def test_check_case(
    name: str, case_results: dict[str, subprocess.CompletedProcess[str]], update_goldens: bool
) -> None:
    source = CASES / name
    result = case_results[name]
    actual = f"exit: {result.returncode}\n{result.stderr}"
    if result.stdout:
        actual += f"--- stdout\n{result.stdout}"

    # a Python traceback starts a line; a diagnostic may quote the word inside a message
    assert not re.search(
        r"^Traceback \(most recent call last\):$", result.stderr + result.stdout, re.MULTILINE
    ), actual
    assert "internal-check-failure" not in actual and "could not check" not in actual
    if not _is_valid_input(name):
        assert result.returncode == 2, actual

    compare_golden(source / "expected.txt", actual, update=update_goldens, update_command=UPDATE_COMMAND)
