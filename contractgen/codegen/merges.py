"""Every ``allOf`` below a schema's root becomes a definition named after its tool and place.

datamodel-code-generator names the class it merges from an ``allOf`` after the property alone (``V``,
``Filter``), not parent-prefixed as every other class. Two tools with such a property then shared one
class name in the bundle: the second tool's module referred to a class defined only in the first's
(it could not be used: "``BetaV1Input`` is not fully defined"), and a tool's class names depended on
which other tools were built with it. As a definition keyed ``<Root><Place>`` it is named like
every other class of its tool.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..manifest.schema_walk import subschemas
from ..runtime.pointer import unescape_token

#: how a keyword that holds one schema is named in the class name of what it holds
_PLACE = {"items": "Item", "additionalProperties": "Value", "unevaluatedProperties": "Value",
          "contains": "Item", "propertyNames": "Key", "not": "Not", "if": "If", "then": "Then",
          "else": "Else", "additionalItems": "Item", "unevaluatedItems": "Item", "contentSchema": "Content"}
#: keywords whose value maps names to schemas: the name, not the keyword, names the place
_NAMED = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})


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


__all__ = ["hoist_merges", "place_name"]
