"""Normalized schema trees: local ``$ref``s inlined, annotations dropped, types as sorted lists.

Each node remembers where it lives in the manifest (``source``), so a finding reported at a logical
pointer can still be located at the right file and line after a schema moved into ``$defs``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..manifest.inert_keywords import KIND_KEYWORDS
from ..manifest.schema_walk import local_ref_pointer
from ..runtime.jsonvalue import MISSING
from ..runtime.pointer import escape_token, resolve_pointer

#: Keywords that never change which values validate; edits to them are not changes.
ANNOTATIONS = frozenset({
    "description", "title", "$comment", "$schema", "$id", "$anchor", "$dynamicAnchor", "$defs",
    "definitions", "readOnly", "writeOnly", "deprecated", "$vocabulary",
})
#: Kept on nodes (witnesses reuse them) but ignored when comparing.
SOFT_ANNOTATIONS = frozenset({"examples"})

_SCHEMA_MAPS = ("properties", "patternProperties", "dependentSchemas", "$defs")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SCHEMA_VALUES = ("items", "additionalProperties", "not", "if", "then", "else", "contains",
                  "propertyNames", "unevaluatedProperties", "unevaluatedItems", "additionalItems")
JSON_TYPES = ("array", "boolean", "integer", "null", "number", "object", "string")
#: Keywords that let null through whenever ``type`` does: each judges one other kind of value (or
#: says nothing). ``enum`` and ``const`` are rewritten by the nullable fold; ``not``, a combinator, a
#: condition or a reference may refuse null whatever the type says.
_PASSING_NULL = frozenset({"type", "enum", "const", "format", "default", *ANNOTATIONS, *SOFT_ANNOTATIONS,
                           *(k for keywords in KIND_KEYWORDS.values() for k in keywords)})


class Node(dict):  # type: ignore[type-arg]
    """A normalized schema: a plain dict (so it serializes as JSON) plus its manifest pointer."""

    source: str = ""
    #: on a recursive reference: the node it refers to (set once that node is built); the reference
    #: itself is spelt by where that node was first inlined, so renaming a ``$defs`` entry is no change
    cycle_target: Node | None = None

    def __hash__(self) -> int:  # type: ignore[override]  # identity: nodes are shared, never mutated after building
        return id(self)


def pointer_get(document: Any, pointer: str) -> Any:
    node = resolve_pointer(document, pointer)
    if node is MISSING:
        raise KeyError(pointer)
    return node


class Normalizer:
    """Builds normalized trees for one root schema (a manifest's ``input`` or ``output``)."""

    def __init__(self, root: Mapping[str, Any], root_source: str) -> None:
        self.root = root
        self.root_source = root_source
        self._refs: dict[str, Node] = {}
        self._active: set[str] = set()
        self._inlined_at: dict[str, str] = {}  # reference -> logical pointer where its target was first inlined
        self._cycles: dict[str, list[Node]] = {}  # reference -> recursive references waiting for its node

    def normalize(self) -> Node:
        return self.node(self.root, self.root_source)

    def node(self, schema: Any, source: str, logical: str = "") -> Node:
        if schema is True or schema is None:
            return _with_source(Node(), source)
        if schema is False:
            return _with_source(Node({"not": Node()}), source)
        if not isinstance(schema, Mapping):
            return _with_source(Node(), source)
        if "$ref" in schema and isinstance(schema["$ref"], str):
            return self._reference(schema, source, logical)
        out = Node()
        for key, value in schema.items():
            if key in ANNOTATIONS:
                continue
            child, at = f"{source}/{escape_token(key)}", f"{logical}/{escape_token(key)}"
            if key in _SCHEMA_MAPS and isinstance(value, Mapping):
                out[key] = {k: self.node(v, f"{child}/{escape_token(k)}", f"{at}/{escape_token(k)}")
                            for k, v in value.items()}
            elif key in _SCHEMA_LISTS and isinstance(value, (list, tuple)):
                out[key] = [self.node(v, f"{child}/{i}", f"{at}/{i}") for i, v in enumerate(value)]
            elif key in _SCHEMA_VALUES and isinstance(value, (Mapping, bool)):
                out[key] = self.node(value, child, at)
            elif key == "type":
                out[key] = sorted({value} if isinstance(value, str) else set(value))
            elif key == "required" and isinstance(value, (list, tuple)):
                out[key] = sorted(set(value))
            else:
                out[key] = _plain(value)
        _with_source(out, source)
        return _fold_nullable(_flatten_all_of(out))

    def _reference(self, schema: Mapping[str, Any], source: str, logical: str) -> Node:
        # followed as the guard follows it (schema_walk.local_ref_pointer): a percent-encoded pointer
        # or an $anchor was compared by its text, so a change behind it was never seen
        target_pointer = local_ref_pointer(self.root, schema["$ref"])
        ref = schema["$ref"] if target_pointer is None else "#" + target_pointer
        siblings = {k: v for k, v in schema.items() if k != "$ref" and k not in ANNOTATIONS}
        if target_pointer is None:  # external: compare by the reference
            return _with_source(Node({"$ref": ref, **{k: _plain(v) for k, v in siblings.items()}}), source)
        if ref in self._active:
            # recursive: spelt by where its target was first inlined (the same tree under any $defs
            # name), and bound to that target's node so that the prover can read it (bundled)
            cycle = Node({"$ref": "#" + self._inlined_at[ref], **{k: _plain(v) for k, v in siblings.items()}})
            self._cycles.setdefault(ref, []).append(cycle)
            return _with_source(cycle, source)
        if ref not in self._refs:
            try:
                target = pointer_get(self.root, target_pointer)
            except (KeyError, IndexError, ValueError):
                return _with_source(Node({"$ref": ref}), source)
            self._active.add(ref)
            self._inlined_at[ref] = logical
            try:
                self._refs[ref] = self.node(target, self.root_source + target_pointer, logical)
            finally:
                self._active.discard(ref)
            for cycle in self._cycles.pop(ref, []):
                cycle.cycle_target = self._refs[ref]
        resolved = self._refs[ref]
        if not siblings:
            return resolved
        extra = self.node(siblings, source, logical)
        unevaluated = any(k.startswith("unevaluated") for k in (*extra, *resolved))
        if not unevaluated and not set(extra) & set(resolved):
            return _with_source(Node({**resolved, **extra}), resolved.source)
        # $ref applies in place: as an allOf entry beside the siblings, whose unevaluated* still see it
        combined = Node(extra)
        combined["allOf"] = [*extra.get("allOf", []), resolved]
        return _with_source(combined, source)


def _with_source(node: Node, source: str) -> Node:
    node.source = source
    return node


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


#: keywords that read their siblings: split over several allOf parts they mean something else
_SIBLING_GROUPS = (frozenset({"properties", "patternProperties", "additionalProperties"}),
                   frozenset({"prefixItems", "items"}), frozenset({"contains", "minContains", "maxContains"}),
                   frozenset({"if", "then", "else"}))


def _flatten_all_of(node: Node) -> Node:
    """``allOf`` parts merged into their parent when that is the same schema: keywords spread over the
    parts (``{type: object, allOf: [{properties: ...}, {required: [...]}]}``) are one schema, so a
    history that split or joined them compares like for like instead of reporting every property
    removed. Shared ``properties`` merge when no part constrains other names; ``required`` is the
    union; any other keyword held twice must be equal. Anything ``unevaluated*`` could see, or a
    sibling group split across parts, stays an ``allOf``."""
    parts = node.get("allOf")
    if not isinstance(parts, list) or not parts or not all(isinstance(p, dict) for p in parts):
        return node
    holders: list[dict[str, Any]] = [{k: v for k, v in node.items() if k != "allOf"}, *parts]
    if any(k.startswith("unevaluated") or k in ("$ref", "$dynamicRef") for h in holders for k in h):
        return node
    for group in _SIBLING_GROUPS:
        holding = [h for h in holders if group.intersection(h)]
        if len(holding) > 1 and not (group is _SIBLING_GROUPS[0]
                                     and all(group.intersection(h) == {"properties"} for h in holding)):
            return node
    merged = Node()
    for holder in holders:
        for key, value in holder.items():
            if key not in merged:
                merged[key] = value
            elif key == "required":
                merged[key] = sorted(set(merged[key]) | set(value))
            elif key == "properties" and isinstance(value, Mapping) and isinstance(merged[key], Mapping):
                merged[key] = _joined_properties(merged[key], value)
            elif comparable(merged[key]) != comparable(value):
                return node
    return _with_source(merged, node.source)


def _joined_properties(first: Mapping[str, Any], second: Mapping[str, Any]) -> dict[str, Any]:
    """Two ``properties`` maps applying to one object: a name in both must satisfy both schemas."""
    joined = dict(first)
    for name, sub in second.items():
        if name in joined and comparable(joined[name]) != comparable(sub):
            joined[name] = _with_source(Node({"allOf": [joined[name], sub]}), getattr(sub, "source", ""))
        else:
            joined[name] = sub
    return joined


def _fold_nullable(node: Node) -> Node:
    """``anyOf: [X, {type: null}]`` is ``X`` with null added: one spelling for optional values, when
    nothing in ``X`` but its type and listed values judges null (a ``not`` or a combinator inside it
    may refuse null whatever the type says). So is ``oneOf`` of the two, but only when ``X``'s type
    excludes null: where ``X`` accepts null too, null matches both branches and ``oneOf`` refuses it
    (folding it would call anyOf -> oneOf no change)."""
    for key in ("anyOf", "oneOf"):
        branches = node.get(key)
        if not isinstance(branches, list) or len(branches) != 2:
            continue
        nulls = [b for b in branches if comparable(b) == {"type": ["null"]}]
        others = [b for b in branches if comparable(b) != {"type": ["null"]}]
        if len(nulls) != 1 or len(others) != 1 or "type" not in others[0]:
            continue
        other = others[0]
        if key == "oneOf" and "null" in (other["type"] if isinstance(other["type"], list) else [other["type"]]):
            continue
        if not _PASSING_NULL.issuperset(other):
            continue  # X refuses null by more than its type: adding null to the type would not let it in
        rest = {k: v for k, v in node.items() if k != key}
        if set(rest) & set(other):
            continue
        folded = Node({**other, **rest})
        folded["type"] = sorted(set(other["type"]) | {"null"})
        if "enum" in folded:
            folded["enum"] = [*folded["enum"], None] if None not in folded["enum"] else folded["enum"]
        if "const" in folded:
            folded["enum"] = [folded.pop("const"), None]
        return _with_source(folded, other.source)
    return node


def comparable(value: Any) -> Any:
    """The value with soft annotations removed, for equality tests."""
    if isinstance(value, Mapping):
        return {k: comparable(v) for k, v in value.items() if k not in SOFT_ANNOTATIONS}
    if isinstance(value, list):
        return [comparable(v) for v in value]
    return value


_CANON_CACHE: dict[int, tuple[Any, str]] = {}


def canonical(value: Any) -> str:
    """A string equal for two schemas exactly when they are the same after normalization."""
    if isinstance(value, Node):
        cached = _CANON_CACHE.get(id(value))
        if cached is not None and cached[0] is value:
            return cached[1]
        text = _dumps(comparable(value))
        _CANON_CACHE[id(value)] = (value, text)
        return text
    return _dumps(comparable(value))


def bundled(node: Any) -> Any:
    """The normalized node as plain JSON a validator can read whole: each recursive reference under it
    (spelt by where its target was first inlined) points into a ``$defs`` entry holding that target."""
    targets = _cycle_targets(node)
    plain = json.loads(canonical(node))
    if not targets or not isinstance(plain, dict):
        return plain
    # plain names: jsonschema-rs does not read an escaped token (~1) in a $defs name
    names = {ref: f"#/$defs/recursion{i}" for i, ref in enumerate(sorted(targets))}
    bundle = {names[ref][len("#/$defs/"):]: _rerouted(json.loads(canonical(target)), names)
              for ref, target in targets.items()}
    return {**_rerouted(plain, names), "$defs": bundle}


def _cycle_targets(node: Any) -> dict[str, Node]:
    """Recursive reference spelling -> the node it refers to, for every one reachable from ``node``."""
    found: dict[str, Node] = {}
    pending, seen = [node], set()
    while pending:
        current = pending.pop()
        if id(current) in seen or not isinstance(current, (Mapping, list)):
            continue
        seen.add(id(current))
        if isinstance(current, Node) and current.cycle_target is not None:
            found.setdefault(current["$ref"], current.cycle_target)
            pending.append(current.cycle_target)
        pending.extend(current.values() if isinstance(current, Mapping) else current)
    return found


def _rerouted(value: Any, names: Mapping[str, str]) -> Any:
    """``value`` with each ``$ref`` spelt as a key of ``names`` pointing at its ``$defs`` entry instead."""
    if isinstance(value, dict):
        return {k: names.get(v, v) if k == "$ref" and isinstance(v, str) else _rerouted(v, names)
                for k, v in value.items()}
    if isinstance(value, list):
        return [_rerouted(v, names) for v in value]
    return value


def _dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def value_key(value: Any) -> str:
    """A key for a JSON value in sets (``1`` and ``True`` stay different)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def types_of(node: Mapping[str, Any] | None) -> frozenset[str]:
    """The JSON types a schema allows by its ``type`` keyword (every type when absent)."""
    if node is None:
        return frozenset()
    declared = node.get("type")
    if declared is None:
        return frozenset(JSON_TYPES)
    return frozenset(declared)


def covers_type(types: frozenset[str], wanted: str) -> bool:
    return wanted in types or (wanted == "integer" and "number" in types)
