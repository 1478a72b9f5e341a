"""input-enum-value-removed: an input enum lost values (or an enum now restricts the input)."""

from __future__ import annotations

from collections.abc import Iterator

from ...prover import Mutation
from ..model import Context, Direction, Hit, Level, Scope
from ..normalize import value_key
from ..ruletools import samples, show
from ..structure import SchemaPair

ID = "input-enum-value-removed"
LEVEL = Level.BREAKING
SUMMARY = "An input enum value was removed (or an enum was introduced)."
DIRECTION = Direction.INPUT
SCOPE = Scope.SCHEMA
WITNESS = True


def check(pair: SchemaPair, context: Context) -> Iterator[Hit]:
    """Callers sending the removed value are rejected; models keep sending values they saw in older
    descriptions for a long time. Keep accepting the value (map it to its replacement), or remove it
    in a new major version."""
    if pair.old is None or pair.new is None or not pair.changed("enum") or "enum" not in pair.new:
        return
    new_keys = {value_key(v) for v in pair.new["enum"]}
    if "enum" in pair.old:
        removed = [v for v in pair.old["enum"] if value_key(v) not in new_keys]
        if removed:
            yield Hit(keywords=("enum",), message=f"enum values removed: {', '.join(show(v) for v in removed)}",
                      mutations=tuple(Mutation(pair.steps, "set", v) for v in removed))
        return
    yield Hit(keywords=("enum",), message=f"an enum now limits the accepted values to {show(pair.new['enum'])}",
              mutations=tuple(Mutation(pair.steps, "set", v) for v in samples(pair.old)), probe_path=pair.steps)
