"""Walking a schema without a validator: local $ref, combinators, the subschema for a key."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .jsonvalue import MISSING
from .patterns import matches_any, pattern_matches
from .pointer import resolve_pointer


def is_marked(node: Any) -> bool:
    return isinstance(node, Mapping) and (node.get("writeOnly") is True or
                                          node.get("x-sensitive") is True)


def local_ref(root: Any, ref: Any) -> Any:
    if isinstance(ref, str) and ref.startswith("#"):
        target = resolve_pointer(root, ref[1:])
        return None if target is MISSING else target
    return None


def expand(node: Any, root: Any, depth: int = 0) -> list[Any]:
    """The node plus what it points at or combines (local $ref, allOf/anyOf/oneOf branches)."""
    if not isinstance(node, Mapping) or depth > 8:
        return [node]
    out = [node]
    target = local_ref(root, node.get("$ref"))
    if target is not None:
        out.extend(expand(target, root, depth + 1))
    for key in ("allOf", "anyOf", "oneOf"):
        for branch in node.get(key, ()) or ():
            out.extend(expand(branch, root, depth + 1))
    for key in ("then", "else"):
        if isinstance(node.get(key), Mapping):
            out.extend(expand(node[key], root, depth + 1))
    return out


def child_nodes(node: Any, part: str) -> list[Any]:
    if not isinstance(node, Mapping):
        return []
    out = []
    props = node.get("properties")
    if isinstance(props, Mapping) and part in props:
        out.append(props[part])
    out.extend(pattern_children(node, part))
    if not out and isinstance(node.get("additionalProperties"), Mapping):
        out.append(node["additionalProperties"])
    if part.isdigit():
        prefix = node.get("prefixItems")
        if isinstance(prefix, (list, tuple)) and int(part) < len(prefix):
            out.append(prefix[int(part)])
        elif isinstance(node.get("items"), Mapping):
            out.append(node["items"])
    return out


def pattern_children(node: Mapping[str, Any], part: str, *, unknown_matches: bool = False) -> list[Any]:
    """The ``patternProperties`` subschemas whose pattern matches ``part``, as the validator judges
    (``patterns.py``); where it cannot tell, the pattern counts as matching when ``unknown_matches``
    (the safe side for redaction)."""
    patterns = node.get("patternProperties")
    out = []
    if isinstance(patterns, Mapping):
        for pat, sub in patterns.items():
            matched = pattern_matches(pat, part)
            if matched or matched is None and unknown_matches:
                out.append(sub)
    return out


def known_properties(node: Any, root: Any) -> list[str]:
    names: list[str] = []
    for n in expand(node, root):
        if isinstance(n, Mapping) and isinstance(n.get("properties"), Mapping):
            names.extend(k for k in n["properties"] if k not in names)
    return names


def property_node(node: Any, name: str, root: Any) -> Any:
    for n in expand(node, root):
        if isinstance(n, Mapping) and isinstance(n.get("properties"), Mapping) and name in n["properties"]:
            return n["properties"][name]
    return None


def extra_keys(instance: Mapping[str, Any], schema: Any, keyword: str) -> list[str]:
    if not isinstance(schema, Mapping):
        return []
    props = schema.get("properties") or {}
    patterns = list((schema.get("patternProperties") or {}).keys())
    extra = []
    for key in instance:
        if key in props:
            continue
        if patterns and matches_any(patterns, key):
            continue
        extra.append(key)
    return extra


_SCALAR_TYPES = frozenset({"string", "integer", "number", "boolean", "null"})


_OPEN_KEYWORDS = frozenset({"$ref", "$dynamicRef", "$recursiveRef", "allOf", "anyOf", "oneOf", "not",
                            "if", "then", "else", "dependentSchemas", "unevaluatedProperties",
                            "unevaluatedItems", "contains", "propertyNames"})


#: Keywords whose verdict on an integer depends on its value, and applicators that could turn a
#: misread value's verdict around: where jsonschema-rs could accept an integer it cannot read.
_JUDGES_NUMBERS = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
                             "const", "enum", "uniqueItems", "anyOf", "oneOf", "allOf", "not", "if",
                             "then", "else", "contains", "dependentSchemas", "unevaluatedItems",
                             "unevaluatedProperties", "$dynamicRef", "$recursiveRef"})


def number_judging_names(schema: Any) -> tuple[str, ...] | None:
    """Where a valid-looking value must be searched for integers too long to read: ``()`` nowhere,
    else the top-level property names whose schemas judge numbers, or None for the whole value."""
    if not _judges_numbers(schema, schema):
        return ()
    if not isinstance(schema, Mapping) or "$ref" in schema or any(k in _JUDGES_NUMBERS for k in schema):
        return None
    for key in ("additionalProperties", "patternProperties", "items", "prefixItems"):
        if key in schema and _judges_numbers(schema[key], schema):
            return None
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return None
    return tuple(name for name, sub in properties.items() if _judges_numbers(sub, schema))


def holds_scalars_only(node: Any, root: Any) -> bool:
    """Whether ``node`` accepts no array and no object: its own ``type``, or that of a node it
    reaches through local ``$ref`` pointers (whose keywords all apply too), names scalar types only.
    Conservative: anything else (no ``type``, a combinator, an anchor or remote reference) is no."""
    seen: set[int] = set()
    while isinstance(node, Mapping) and id(node) not in seen:
        seen.add(id(node))
        kinds = node.get("type")
        kinds = [kinds] if isinstance(kinds, str) else kinds
        if isinstance(kinds, list) and kinds and all(isinstance(k, str) and k in _SCALAR_TYPES for k in kinds):
            return True
        ref = node.get("$ref")
        if not isinstance(ref, str) or not (ref == "#" or ref.startswith("#/")):
            return False
        node = resolve_pointer(root, ref[1:])
    return False


def _judges_numbers(node: Any, root: Any) -> bool:
    """Whether ``node`` (following references inside ``root``) holds a keyword of _JUDGES_NUMBERS.
    Conservative: a reference it cannot follow counts as yes."""
    todo, seen = [node], set()
    while todo:
        current = todo.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, Mapping):
            if any(k in _JUDGES_NUMBERS and (k not in ("enum", "const") or _holds_number(current[k]))
                   for k in current):
                return True
            ref = current.get("$ref")
            if ref is not None:
                if not (isinstance(ref, str) and ref.startswith("#")):
                    return True
                target = resolve_pointer(root, ref[1:])
                if target is MISSING:
                    return True
                todo.append(target)
            todo.extend(v for v in current.values() if isinstance(v, (Mapping, list)))
        elif isinstance(current, list):
            todo.extend(v for v in current if isinstance(v, (Mapping, list)))
    return False


def _holds_number(value: Any) -> bool:
    """Whether an ``enum`` or ``const`` value could equal an integer (a number, or any container)."""
    members = value if isinstance(value, list) else [value]
    return any(isinstance(m, (int, float, Mapping, list)) and not isinstance(m, bool) for m in members)
