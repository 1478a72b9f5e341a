"""docs/diff.md's rule catalogue is generated from the registry and the case directories: keep it in sync."""

from __future__ import annotations

from conftest import ROOT
from diff_support import CASES

from contractgen.diff import RULES
from contractgen.diff.catalogue import END, START, render_catalogue, splice

DOC = ROOT / "docs" / "diff.md"


def test_catalogue_in_docs_is_current(update_goldens: bool) -> None:
    current = DOC.read_text("utf-8")
    fresh = splice(current, render_catalogue(CASES))
    if update_goldens:
        DOC.write_text(fresh, "utf-8")
        current = fresh
    assert current == fresh, "docs/diff.md is stale: run `pytest --update-goldens` (or " \
                             "`python -m contractgen.diff.catalogue docs/diff.md tests/cases/diff`)"


def test_catalogue_documents_every_rule_with_an_example_and_its_rationale() -> None:
    block = DOC.read_text("utf-8").split(START, 1)[1].split(END, 1)[0]
    for rule in RULES:
        section = block.split(f"#### `{rule.id}`\n", 1)[1].split("\n#### ", 1)[0]
        assert rule.summary in section
        assert rule.rationale.splitlines()[0] in section
        assert "```diff\n" in section and "Reported:" in section, rule.id
