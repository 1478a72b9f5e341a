"""The two readings of a schema change: ``--strict`` (pure set semantics) and the default tool policy.

The default reading is the set reading plus documented adjustments, applied to the schemas before the
proof: callers never sent an input property the old schema did not declare (so declaring one is
safe), consumers ignore output properties they never read, and an output property the new schema no
longer declares is no longer sent. Tightenings of the default policy are rules (input-property-removed-open).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from weakref import WeakKeyDictionary

from ..runtime.patterns import matches_any
from .containment import Proof, Verdict, contains
from .model import Direction, Step
from .normalize import bundled
from .structure import SchemaPair

#: (direction, what the default policy reads differently, why): listed by --list-rules and docs/diff.md
ADJUSTMENTS: tuple[tuple[str, str, str], ...] = (
    ("input", ("an optional property added to an open input object is safe, unless the old object's "
               "patternProperties or additionalProperties schema already described that name"),
     "callers built against the old schema never sent a property it did not describe"),
    ("input", ("a property removed or renamed on an open input object is breaking "
               "(rule input-property-removed-open)"),
     "the old call still validates but the argument is silently ignored: the call does the wrong thing"),
    ("output", ("a property added to an output object is safe, unless the old object's patternProperties "
                "or additionalProperties schema already described that name"),
     ("consumers ignore fields they do not read; one that refuses unknown fields (an old closed schema "
      "applied strictly) is what --strict reads")),
    ("output", ("a property the new output no longer declares is read as no longer sent, unless the new "
                "object still requires it or its patternProperties or additionalProperties schema still "
                "describes that name"),
     "removing an optional output property only stops sending it; a removed required one still breaks"),
)

_FALSE: dict[str, Any] = {"not": {}}


def plain(node: Any) -> Any:
    """A normalized node as plain JSON for the prover (soft annotations dropped, recursion bundled)."""
    return bundled(node) if node is not None else {}


def adjusted(old: Any, new: Any, direction: Direction, strict: bool) -> tuple[Any, Any]:
    """(old, new) as the reading sees them: unchanged under --strict, adjusted by the default policy."""
    if strict:
        return old, new
    return _adjust(old, new, direction, 0)


def _adjust(old: Any, new: Any, direction: Direction, depth: int) -> tuple[Any, Any]:
    if not isinstance(old, dict) or not isinstance(new, dict) or depth > 20:
        return old, new
    old_props: Mapping[str, Any] = old.get("properties", {}) if isinstance(old.get("properties"), dict) else {}
    new_props: Mapping[str, Any] = new.get("properties", {}) if isinstance(new.get("properties"), dict) else {}
    old_out, new_out = dict(old), dict(new)
    if old_props or new_props:
        merged_old, merged_new = dict(old_props), dict(new_props)
        for name in set(old_props) & set(new_props):
            merged_old[name], merged_new[name] = _adjust(old_props[name], new_props[name], direction, depth + 1)
        for name in set(new_props) - set(old_props):
            if not declares_extra(old, name):
                merged_old[name] = new_props[name]  # never sent by old callers / ignored by old consumers
        if direction is Direction.OUTPUT:
            still_required = set(new["required"]) if isinstance(new.get("required"), list) else set()
            for name in set(old_props) - set(new_props) - still_required:  # a required one is still sent
                if not declares_extra(new, name):
                    merged_new[name] = _FALSE  # no longer sent (a map or pattern may still send it)
        old_out["properties"], new_out["properties"] = merged_old, merged_new
    if isinstance(old.get("items"), dict) and isinstance(new.get("items"), dict):
        old_out["items"], new_out["items"] = _adjust(old["items"], new["items"], direction, depth + 1)
    return old_out, new_out


def matches_pattern_property(node: Mapping[str, Any], name: str) -> bool:
    """Whether one of the object's ``patternProperties`` regexes matches ``name``, as the guard's
    validator judges (``runtime/patterns.py``); one it cannot judge counts as matching."""
    patterns = node.get("patternProperties")
    return isinstance(patterns, dict) and matches_any(patterns, name) is not False


def declares_extra(node: Mapping[str, Any], name: str) -> bool:
    """Whether the object schema describes values under the undeclared property ``name`` anyway: a
    matching ``patternProperties`` entry, or an ``additionalProperties`` schema that says more than
    "anything" (a map such as ``{additionalProperties: {type: string}}``). Callers of such an object did
    send that name, so a property later declared under it is not new to them."""
    if matches_pattern_property(node, name):
        return True
    extra = node.get("additionalProperties")
    return isinstance(extra, dict) and extra != {} and extra != _FALSE


_PROOFS: WeakKeyDictionary[SchemaPair, dict[bool, tuple[Proof, tuple[Step, ...]]]] = WeakKeyDictionary()


def prove(pair: SchemaPair, strict: bool) -> tuple[Proof, tuple[Step, ...]]:
    """The proof at ``pair`` (or its nearest position present on both sides) and that position's path.

    Input: does the new schema accept every value the old one did? Output: does the old schema admit
    every value the new one can return? A witness is a value for that position.
    """
    target: SchemaPair | None = pair
    while target is not None and not target.both:
        target = target.parent
    if target is None:
        return Proof(Verdict.UNKNOWN, reason="the position exists on one side only"), pair.steps
    per_reading = _PROOFS.setdefault(target, {})
    if strict not in per_reading:
        old, new = adjusted(plain(target.old), plain(target.new), target.direction, strict)
        proof = contains(new, old) if target.direction is Direction.INPUT else contains(old, new)
        per_reading[strict] = (proof, target.steps)
    return per_reading[strict]
