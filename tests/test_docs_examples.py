"""The documentation's code: every program under docs/examples runs from the repository root and
prints exactly what the comment lines that end it promise, and every page that shows one includes
it from that file (``--8<--``), so what the site shows is what ran."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

EXAMPLES = sorted((ROOT / "docs" / "examples").glob("*.py"))
INCLUDE = re.compile(r'^--8<-- "([^"]+)"$', re.MULTILINE)


def _promised(program: str) -> list[str]:
    lines = program.rstrip("\n").split("\n")
    promised: list[str] = []
    while lines and lines[-1].startswith("# "):
        promised.insert(0, lines.pop()[2:])
    return promised


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_example_prints_what_it_promises(example: Path) -> None:
    promised = _promised(example.read_text("utf-8"))
    assert promised, f"{example.name}: end the program with the lines it prints, as comments"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, str(example)], cwd=ROOT, capture_output=True, text=True,
                            timeout=300, check=False, env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == promised


def test_every_include_names_a_program_that_runs() -> None:
    pages = sorted((ROOT / "docs").rglob("*.md"))
    included = {match for page in pages for match in INCLUDE.findall(page.read_text("utf-8"))}
    assert included, "no page includes an example"
    assert {ROOT / name for name in included} <= set(EXAMPLES), included
