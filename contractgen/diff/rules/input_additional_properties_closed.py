"""input-additional-properties-closed: an open input object now rejects undeclared properties."""

from __future__ import annotations

from typing import Iterator

from ..model import Context, Direction, Hit, Level, Mutation, Scope
from ..structure import SchemaPair

from ..coverage import is_false_schema, is_open_schema
from ..generate import NOTHING, generate

ID = "input-additional-properties-closed"
LEVEL = Level.BREAKING
SUMMARY = "An input object now rejects undeclared properties (additionalProperties: false)."
DIRECTION = Direction.INPUT
SCOPE = Scope.SCHEMA
WITNESS = True
EXTRA_NAME = "unexpected_property"


def check(pair: SchemaPair, context: Context) -> Iterator[Hit]:
    """Callers that sent extra properties (tolerated before, perhaps read by a newer server) are now
    rejected outright."""
    if "object" not in pair.shared_types or not pair.changed("additionalProperties"):
        return
    assert pair.old is not None and pair.new is not None
    old, new = pair.old.get("additionalProperties"), pair.new.get("additionalProperties")
    if is_false_schema(old) or not is_false_schema(new):
        return
    value = generate(old) if isinstance(old, dict) else "x"
    name = EXTRA_NAME
    while name in pair.new.get("properties", {}) or name in pair.old.get("properties", {}):
        name += "_"
    values = [v for v in (value, "x", 1) if v is not NOTHING]
    yield Hit("additionalProperties closed: undeclared properties are rejected now" +
              ("" if is_open_schema(old) else " (they had to match a schema before)"),
              source=pair.new.source + "/additionalProperties",
              mutations=tuple(Mutation(pair.child_steps(name, None), "set", v) for v in values))
