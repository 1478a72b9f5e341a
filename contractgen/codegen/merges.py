"""Every ``allOf`` below a schema's root becomes a definition named after its tool and place.

datamodel-code-generator names the class it merges from an ``allOf`` after the property alone (``V``,
``Filter``), not parent-prefixed as every other class. Two tools with such a property then shared one
class name in the bundle: the second tool's module referred to a class defined only in the first's
(it could not be used: "``BetaV1Input`` is not fully defined"), and a tool's class names depended on
which other tools were built with it. As a definition keyed ``<Root><Place>`` it is named like
every other class of its tool.

An ``allOf`` that reaches a list of values (an ``enum`` or ``const`` of a member, behind its
``$ref``, in a nested ``allOf``, or beside the ``allOf``) is handed to the generator as that first
list alone: merging it with other members, the generator wrote an empty class, an object, so
``allOf: [{enum: [1, 2]}, {enum: [2, 3]}]`` refused 2 and ``allOf: [{$ref: colour}, {type: string}]``
refused every colour, which the schema accepts. The list holds every value the schema accepts
there; the schema, checked first, still refuses the rest.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from ..manifest.schema_walk import resolve_local_ref, subschemas
from ..runtime.pointer import unescape_token

#: how a keyword that holds one schema is named in the class name of what it holds
_PLACE = {"items": "Item", "additionalProperties": "Value", "unevaluatedProperties": "Value",
          "contains": "Item", "propertyNames": "Key", "not": "Not", "if": "If", "then": "Then",
          "else": "Else", "additionalItems": "Item", "unevaluatedItems": "Item", "contentSchema": "Content"}
#: keywords whose value maps names to schemas: the name, not the keyword, names the place
_NAMED = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})
#: how many references and nested ``allOf`` are followed to find a list of values (a cycle stops there)
_MAX_FOLLOWED = 32


def hoist_merges(bundle: dict[str, Any], used: set[str], pascal: Callable[[str], str]) -> None:
    """Move each ``allOf`` below a root of ``bundle`` into ``bundle`` under a new key (tool root
    key plus the place), leaving a ``$ref`` to it; ``used`` holds the keys taken."""
    todo = list(bundle)
    while todo:
        key = todo.pop(0)
        for pointer, node in list(subschemas(bundle[key])):  # collected before any change
            if not pointer or "allOf" not in node:
                continue
            name = key + place_name(pointer, pascal)
            while name in used:
                name += "Def"
            used.add(name)
            bundle[name] = dict(node)
            described: dict[str, Any] = {k: node[k] for k in ("description", "title") if k in node}
            node.clear()
            node.update({"$ref": f"#/$defs/{name}", **described})
            todo.append(name)


def listed_values_unmerged(bundle: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``bundle`` (``{"$defs": ...}``, refs resolved in it) in which no ``allOf`` reaches a
    list of values: a schema whose ``allOf`` does (a member's ``enum``, one behind its ``$ref`` or in a
    nested ``allOf``), or that holds an ``enum`` beside its ``allOf``, keeps the first list as its own
    ``enum`` in place of the ``allOf`` (call after ``const`` became ``enum``)."""
    bundle = copy.deepcopy(bundle)
    for _, node in list(subschemas(bundle)):
        members = node.get("allOf")
        if not isinstance(members, list):
            continue
        values = node.get("enum") if isinstance(node.get("enum"), list) else next(
            (found for found in (_listed_values(m, bundle) for m in members) if found is not None), None)
        if values is None:
            continue
        node["enum"] = values
        for key in ("allOf", "unevaluatedProperties", "unevaluatedItems"):  # the latter read what allOf evaluated
            node.pop(key, None)
    return bundle


def _listed_values(node: Any, root: dict[str, Any], depth: int = 0) -> list[Any] | None:
    """The first ``enum`` list that judges the value ``node`` judges: its own, or one behind its
    ``$ref`` or in its ``allOf``."""
    if not isinstance(node, dict) or depth > _MAX_FOLLOWED:
        return None
    if isinstance(node.get("enum"), list):
        return list(node["enum"])
    ref = node.get("$ref")
    if isinstance(ref, str):
        target = resolve_local_ref(root, ref)
        found = _listed_values(target.value, root, depth + 1) if target.found else None
        if found is not None:
            return found
    members = node.get("allOf")
    for member in members if isinstance(members, list) else ():
        found = _listed_values(member, root, depth + 1)
        if found is not None:
            return found
    return None


def place_name(pointer: str, pascal: Callable[[str], str]) -> str:
    """The class-name part for a place below a root: ``/properties/filter/items`` -> ``FilterItem``."""
    tokens = [unescape_token(t) for t in pointer.split("/")[1:]]
    parts: list[str] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token in _NAMED and index + 1 < len(tokens):
            parts.append(pascal(tokens[index + 1]))
            index += 2
            continue
        if token.isdigit():
            parts.append(token)  # a branch or tuple position
        else:
            parts.append(_PLACE.get(token, pascal(token)))
        index += 1
    return "".join(parts)


__all__ = ["hoist_merges", "listed_values_unmerged", "place_name"]
