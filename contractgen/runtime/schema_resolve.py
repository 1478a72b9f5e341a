"""Every schema that applies at one instance position, for redaction: sensitivity is a property of the
resolved schema, so this follows each way a subschema can reach a value (local ``$ref`` by pointer,
``$anchor`` or ``$id``, ``$dynamicRef``, combinators, conditionals, ``dependentSchemas``) without a depth
limit, and errs on the side of applying too much: redacting more is safe, less is a leak.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import unquote

from .jsonvalue import MISSING
from .pointer import resolve_pointer
from .schema_walk import is_marked, pattern_children

_BRANCH_LISTS = ("allOf", "anyOf", "oneOf")
_BRANCHES = ("if", "then", "else", "not")
_OBJECT_CHILDREN = ("additionalProperties", "unevaluatedProperties")
_ARRAY_CHILDREN = ("items", "additionalItems", "unevaluatedItems", "contains")
_INDEX_LIMIT = 64  # roots whose indexes are kept; a contract keeps one or two


class _Index:
    """Where ``$anchor``, ``$dynamicAnchor`` and ``$id`` names point in one root schema."""

    def __init__(self, root: Any) -> None:
        self.root = root
        self.anchors: dict[str, list[Any]] = {}
        self.ids: dict[str, Any] = {}
        todo = [root]
        seen: set[int] = set()
        while todo:
            node = todo.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            if isinstance(node, Mapping):
                for key in ("$anchor", "$dynamicAnchor"):
                    if isinstance(node.get(key), str):
                        self.anchors.setdefault(node[key], []).append(node)
                if isinstance(node.get("$id"), str):
                    self.ids[node["$id"].rstrip("#")] = node
                todo.extend(v for k, v in node.items() if k not in ("enum", "const", "default", "examples"))
            elif isinstance(node, (list, tuple)):
                todo.extend(node)

    def targets(self, ref: Any) -> list[Any]:
        """The schemas ``ref`` may name (several for a dynamic anchor); [] when unknown."""
        if not isinstance(ref, str):
            return []
        base, _, fragment = ref.partition("#")
        document = self.root if not base else self._by_id(base)
        if document is None:
            return []
        if not fragment:
            return [document]
        if fragment.startswith("/"):
            target = resolve_pointer(document, unquote(fragment))
            return [] if target is MISSING else [target]
        return list(self.anchors.get(fragment, ()))

    def _by_id(self, base: str) -> Any:
        if base in self.ids:
            return self.ids[base]
        # a relative $ref against an absolute $id: match on the last path segments
        for known, node in self.ids.items():
            if known.endswith("/" + base) or base.endswith("/" + known):
                return node
        return None


_INDEXES: dict[int, _Index] = {}


def _index(root: Any) -> _Index:
    found = _INDEXES.get(id(root))
    if found is None or found.root is not root:
        if len(_INDEXES) >= _INDEX_LIMIT:
            _INDEXES.clear()
        found = _INDEXES[id(root)] = _Index(root)
    return found


def applicable(nodes: Iterable[Any], root: Any) -> list[Any]:
    """``nodes`` plus every schema they bring to the same instance position, each once."""
    index = _index(root)
    out: list[Any] = []
    seen: set[int] = set()
    todo = list(nodes)
    while todo:
        node = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        out.append(node)
        if not isinstance(node, Mapping):
            continue
        for key in ("$ref", "$dynamicRef", "$recursiveRef"):
            todo.extend(index.targets(node.get(key)))
        if "$dynamicRef" in node and isinstance(node["$dynamicRef"], str):
            todo.extend(index.anchors.get(node["$dynamicRef"].rpartition("#")[2], ()))
        for key in _BRANCH_LISTS:
            if isinstance(node.get(key), (list, tuple)):
                todo.extend(node[key])
        todo.extend(node[key] for key in _BRANCHES if key in node)
        if isinstance(node.get("dependentSchemas"), Mapping):
            todo.extend(node["dependentSchemas"].values())
    return out


def children(node: Any, part: str) -> list[Any]:
    """The subschemas of ``node`` that may apply to the member ``part`` (a key or an array index)."""
    if not isinstance(node, Mapping):
        return []
    out: list[Any] = []
    props = node.get("properties")
    if isinstance(props, Mapping) and part in props:
        out.append(props[part])
    out.extend(pattern_children(node, part, unknown_matches=True))
    out.extend(node[key] for key in _OBJECT_CHILDREN if key in node)
    if part.isdigit():
        prefix = node.get("prefixItems")
        if isinstance(prefix, (list, tuple)) and int(part) < len(prefix):
            out.append(prefix[int(part)])
        out.extend(node[key] for key in _ARRAY_CHILDREN if key in node)
    return out


def nodes_at(root: Any, parts: Iterable[str]) -> list[Any]:
    """Every schema that may apply to the instance member at ``parts`` (resolved at each step)."""
    nodes = applicable([root], root)
    for part in parts:
        nodes = applicable([c for n in nodes for c in children(n, str(part))], root)
        if not nodes:
            break
    return nodes


def marked_on_the_way(root: Any, parts: Iterable[str]) -> bool:
    """Whether the member at ``parts`` or any value containing it is marked sensitive."""
    nodes = applicable([root], root)
    if any(is_marked(n) for n in nodes):
        return True
    for part in parts:
        nodes = applicable([c for n in nodes for c in children(n, str(part))], root)
        if any(is_marked(n) for n in nodes):
            return True
        if not nodes:
            return False
    return False
