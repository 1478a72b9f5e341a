"""input-property-removed-open: an input property was removed from an open object."""

from __future__ import annotations

from collections.abc import Iterator

from ..model import Context, Direction, Hit, Level, Scope
from ..ruletools import property_name
from ..structure import SchemaPair
from ._closed import rejects_extra

ID = "input-property-removed-open"
LEVEL = Level.BREAKING
STRICT_LEVEL = Level.DANGEROUS
SUMMARY = "An input property was removed or renamed on an open object: old calls validate but the argument is ignored."
DIRECTION = Direction.INPUT
SCOPE = Scope.SCHEMA


def check(pair: SchemaPair, context: Context) -> Iterator[Hit]:
    """A policy tightening of the default reading. The object accepts unknown properties, so calls that
    send the removed (or renamed) property still validate: the set of accepted values did not shrink,
    but the meaning of the call changed. A caller, or a model that learned the old schema, still sends
    it; the call "succeeds" and silently does the wrong thing. Bump the major version with a
    migrations entry listing it under renamed or removed, so the guard answers old-shaped calls with
    VERSION_MISMATCH. Under --strict (pure set semantics) it is reported as what it is: not a narrowing."""
    if pair.old is None or pair.new is not None or pair.parent is None or pair.parent.new is None:
        return
    name = property_name(pair)
    if rejects_extra(pair.parent.new, name):
        return
    if pair.new_required:
        # still required, so still sent and read: only its declaration (what it may hold) went away
        yield Hit(f"input property '{name}' lost its declaration but is still required: calls still send it, "
                  "and it now accepts any value the object allows for undeclared names (a relaxation)",
                  source=pair.old.source, side="old", level=Level.SAFE)
        return
    if context.strict:
        message = (f"input property '{name}' is no longer declared on this open object: calls that send it are "
                   "still accepted (not a narrowing), but the new version no longer describes it")
    else:
        message = (f"input property '{name}' is no longer declared on this open object: calls that send it still "
                   "validate, but the new version no longer describes it and may ignore it (if it was removed "
                   "or renamed, list it in a migrations entry and bump the major version)")
    yield Hit(message, source=pair.old.source, side="old",
              witness_hint="not about values: the old call is still accepted, its meaning changed")
