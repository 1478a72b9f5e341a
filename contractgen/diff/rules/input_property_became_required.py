"""input-property-became-required: an optional input property is now required."""

from __future__ import annotations

from collections.abc import Iterator

from ...prover import Mutation
from ...runtime.pointer import escape_token
from ..model import Context, Direction, Hit, Level, Scope
from ..structure import SchemaPair

ID = "input-property-became-required"
LEVEL = Level.BREAKING
SUMMARY = "An optional input property became required."
DIRECTION = Direction.INPUT
SCOPE = Scope.SCHEMA
WITNESS = True


def check(pair: SchemaPair, context: Context) -> Iterator[Hit]:
    """Callers that left the property out were valid and are now rejected. Keep it optional with a
    default that preserves the old behaviour, or make the change in a new major version."""
    if "object" not in pair.shared_types or not pair.changed("required"):
        return
    assert pair.old is not None and pair.new is not None
    old_required = set(pair.old.get("required", ()))
    old_properties = pair.old.get("properties", {})
    for name in pair.new.get("required", ()):
        if name in old_required or name not in old_properties:
            continue
        source = pair.new.get("properties", {}).get(name)
        yield Hit(f"input property '{name}' became required: callers that omit it are rejected",
                  pointer=f"{pair.pointer}/properties/{escape_token(name)}",
                  source=source.source if source is not None else pair.new.source + "/required", side="new",
                  mutations=(Mutation(pair.child_steps(name, old_properties[name]), "delete"),))
