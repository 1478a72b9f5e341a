"""input-branch-removed: an anyOf/oneOf branch of an input was removed."""

from __future__ import annotations

from collections.abc import Iterator

from ...prover import NOTHING, Mutation, candidates
from ..model import Context, Direction, Hit, Level, Scope
from ..normalize import canonical
from ..ruletools import show
from ..structure import SchemaPair, unmatched_branches

ID = "input-branch-removed"
LEVEL = Level.BREAKING
SUMMARY = "An anyOf/oneOf branch of an input was removed."
DIRECTION = Direction.INPUT
SCOPE = Scope.SCHEMA
WITNESS = True


def check(pair: SchemaPair, context: Context) -> Iterator[Hit]:
    """Values that only the removed branch accepted are now rejected."""
    if not pair.both:
        return
    assert pair.old is not None and pair.new is not None
    for keyword in ("anyOf", "oneOf"):
        if keyword not in pair.old or not pair.changed(keyword):
            continue
        removed, _ = unmatched_branches(pair, keyword)
        old_keys = [canonical(b) for b in pair.old[keyword]]
        rest = {k: v for k, v in pair.old.items() if k != keyword}
        for branch in removed:
            index = old_keys.index(canonical(branch))
            values = [v for v in candidates({**rest, **branch}) if v is not NOTHING]
            yield Hit(f"{keyword} branch {show(branch)} removed", pointer=f"{pair.pointer}/{keyword}/{index}",
                      source=branch.source, side="old",
                      mutations=tuple(Mutation(pair.steps, "set", v) for v in values), probe_path=pair.steps)
