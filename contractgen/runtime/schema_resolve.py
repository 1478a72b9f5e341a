"""Every schema that applies at one instance position, for redaction: sensitivity is a property of the
resolved schema, so this follows each way a subschema can reach a value (local ``$ref`` by pointer,
``$anchor`` or ``$id``, ``$dynamicRef``, combinators, conditionals, ``dependentSchemas``) without a depth
limit, and errs on the side of applying too much: redacting more is safe, less is a leak.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any
from urllib.parse import unquote, urljoin

from .jsonvalue import CLEAN_BUDGET, MISSING, clean_json
from .pointer import resolve_pointer
from .schema_walk import is_marked, pattern_children

_BRANCH_LISTS = ("allOf", "anyOf", "oneOf")
_BRANCHES = ("if", "then", "else", "not")
_OBJECT_CHILDREN = ("additionalProperties", "unevaluatedProperties")
_ARRAY_CHILDREN = ("items", "additionalItems", "unevaluatedItems", "contains")
_INDEX_LIMIT = 64  # roots whose indexes are kept; a contract keeps one or two


class _Index:
    """Where ``$anchor``, ``$dynamicAnchor`` and ``$id`` names point in one root schema and the
    documents given for its remote references, and which resource (``$id`` scope) holds each node:
    a ``#/...`` reference inside an embedded resource points into that resource, not the root."""

    def __init__(self, root: Any, resources: Mapping[str, Any] | None) -> None:
        self.root = root
        self.resources = resources
        self.anchors: dict[str, list[Any]] = {}
        self.ids: dict[str, Any] = {}
        self.scope: dict[int, tuple[Any, str]] = {}  # id(node) -> (its resource, that resource's URI)
        self.below: dict[int, bool] = {}  # id(node) -> whether a marked schema applies inside its values
        self.marked_names: frozenset[str] | None = None  # names of members marked where declared
        self.properties: list[Mapping[str, Any]] = []  # every ``properties`` of the root and its resources
        self.pattern_properties: list[Mapping[str, Any]] = []  # and every ``patternProperties``
        self.marked_patterns: tuple[str, ...] | None = None  # patterns of members marked where declared
        #: (ids of the schemas at a position, a member's key) -> the schemas at that member
        self.members: dict[tuple[tuple[int, ...], str], list[Any]] = {}
        todo: list[tuple[Any, Any, str]] = [(root, root, "")]
        for uri, document in (resources or {}).items():
            self.ids[str(uri).rstrip("#")] = document
            todo.append((document, document, str(uri)))
        seen: set[int] = set()
        while todo:
            node, resource, base = todo.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            if isinstance(node, Mapping):
                own_id = node.get("$id")
                if isinstance(own_id, str):
                    absolute = urljoin(base, own_id) if base else own_id
                    for name in {own_id.rstrip("#"), absolute.rstrip("#")}:
                        self.ids.setdefault(name, node)
                    resource, base = node, absolute
                for key in ("$anchor", "$dynamicAnchor"):
                    if isinstance(node.get(key), str):
                        self.anchors.setdefault(node[key], []).append(node)
                self.scope[id(node)] = (resource, base)
                if isinstance(node.get("properties"), Mapping):
                    self.properties.append(node["properties"])
                if isinstance(node.get("patternProperties"), Mapping):
                    self.pattern_properties.append(node["patternProperties"])
                todo.extend((v, resource, base) for k, v in node.items()
                            if k not in ("enum", "const", "default", "examples"))
            elif isinstance(node, (list, tuple)):
                todo.extend((v, resource, base) for v in node)

    def targets(self, ref: Any, holder: Any = None) -> list[Any]:
        """The schemas ``ref`` (written in ``holder``) may name; several for an anchor name or a
        pointer that may be read in the holder's resource or the root; [] when unknown."""
        if not isinstance(ref, str):
            return []
        base, _, fragment = ref.partition("#")
        resource, resource_uri = self.scope.get(id(holder), (self.root, ""))
        if not base:
            documents = [resource] if resource is self.root else [resource, self.root]
        else:
            found = self._by_id(urljoin(resource_uri, base) if resource_uri else base)
            if found is None:
                found = self._by_id(base)
            documents = [] if found is None else [found]
        if not fragment:
            return documents
        if fragment.startswith("/"):
            targets = [resolve_pointer(document, unquote(fragment)) for document in documents]
            return [target for target in targets if target is not MISSING]
        return list(self.anchors.get(unquote(fragment), ()))

    def _by_id(self, base: str) -> Any:
        base = base.rstrip("#")
        if base in self.ids:
            return self.ids[base]
        # a relative $ref against an absolute $id: match on the last path segments
        for known, node in self.ids.items():
            if known.endswith("/" + base) or base.endswith("/" + known):
                return node
        return None


_INDEXES: dict[tuple[int, int], _Index] = {}


def _index(root: Any, resources: Mapping[str, Any] | None = None) -> _Index:
    key = (id(root), id(resources) if resources else 0)
    found = _INDEXES.get(key)
    if found is None or found.root is not root or (resources and found.resources is not resources):
        if len(_INDEXES) >= _INDEX_LIMIT:
            _INDEXES.clear()
        found = _INDEXES[key] = _Index(root, resources or None)
    return found


def applicable(nodes: Iterable[Any], root: Any, resources: Mapping[str, Any] | None = None) -> list[Any]:
    """``nodes`` plus every schema they bring to the same instance position, each once (``resources``:
    the documents remote ``$ref``s of ``root`` name, as given to the guard)."""
    index = _index(root, resources)
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
            todo.extend(index.targets(node.get(key), node))
        if "$dynamicRef" in node and isinstance(node["$dynamicRef"], str):
            todo.extend(index.anchors.get(node["$dynamicRef"].rpartition("#")[2], ()))
        for key in _BRANCH_LISTS:
            if isinstance(node.get(key), (list, tuple)):
                todo.extend(node[key])
        todo.extend(node[key] for key in _BRANCHES if key in node)
        if isinstance(node.get("dependentSchemas"), Mapping):
            todo.extend(node["dependentSchemas"].values())
    return out


_MEMBER_MEMO = 4096  # (schemas, key) pairs kept per root; keys come from callers, so it is bounded


def member_nodes(nodes: list[Any], part: str, root: Any, resources: Mapping[str, Any] | None = None) -> list[Any]:
    """Every schema that applies to the member ``part`` of a value the (resolved) ``nodes`` describe.
    Kept per root: redaction asks it for every member of every value it walks."""
    index = _index(root, resources)
    key = (tuple(map(id, nodes)), part)
    found = index.members.get(key)
    if found is None:
        if len(index.members) >= _MEMBER_MEMO:
            index.members.clear()
        found = index.members[key] = applicable([c for n in nodes for c in children(n, part)], root, resources)
    return found


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


def nodes_at(root: Any, parts: Iterable[str], resources: Mapping[str, Any] | None = None) -> list[Any]:
    """Every schema that may apply to the instance member at ``parts`` (resolved at each step)."""
    nodes = applicable([root], root, resources)
    for part in parts:
        nodes = member_nodes(nodes, str(part), root, resources)
        if not nodes:
            break
    return nodes


def marked_on_the_way(root: Any, parts: Iterable[str], resources: Mapping[str, Any] | None = None) -> bool:
    """Whether the member at ``parts`` or any value containing it is marked sensitive."""
    nodes = applicable([root], root, resources)
    if any(is_marked(n) for n in nodes):
        return True
    for part in parts:
        nodes = member_nodes(nodes, str(part), root, resources)
        if any(is_marked(n) for n in nodes):
            return True
        if not nodes:
            return False
    return False


def first_marked(root: Any, parts: Iterable[str], resources: Mapping[str, Any] | None = None) -> int | None:
    """How many leading ``parts`` lead to the first position marked sensitive on the way to the
    member at ``parts`` (0: the root itself), or None when none is. A position whose member names
    are secret (``names_marked``) counts: what lies inside it names them."""
    nodes = applicable([root], root, resources)
    if any(is_marked(n) for n in nodes) or names_marked(nodes, root, resources):
        return 0
    for count, part in enumerate(parts, 1):
        nodes = member_nodes(nodes, str(part), root, resources)
        if not nodes:
            return None
        if any(is_marked(n) for n in nodes) or names_marked(nodes, root, resources):
            return count
    return None


def _member_schemas(node: Mapping[str, Any]) -> Iterator[Any]:
    """The subschemas of ``node`` that judge a member, an item or a key of its value."""
    for key in ("properties", "patternProperties"):
        if isinstance(node.get(key), Mapping):
            yield from node[key].values()
    yield from (node[key] for key in (*_OBJECT_CHILDREN, *_ARRAY_CHILDREN, "propertyNames") if key in node)
    for key in ("prefixItems", "items"):  # items as a list: the tuple form of older drafts
        if isinstance(node.get(key), (list, tuple)):
            yield from node[key]


def marked_below(nodes: Iterable[Any], root: Any, resources: Mapping[str, Any] | None = None) -> bool:
    """Whether a schema marked sensitive applies anywhere inside a value at the position ``nodes``
    (already resolved by ``applicable``) describe: a member, an item or a key, at any depth. Such a
    value sent in a shape the schema does not describe (a string for an array of tokens, an unknown
    member beside a secret one) cannot be redacted member by member, since no schema says which
    part is the secret."""
    index = _index(root, resources)
    for node in nodes:
        found = index.below.get(id(node))
        if found is None:
            found = index.below[id(node)] = _marked_below(node, root, resources)
        if found:
            return True
    return False


def marks_anything(root: Any, resources: Mapping[str, Any] | None = None) -> bool:
    """Whether a schema marked sensitive applies to a value of ``root`` or anywhere inside one: when
    not, only a secret-looking name can make a part of the value secret. Kept per root (asked on
    every bad call: reading the schema's text each time was a third of a marked tool's answer)."""
    key = (id(root), id(resources) if resources else 0)
    kept = _MARKS.get(key)
    if kept is not None and kept[0] is root and (not resources or kept[1] is resources):
        return kept[2]
    if not _mentions_a_mark(root) and not any(_mentions_a_mark(document) for document in (resources or {}).values()):
        answer = False  # no mark anywhere in the text (a walk of plain containers): none can apply
    else:
        nodes = applicable([root], root, resources)
        answer = any(is_marked(node) for node in nodes) or marked_below(nodes, root, resources)
    if len(_MARKS) >= _MARKS_LIMIT:
        _MARKS.clear()
    _MARKS[key] = (root, resources, answer)  # (the root held, so its id is not another's)
    return answer


#: marks_anything's answer per (root, resources), kept as the indexes are (but for every tool of a big
#: server: an answer is small), without building an index for a root that marks nothing
_MARKS: dict[tuple[int, int], tuple[Any, Any, bool]] = {}
_MARKS_LIMIT = 4096


def _mentions_a_mark(value: Any) -> bool:
    """Whether any mapping in ``value``, schema or data alike, is marked (``is_marked``); each
    container is read once (a schema built in code may share or loop its parts). A schema that is
    plain JSON whose text names neither mark has none: told by ``json.dumps`` in C, a tenth of the
    walk's time (a fifth of building a generated tool)."""
    # (exact JSON types only, one pass in C: a mapping of another kind answers ``get`` its own way)
    if clean_json(value, CLEAN_BUDGET, False, MISSING) is not MISSING:
        text = json.dumps(value)
        if '"writeOnly"' not in text and '"x-sensitive"' not in text:
            return False
    todo, seen = [value], set()
    while todo:
        node = todo.pop()
        if isinstance(node, (Mapping, list, tuple)):
            if id(node) in seen:
                continue
            seen.add(id(node))
        if isinstance(node, Mapping):
            if is_marked(node):
                return True
            todo.extend(node.values())
        elif isinstance(node, (list, tuple)):
            todo.extend(node)
    return False


def marked_member_names(root: Any, resources: Mapping[str, Any] | None = None) -> frozenset[str]:
    """The names ``properties`` declares, anywhere in ``root`` or its resources, for a member marked
    sensitive, or for a container whose every item or undeclared member is: whatever a value sent
    under such a name holds is a secret there. Kept per root."""
    index = _index(root, resources)
    if index.marked_names is None:
        index.marked_names = frozenset(str(name) for properties in index.properties
                                       for name, member in properties.items()
                                       if _marked_whole(member, root, resources))
    return index.marked_names


def declared_properties(root: Any, resources: Mapping[str, Any] | None = None) -> list[Mapping[str, Any]]:
    """Every ``properties`` of ``root`` and its resources, wherever it is (``$defs`` too)."""
    return list(_index(root, resources).properties)


def marked_member_patterns(root: Any, resources: Mapping[str, Any] | None = None) -> tuple[str, ...]:
    """The ``patternProperties`` patterns, anywhere in ``root`` or its resources, of members marked
    sensitive as ``marked_member_names`` reads them: a member whose name one of them matches holds
    a secret whole there. Kept per root."""
    index = _index(root, resources)
    if index.marked_patterns is None:
        index.marked_patterns = tuple(sorted({str(pattern) for patterns in index.pattern_properties
                                              for pattern, member in patterns.items()
                                              if _marked_whole(member, root, resources)}))
    return index.marked_patterns


def _marked_whole(node: Any, root: Any, resources: Mapping[str, Any] | None) -> bool:
    """Whether a value at ``node`` is secret whole: marked, or every item or undeclared member is,
    or one of its ``prefixItems`` is (a tuple is read whole: a marked item past the first 1,000,
    cut from the copy redaction reads, was never found)."""
    resolved = applicable([node], root, resources)
    return any(is_marked(n) for n in resolved) or any(
        any(is_marked(m) for m in applicable([n[key]], root, resources))
        for n in resolved if isinstance(n, Mapping)
        for key in ("items", "additionalProperties") if key in n) or any(
        is_marked(m) for n in resolved if isinstance(n, Mapping) and isinstance(n.get("prefixItems"), (list, tuple))
        for item in n["prefixItems"] for m in applicable([item], root, resources))


def _marked_below(node: Any, root: Any, resources: Mapping[str, Any] | None) -> bool:
    seen: set[int] = set()
    todo = [node]
    while todo:
        current = todo.pop()
        for resolved in applicable([current], root, resources):
            if id(resolved) in seen or not isinstance(resolved, Mapping):
                continue
            seen.add(id(resolved))
            for member in _member_schemas(resolved):
                if any(is_marked(m) for m in applicable([member], root, resources)):
                    return True
                todo.append(member)
    return False


def names_marked(nodes: Iterable[Any], root: Any, resources: Mapping[str, Any] | None = None) -> bool:
    """Whether the member names of a value at the position ``nodes`` describe are secret: a
    ``propertyNames`` schema there is marked sensitive."""
    return any(isinstance(node, Mapping) and "propertyNames" in node
               and any(is_marked(m) for m in applicable([node["propertyNames"]], root, resources))
               for node in nodes)


_OBJECT_KEYWORDS = ("properties", "patternProperties", *_OBJECT_CHILDREN, "propertyNames")
_ARRAY_KEYWORDS = ("prefixItems", *_ARRAY_CHILDREN)


def describes_members(nodes: Iterable[Any], of_array: bool) -> bool:
    """Whether any of ``nodes`` says what the members of an object (or the items of an array) are."""
    keywords = _ARRAY_KEYWORDS if of_array else _OBJECT_KEYWORDS
    return any(isinstance(node, Mapping) and any(k in node for k in keywords) for node in nodes)


def lists_secrets(node: Any, root: Any, resources: Mapping[str, Any] | None = None) -> bool:
    """Whether the ``enum`` or ``const`` of ``node`` holds objects or arrays in which a marked schema
    applies (``enum: [{"pin": "1234"}]`` beside ``properties: {pin: {writeOnly: true}}``): listing
    those values would show the secrets inside them."""
    if not isinstance(node, Mapping):
        return False
    listed = list(node["enum"]) if isinstance(node.get("enum"), (list, tuple)) else []
    if "const" in node:
        listed.append(node["const"])
    return any(isinstance(v, (Mapping, list, tuple)) for v in listed) and \
        marked_below(applicable([node], root, resources), root, resources)
