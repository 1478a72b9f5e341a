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

from ..prover import Proof, Step, Verdict, contains
from ..runtime.patterns import matches_any
from .model import Direction
from .normalize import bundled
from .structure import SchemaPair

#: (direction, what the default policy reads differently, why): listed by --list-rules and docs/diff.md
ADJUSTMENTS: tuple[tuple[str, str, str], ...] = (
    ("input", ("an optional property added to an open input object is safe, unless the old object already "
               "mentioned that name (a pattern, a map, a requirement or a declaration in a oneOf/anyOf/allOf/"
               "if/then/else branch or a dependency)"),
     "callers built against the old schema never sent a property it did not describe"),
    ("input", ("a property removed or renamed on an open input object is breaking "
               "(rule input-property-removed-open)"),
     "the old call still validates but the argument is silently ignored: the call does the wrong thing"),
    ("output", ("a property added to an output object is safe, unless the old object already mentioned that "
                "name (a pattern, a map, a requirement or a declaration in a branch, a condition or a dependency); "
                "an output's if is read as written"),
     ("consumers ignore fields they do not read; one that refuses unknown fields (an old closed schema "
      "applied strictly) is what --strict reads; a condition decides which guarantees a result keeps, "
      "and ignoring a field does not restore them")),
    ("output", ("a property the new output no longer declares is read as no longer sent, unless the new "
                "object still mentions that name anywhere: requires it, declares it in a oneOf/anyOf/allOf/"
                "if/then/else branch or a dependency, or describes it with a pattern or a map"),
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


def _adjust(old: Any, new: Any, direction: Direction, depth: int,
            scope: tuple[Any, Any] | None = None) -> tuple[Any, Any]:
    """The adjustments at one position, then wherever objects and arrays sit below it. ``scope`` is the
    object a subschema applies in place to (a branch, a condition's then/else): whether a name is new
    or gone is judged on the whole object, every branch included."""
    if not isinstance(old, dict) or not isinstance(new, dict) or depth > 20:
        return old, new
    old_scope, new_scope = scope if scope is not None else (old, new)
    old_props: Mapping[str, Any] = old.get("properties", {}) if isinstance(old.get("properties"), dict) else {}
    new_props: Mapping[str, Any] = new.get("properties", {}) if isinstance(new.get("properties"), dict) else {}
    old_out, new_out = dict(old), dict(new)
    if old_props or new_props:
        merged_old, merged_new = dict(old_props), dict(new_props)
        for name in set(old_props) & set(new_props):
            merged_old[name], merged_new[name] = _adjust(old_props[name], new_props[name], direction, depth + 1)
        for name in set(new_props) - set(old_props):
            if not describes(old_scope, name):
                merged_old[name] = new_props[name]  # never sent by old callers / ignored by old consumers
        if direction is Direction.OUTPUT:
            for name in set(old_props) - set(new_props):
                if not describes(new_scope, name):  # required, a branch's property, a map: still sent
                    merged_new[name] = _FALSE  # no longer sent
        old_out["properties"], new_out["properties"] = merged_old, merged_new
    for key in _BELOW:  # a member's or an item's schema: a position of its own
        if isinstance(old.get(key), dict) and isinstance(new.get(key), dict):
            old_out[key], new_out[key] = _adjust(old[key], new[key], direction, depth + 1)
    for key in ("patternProperties", "prefixItems"):
        old_at, new_at = old.get(key), new.get(key)
        if isinstance(old_at, dict) and isinstance(new_at, dict):
            pairs = {k: _adjust(old_at[k], new_at[k], direction, depth + 1) for k in set(old_at) & set(new_at)}
            old_out[key] = {**old_at, **{k: p[0] for k, p in pairs.items()}}
            new_out[key] = {**new_at, **{k: p[1] for k, p in pairs.items()}}
        elif isinstance(old_at, list) and isinstance(new_at, list) and len(old_at) == len(new_at):
            pairs_at = [_adjust(a, b, direction, depth + 1) for a, b in zip(old_at, new_at)]
            old_out[key], new_out[key] = [p[0] for p in pairs_at], [p[1] for p in pairs_at]
    for key in _IN_PLACE_LISTS:  # branches in the same order on both sides: the same object, in place
        old_at, new_at = old.get(key), new.get(key)
        if isinstance(old_at, list) and isinstance(new_at, list) and len(old_at) == len(new_at):
            pairs_at = [_adjust(a, b, direction, depth + 1, (old_scope, new_scope)) for a, b in zip(old_at, new_at)]
            old_out[key], new_out[key] = [p[0] for p in pairs_at], [p[1] for p in pairs_at]
    for key in _CONDITIONAL[direction]:
        if isinstance(old.get(key), dict) and isinstance(new.get(key), dict):
            old_out[key], new_out[key] = _adjust(old[key], new[key], direction, depth + 1, (old_scope, new_scope))
    return old_out, new_out


#: subschemas for a member or an item, each a position of its own
_BELOW = ("items", "additionalProperties", "contains")
#: a condition's parts adjusted in place. An input's ``if`` too: old callers never sent a name the old
#: object did not mention, so the condition picks the same branch for every old call. Never an
#: output's ``if``: it decides which guarantees a result keeps, and a consumer that ignores a new
#: field still relies on the branch the old condition chose (case output-property-added--if).
_CONDITIONAL = {Direction.INPUT: ("if", "then", "else"), Direction.OUTPUT: ("then", "else")}


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


#: keywords whose subschemas apply to the object itself, so what they say of a member counts
_IN_PLACE_LISTS = ("allOf", "anyOf", "oneOf")
_IN_PLACE_VALUES = ("not", "if", "then", "else")


def describes(node: Any, name: str, depth: int = 0) -> bool:
    """Whether the object schema ``node`` says anything at all about a member called ``name``: declares
    or requires it, names it in ``dependentRequired``/``dependentSchemas``, describes it through a
    pattern or a map (``declares_extra``), or does any of these in a subschema applied in place
    (``allOf``/``anyOf``/``oneOf``/``not``/``if``/``then``/``else``, a dependent schema). The default
    reading's adjustments hold only for names the object never mentions; a reference left in place
    (recursion) or a tree too deep to read counts as mentioning it, so the reading stays strict there."""
    if not isinstance(node, dict):
        return False
    if depth > 20 or "$ref" in node or "$dynamicRef" in node:
        return True
    properties, required = node.get("properties"), node.get("required")
    if isinstance(properties, dict) and name in properties or isinstance(required, list) and name in required:
        return True
    dependent = node.get("dependentRequired")
    if isinstance(dependent, dict) and (name in dependent or any(
            isinstance(names, list) and name in names for names in dependent.values())):
        return True
    schemas = node.get("dependentSchemas")
    if isinstance(schemas, dict) and (name in schemas or any(describes(s, name, depth + 1) for s in schemas.values())):
        return True
    extra = node.get("unevaluatedProperties")
    if declares_extra(node, name) or isinstance(extra, dict) and extra != {} and extra != _FALSE:
        return True
    branches = [b for k in _IN_PLACE_LISTS if isinstance(node.get(k), list) for b in node[k]]
    branches += [node[k] for k in _IN_PLACE_VALUES if k in node]
    return any(describes(branch, name, depth + 1) for branch in branches)


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
