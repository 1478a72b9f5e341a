"""input-enum-value-removed: an input enum lost values (or an enum now restricts the input)."""

from __future__ import annotations

from typing import Iterator

from ..model import Context, Direction, Hit, Level, Mutation, Scope
from ..structure import SchemaPair

from ..normalize import value_key
from ..ruletools import samples, show

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
    if not pair.both or not pair.changed("enum") or "enum" not in pair.new:
        return
    assert pair.old is not None and pair.new is not None
    new_keys = {value_key(v) for v in pair.new["enum"]}
    if "enum" in pair.old:
        removed = [v for v in pair.old["enum"] if value_key(v) not in new_keys]
        if removed:
            yield Hit(f"enum values removed: {', '.join(show(v) for v in removed)}",
                      mutations=tuple(Mutation(pair.steps, "set", v) for v in removed))
        return
    yield Hit(f"an enum now limits the accepted values to {show(pair.new['enum'])}",
              mutations=tuple(Mutation(pair.steps, "set", v) for v in samples(pair.old)), probe_path=pair.steps)
