"""Static typing of the generated API, against the real generated/: every file in tests/typing/pass
type-checks under ``mypy --strict``; in tests/typing/fail, mypy reports exactly the lines marked
``# E: <part of the message>`` and nothing else. One mypy run covers both folders."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from conftest import ROOT

TYPING = ROOT / "tests" / "typing"
_MARKER = re.compile(r"#\s*E:\s*(?P<text>.+?)\s*$")
_REPORTED = re.compile(r"^(?P<path>[^:\n]+\.py):(?P<line>\d+): error: (?P<message>.+)$", re.MULTILINE)


def _expected(path: Path) -> dict[int, str]:
    found = {}
    for number, line in enumerate(path.read_text("utf-8").splitlines(), start=1):
        marker = _MARKER.search(line)
        if marker:
            found[number] = marker.group("text")
    return found


def test_pass_and_fail_files_under_mypy_strict() -> None:
    passing = sorted((TYPING / "pass").glob("*.py"))
    failing = sorted((TYPING / "fail").glob("*.py"))
    assert passing and failing
    result = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental",
                             "--show-error-codes", "--no-pretty", "--no-color-output",
                             *(str(p.relative_to(ROOT)) for p in passing + failing)],
                            cwd=ROOT, capture_output=True, text=True, check=False)
    assert "error: Cannot find implementation or library stub" not in result.stdout, result.stdout
    reported: dict[tuple[str, int], list[str]] = {}
    for match in _REPORTED.finditer(result.stdout):
        key = (Path(match.group("path")).as_posix(), int(match.group("line")))
        reported.setdefault(key, []).append(match.group("message"))

    problems = []
    for path in passing:
        relative = path.relative_to(ROOT).as_posix()
        problems += [f"{relative}:{line}: unexpected error: {m}" for (p, line), ms in reported.items()
                     if p == relative for m in ms]
    for path in failing:
        relative = path.relative_to(ROOT).as_posix()
        expected = _expected(path)
        assert expected, f"{relative} marks no expected error"
        for line, text in expected.items():
            messages = reported.get((relative, line), [])
            if not any(text in m for m in messages):
                problems.append(f"{relative}:{line}: expected an error containing {text!r} (got {messages})")
        problems += [f"{relative}:{line}: unexpected error: {m}" for (p, line), ms in reported.items()
                     if p == relative and line not in expected for m in ms]
    assert not problems, "\n".join(problems) + "\n\nmypy said:\n" + result.stdout
    # the pass files hold assert_type checks: a mypy that resolved nothing (all Any) would fail them
    assert result.returncode == 1 and "error:" in result.stdout


def test_the_package_type_checks(tmp_path: Path) -> None:
    """contractgen type-checks under mypy, and the runtime (what generated code imports) under
    ``--strict``: a type slip in the compiler or the runtime is a failing test, not a warning."""
    for arguments in (["contractgen"], ["--strict", "contractgen/runtime"]):
        result = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path), "--show-error-codes",
                                 "--no-pretty", "--no-color-output", *arguments],
                                cwd=ROOT, capture_output=True, text=True, check=False)
        assert result.returncode == 0 and "Success" in result.stdout, result.stdout + result.stderr
