"""input-property-added-required: a new input property that callers must send."""

from __future__ import annotations

from collections.abc import Iterator

from ...prover import Mutation
from ...runtime.pointer import escape_token
from ..model import Context, Direction, Hit, Level, Scope
from ..structure import SchemaPair

ID = "input-property-added-required"
LEVEL = Level.BREAKING
SUMMARY = "A new required input property was added."
DIRECTION = Direction.INPUT
SCOPE = Scope.SCHEMA
WITNESS = True


def check(pair: SchemaPair, context: Context) -> Iterator[Hit]:
    """Existing callers do not know the new property and never send it, so every one of their calls
    is rejected. Add it as optional with a default, or ship it in a new major version with a
    migration note."""
    if "object" not in pair.shared_types or not pair.changed("required"):
        return
    assert pair.old is not None and pair.new is not None
    old_required = set(pair.old.get("required", ()))
    old_properties = pair.old.get("properties", {})
    for name in pair.new.get("required", ()):
        if name in old_required or name in old_properties:
            continue
        pointer = f"{pair.pointer}/properties/{escape_token(name)}"
        source = pair.new.get("properties", {}).get(name)
        yield Hit(f"new input property '{name}' is required: callers that do not send it are rejected",
                  pointer=pointer, source=source.source if source is not None else pair.new.source + "/required",
                  side="new", mutations=(Mutation(pair.child_steps(name, None), "delete"),))
