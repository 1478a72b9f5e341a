"""docs/diff.md's rule catalogue and the site's rule summary are generated from the registry and
the case directories: keep them in sync."""

from __future__ import annotations

from conftest import ROOT
from diff_support import CASES

from contractgen.diff import RULES
from contractgen.diff.catalogue import (
    END,
    START,
    render_catalogue,
    render_summary,
    splice,
)

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


def test_rule_summary_gives_every_rule_a_before_and_after() -> None:
    """The summary table the site's rule reference shows (docs/hooks/reference.py)."""
    block = render_summary(CASES, "../diff.md")
    for rule in RULES:
        (row,) = [line for line in block.splitlines() if line.startswith(f"| [`{rule.id}`]")]
        example = row.rsplit("|", 2)[-2]
        before, after = example.split("→")
        assert "`" in before + after, rule.id  # at least one side quotes the case's text


def test_policy_adjustments_are_documented_as_listed() -> None:
    """docs/diff.md's adjustments table is the list `contractgen diff --list-rules` prints, row for row."""
    from contractgen.diff.reading import ADJUSTMENTS

    block = DOC.read_text("utf-8").split("<!-- adjustments:", 1)[1].split("\n\n", 1)[0]
    rows = [line for line in block.splitlines() if line.startswith("| ")][1:]  # below the header row
    assert rows == [f"| {direction} | {what} | {why} |" for direction, what, why in ADJUSTMENTS]
