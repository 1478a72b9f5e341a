"""Walking an embedded JSON Schema: its subschemas, its local ``$ref`` targets, argument pointers.

Only keywords that hold schemas are followed, so a property that happens to be named ``$ref`` or
``type`` is never mistaken for a keyword.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from typing import Any, NamedTuple
from urllib.parse import unquote

from ..runtime.patterns import pattern_matches
from ..runtime.pointer import escape_token, unescape_token

#: keywords whose value maps names (never keywords) to schemas
NAMED_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_SCHEMA_SINGLE = (
    "additionalProperties",
    "unevaluatedProperties",
    "items",
    "unevaluatedItems",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "additionalItems",
    "contentSchema",
)
_BRANCHES = ("allOf", "anyOf", "oneOf")
MAX_REF_HOPS = 32


def subschemas(schema: Any, pointer: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every schema object in ``schema`` with its pointer (relative to ``schema``), depth first."""
    # Collected into a list first: nested generators cost a frame hop per level for every item,
    # and every embedded schema is walked several times per check.
    found: list[tuple[str, dict[str, Any]]] = []
    _collect(schema, pointer, found)
    return iter(found)


_NAMED_MAPS = frozenset(NAMED_SCHEMA_MAPS)
_LISTS = frozenset(_SCHEMA_LISTS)
#: every keyword followed, in the order children are visited
_VISIT_ORDER = {k: i for i, k in enumerate((*NAMED_SCHEMA_MAPS, *_SCHEMA_LISTS, *_SCHEMA_SINGLE))}
_FOLLOWED = frozenset(_VISIT_ORDER)


def _collect(schema: Any, pointer: str, found: list[tuple[str, dict[str, Any]]]) -> None:
    if not isinstance(schema, dict):
        return
    found.append((pointer, schema))
    present = _FOLLOWED.intersection(schema)  # most schemas are leaves: one set operation
    if not present:
        return
    for keyword in sorted(present, key=_VISIT_ORDER.__getitem__):
        children = schema[keyword]
        if keyword in _NAMED_MAPS:
            if isinstance(children, dict):
                for name, child in children.items():
                    _collect(child, f"{pointer}/{keyword}/{escape_token(name)}", found)
        elif keyword in _LISTS or keyword == "items" and isinstance(children, list):
            if isinstance(children, list):  # "items" as a list is draft-07's tuple form
                for i, child in enumerate(children):
                    _collect(child, f"{pointer}/{keyword}/{i}", found)
        elif isinstance(children, dict):
            _collect(children, f"{pointer}/{keyword}", found)


class RefTarget(NamedTuple):
    found: bool
    value: Any = None
    problem: str = ""  # why it does not resolve


def resolve_json_pointer(document: Any, pointer: str) -> RefTarget:
    if pointer == "":
        return RefTarget(True, document)
    if not pointer.startswith("/"):
        return RefTarget(False, problem="a JSON pointer starts with '/'")
    current = document
    walked = ""
    for raw in pointer[1:].split("/"):
        token = unescape_token(raw)
        if isinstance(current, dict) and token in current:
            current = current[token]
        elif (
            isinstance(current, list)
            and re.fullmatch(r"0|[1-9][0-9]*", token)
            and int(token) < len(current)
        ):
            current = current[int(token)]
        else:
            return RefTarget(
                False, problem=f"nothing at {walked}/{raw}" if walked else f"nothing at /{raw}"
            )
        walked += "/" + raw
    return RefTarget(True, current)


def anchors(schema: Any) -> set[str]:
    return {sub["$anchor"] for _, sub in subschemas(schema) if isinstance(sub.get("$anchor"), str)}


def local_ref_pointer(root: Any, ref: str) -> str | None:
    """The JSON pointer inside ``root`` that a local ``$ref`` names: ``#``, ``#/json/pointer`` (its
    URI form percent-decoded: ``#/$defs/n%C3%A9``) or ``#anchor`` (the pointer of the subschema with
    that ``$anchor`` or ``$dynamicAnchor``); None when ``ref`` is not local or no subschema has the
    anchor."""
    if not ref.startswith("#"):
        return None
    fragment = unquote(ref[1:])
    if fragment == "" or fragment.startswith("/"):
        return fragment
    # a $dynamicAnchor names its subschema for a plain $ref too (2020-12 core, 8.2.2)
    return next((pointer for pointer, sub in subschemas(root)
                 if sub.get("$anchor") == fragment or sub.get("$dynamicAnchor") == fragment), None)


def static_dynamic_refs(schema: Any) -> Any:
    """``schema`` with every local ``$dynamicRef`` spelled as the ``$ref`` it amounts to here.

    A ``$dynamicRef`` only differs from a ``$ref`` when the evaluation path crosses several schema
    resources, and a manifest schema is one resource (check refuses an ``$id`` below its root), so its
    target is always the one a ``$ref`` with the same text names (a ``$dynamicAnchor`` is an anchor
    for ``$ref`` too). Build, guard and diff then read a
    reference they all follow. A ``$dynamicRef`` beside a ``$ref`` joins an ``allOf``; one that does
    not resolve is left as it is (check reports it).
    """
    if not any("$dynamicRef" in sub for _, sub in subschemas(schema)):
        return schema
    rewritten = copy.deepcopy(schema)
    for _, sub in subschemas(rewritten):
        ref = sub.get("$dynamicRef")
        if not isinstance(ref, str) or local_ref_pointer(rewritten, ref) is None:
            continue
        del sub["$dynamicRef"]
        if "$ref" in sub:
            sub["allOf"] = [*sub.get("allOf", []), {"$ref": ref}]
        else:
            sub["$ref"] = ref
    return rewritten


def resolve_local_ref(root: Any, ref: str) -> RefTarget:
    """Resolve ``#``, ``#/json/pointer`` or ``#anchor`` inside ``root``; nothing else is local."""
    if not ref.startswith("#"):
        return RefTarget(False, problem="not a local reference")
    pointer = local_ref_pointer(root, ref)
    if pointer is None:
        return RefTarget(False, problem=f"no $anchor {unquote(ref[1:])!r}")
    target = resolve_json_pointer(root, pointer)
    if target.found and not isinstance(target.value, (dict, bool)):
        return RefTarget(False, problem="it points at a non-schema value")
    return target


def definition_refs(root: Any) -> list[str]:
    """``#/$defs/name`` style references for every definition, for did-you-mean hints."""
    refs: list[str] = []
    if isinstance(root, dict):
        for keyword in ("$defs", "definitions"):
            if isinstance(root.get(keyword), dict):
                refs.extend(f"#/{keyword}/{escape_token(name)}" for name in root[keyword])
    return refs


def deref(root: Any, schema: Any) -> Any:
    """Follow local ``$ref`` chains (bounded) to the schema they name; a dangling ref stops."""
    for _ in range(MAX_REF_HOPS):
        if not (isinstance(schema, dict) and isinstance(schema.get("$ref"), str)):
            return schema
        target = resolve_local_ref(root, schema["$ref"])
        if not target.found:
            return schema
        if set(schema) - {"$ref", "description", "title", "examples", "default"}:
            return schema  # siblings next to $ref: treat the object itself as the schema
        schema = target.value
    return schema


class ArgumentLookup(NamedTuple):
    found: bool
    missing: str = ""  # the pointer prefix that does not exist
    candidates: tuple[str, ...] = ()  # pointers that do exist at that level
    schema: Any = None  # the (dereferenced) schema found at the pointer


def _branches(root: Any, schema: dict[str, Any]) -> list[dict[str, Any]]:
    """The schema itself and its allOf/anyOf/oneOf branches (dereferenced), recursively."""
    found = [schema]
    for keyword in _BRANCHES:
        for branch in schema.get(keyword, []) if isinstance(schema.get(keyword), list) else []:
            branch = deref(root, branch)
            if isinstance(branch, dict):
                found.extend(_branches(root, branch))
    return found


def lookup_argument(root: Any, pointer: str) -> ArgumentLookup:
    """Whether ``pointer`` (e.g. ``/filters/owner``) names a value the schema ``root`` describes."""
    if pointer in ("", "/"):
        return ArgumentLookup(True, schema=deref(root, root))
    current: Any = root
    walked = ""
    for raw in pointer[1:].split("/"):
        token = unescape_token(raw)
        options = (
            [b for b in _branches(root, deref(root, current))]
            if isinstance(deref(root, current), dict)
            else []
        )
        names: list[str] = []
        nxt: Any = None
        for option in options:
            props = option.get("properties")
            if isinstance(props, dict):
                names.extend(props)
                if token in props:
                    nxt = props[token]
                    break
            patterns = option.get("patternProperties")
            if isinstance(patterns, dict):
                for pattern, sub in patterns.items():
                    if pattern_matches(pattern, token):
                        nxt = sub
            if nxt is None and token.isdigit():
                items = option.get("items")
                if isinstance(items, dict):
                    nxt = items
                elif isinstance(option.get("prefixItems"), list) and int(token) < len(
                    option["prefixItems"]
                ):
                    nxt = option["prefixItems"][int(token)]
            if nxt is None and isinstance(option.get("additionalProperties"), dict):
                nxt = option["additionalProperties"]
            if nxt is not None:
                break
        if nxt is None:
            return ArgumentLookup(
                False,
                f"{walked}/{raw}",
                tuple(f"{walked}/{escape_token(n)}" for n in dict.fromkeys(names)),
            )
        current = nxt
        walked += "/" + raw
    return ArgumentLookup(True, schema=deref(root, current))


def top_level_properties(schema: Any) -> set[str]:
    """Argument names an object schema declares at its root (through allOf/anyOf/oneOf and $ref)."""
    root = schema
    names: set[str] = set()
    start = deref(root, schema)
    if isinstance(start, dict):
        for option in _branches(root, start):
            if isinstance(option.get("properties"), dict):
                names.update(option["properties"])
    return names
