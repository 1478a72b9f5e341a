"""input-const-changed: an input const was added or changed."""

from __future__ import annotations

from collections.abc import Iterator

from ...prover import Mutation
from ..model import Context, Direction, Hit, Level, Scope
from ..ruletools import samples, show
from ..structure import SchemaPair

ID = "input-const-changed"
LEVEL = Level.BREAKING
SUMMARY = "An input const was added or changed."
DIRECTION = Direction.INPUT
SCOPE = Scope.SCHEMA
WITNESS = True


def check(pair: SchemaPair, context: Context) -> Iterator[Hit]:
    """A const accepts exactly one value; callers sending the old value (or any other) are rejected."""
    if not pair.both or not pair.changed("const") or "const" not in (pair.new or {}):
        return
    assert pair.old is not None and pair.new is not None
    if "const" in pair.old:
        yield Hit(keywords=("const",), message=f"const changed from {show(pair.old['const'])} to {show(pair.new['const'])}",
                  mutations=(Mutation(pair.steps, "set", pair.old["const"]),))
    else:
        yield Hit(keywords=("const",), message=f"const {show(pair.new['const'])} added: only that value is accepted now",
                  mutations=tuple(Mutation(pair.steps, "set", v) for v in samples(pair.old)), probe_path=pair.steps)
