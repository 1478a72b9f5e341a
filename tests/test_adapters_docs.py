"""Every docs/adapters page's example runs: its one ``python`` block is executed as a program from
the repository root and must print exactly the lines in the comment that ends it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

PAGES = sorted(p for p in (ROOT / "docs" / "adapters").glob("*.md") if p.name != "README.md")
FENCE = re.compile(r"^```python\n(.*?)^```$", re.DOTALL | re.MULTILINE)


def example_of(page: Path) -> tuple[str, list[str]]:
    """The page's example and the output its closing comment promises."""
    blocks = FENCE.findall(page.read_text("utf-8"))
    assert len(blocks) == 1, f"{page.name}: expected one python example, found {len(blocks)}"
    lines = blocks[0].rstrip("\n").split("\n")
    promised: list[str] = []
    while lines and lines[-1].startswith("# "):
        promised.insert(0, lines.pop()[2:])
    assert promised, f"{page.name}: the example must end with the output it prints, as comments"
    return "\n".join(lines) + "\n", promised


def test_every_framework_has_a_page() -> None:
    adapters = sorted(p.stem for p in (ROOT / "contractgen" / "adapters").glob("*.py") if not p.stem.startswith("_"))
    assert [p.stem for p in PAGES] == adapters


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_example_runs_and_prints_what_it_says(page: Path) -> None:
    code, promised = example_of(page)
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                            timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == promised, result.stdout
