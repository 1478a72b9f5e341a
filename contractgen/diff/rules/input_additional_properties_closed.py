"""input-additional-properties-closed: an open input object now rejects undeclared properties."""

from __future__ import annotations

from collections.abc import Iterator

from ...prover import NOTHING, Mutation, generate
from ..coverage import is_false_schema, is_open_schema
from ..model import Context, Direction, Hit, Level, Scope
from ..structure import SchemaPair

ID = "input-additional-properties-closed"
LEVEL = Level.BREAKING
SUMMARY = "An open input object now rejects undeclared properties (additionalProperties: false or a schema)."
DIRECTION = Direction.INPUT
SCOPE = Scope.SCHEMA
WITNESS = True
EXTRA_NAME = "unexpected_property"


def check(pair: SchemaPair, context: Context) -> Iterator[Hit]:
    """Callers that sent extra properties (tolerated before, perhaps read by a newer server) are now
    rejected outright, or whenever the extra value does not match the new additionalProperties schema."""
    if "object" not in pair.shared_types or not pair.changed("additionalProperties"):
        return
    assert pair.old is not None and pair.new is not None
    old, new = pair.old.get("additionalProperties"), pair.new.get("additionalProperties")
    closed = is_false_schema(new)
    if is_false_schema(old) or not (closed or is_open_schema(old) and not is_open_schema(new)):
        return
    value = generate(old) if isinstance(old, dict) else "x"
    name = EXTRA_NAME
    while name in pair.new.get("properties", {}) or name in pair.old.get("properties", {}):
        name += "_"
    pool: tuple[object, ...] = (value, "x", 1, None, True, [], {})
    values = [v for v in pool if v is not NOTHING]
    what = "undeclared properties are rejected now" if closed else \
        "undeclared properties must match the new additionalProperties schema"
    yield Hit(f"additionalProperties closed: {what}" +
              ("" if is_open_schema(old) or not closed else " (they had to match a schema before)"),
              source=pair.new.source + "/additionalProperties",
              mutations=tuple(Mutation(pair.child_steps(name, None), "set", v) for v in values))
