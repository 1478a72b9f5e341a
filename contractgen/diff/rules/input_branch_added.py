"""input-branch-added: an anyOf/oneOf branch of an input was added."""

from __future__ import annotations

from collections.abc import Iterator

from ...prover import Verdict
from ..model import Context, Direction, Hit, Level, Scope
from ..normalize import canonical
from ..reading import prove
from ..ruletools import show
from ..structure import SchemaPair, unmatched_branches

ID = "input-branch-added"
LEVEL = Level.SAFE
SUMMARY = "An anyOf/oneOf branch of an input was added."
DIRECTION = Direction.INPUT
SCOPE = Scope.SCHEMA


def check(pair: SchemaPair, context: Context) -> Iterator[Hit]:
    """Another accepted shape; what was accepted before still is. (A oneOf branch that overlaps an
    old one rejects values matching both; that is reported as input-schema-narrowed instead.)"""
    if not pair.both:
        return
    assert pair.old is not None and pair.new is not None
    for keyword in ("anyOf", "oneOf"):
        if keyword not in pair.new or not pair.changed(keyword):
            continue
        _, added = unmatched_branches(pair, keyword)
        if keyword == "oneOf" and added and prove(pair, context.strict)[0].verdict is Verdict.NOT_COVERS:
            continue  # the new branch overlaps an old one: input-schema-narrowed reports the break
        new_keys = [canonical(b) for b in pair.new[keyword]]
        for branch in added:
            index = new_keys.index(canonical(branch))
            yield Hit(f"{keyword} branch {show(branch)} added", pointer=f"{pair.pointer}/{keyword}/{index}",
                      source=branch.source, side="new")
