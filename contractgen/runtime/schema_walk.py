"""Walking a schema without a validator: local $ref, combinators, the subschema for a key."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .jsonvalue import MISSING
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
    patterns = node.get("patternProperties")
    if isinstance(patterns, Mapping):
        for pat, sub in patterns.items():
            try:
                if re.search(pat, part):
                    out.append(sub)
            except re.error:
                pass
    if not out and isinstance(node.get("additionalProperties"), Mapping):
        out.append(node["additionalProperties"])
    if part.isdigit():
        prefix = node.get("prefixItems")
        if isinstance(prefix, (list, tuple)) and int(part) < len(prefix):
            out.append(prefix[int(part)])
        elif isinstance(node.get("items"), Mapping):
            out.append(node["items"])
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
        try:
            if any(re.search(p, key) for p in patterns):
                continue
        except re.error:
            pass
        extra.append(key)
    return extra
