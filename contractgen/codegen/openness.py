"""Open objects stay open in the models: the schema the model generator reads says so explicitly.

JSON Schema objects accept undeclared members unless they say otherwise; datamodel-code-generator
only writes ``extra="allow"`` for ``additionalProperties: true`` (or a schema) and leaves other open
objects at pydantic's ``extra="ignore"``, which drops members the schema accepted.
"""

from __future__ import annotations

import copy
from typing import Any

from ..manifest.schema_walk import subschemas

#: Applicators that can evaluate members the model's own fields do not declare: under
#: ``unevaluatedProperties: false`` they decide which members are allowed, which no model class can say.
_EVALUATING = ("allOf", "anyOf", "oneOf", "dependentSchemas", "if", "then", "else", "$ref", "$dynamicRef")


def explicit_openness(schema: Any) -> Any:
    """A copy of ``schema`` with every open object that has a model of its own
    marked ``additionalProperties: true``, and keys-by-pattern widened to untyped extras.

    Closed objects (``additionalProperties: false`` or ``unevaluatedProperties: false``) and exact
    pattern maps (only ``patternProperties``, closed otherwise, which the generator types as a dict
    with constrained keys) are left as they are. ``additionalProperties: true`` validates nothing,
    so adding it changes what the generator writes, never what the schema accepts.

    Arrays likewise: ``unevaluatedItems`` is read as ``items`` when nothing else evaluates items,
    and left to the schema otherwise.

    An object closed by ``unevaluatedProperties: false`` beside applicators (``allOf``, ``anyOf``,
    ``dependentSchemas``, ``$ref``...) allows the members they evaluate, which a model class cannot
    express: its model is open, and the schema, which the guard checks first, judges the members
    (a closed model refused valid arguments with "'bar' must be string" for a string).
    """
    schema = copy.deepcopy(schema)
    walk = list(subschemas(schema))  # collected before any change
    for _, node in walk:
        if node.get("unevaluatedProperties") is False and any(key in node for key in _EVALUATING):
            del node["unevaluatedProperties"]
            node.setdefault("additionalProperties", True)
        if "unevaluatedItems" in node:
            _items_left_to_schema(node)
    for _, node in walk:
        additional = node.get("additionalProperties")
        patterns = node.get("patternProperties")
        if isinstance(patterns, dict) and patterns:
            if additional is False and not node.get("properties"):
                continue  # an exact map of pattern-constrained keys
            # no class types keys by pattern: the members they admit become untyped extras
            del node["patternProperties"]
            node["additionalProperties"] = True
        elif _describes_object(node) and "additionalProperties" not in node \
                and node.get("unevaluatedProperties") is not False:
            node["additionalProperties"] = True
    return schema


def _items_left_to_schema(node: dict[str, Any]) -> None:
    """``unevaluatedItems`` judges the items nothing else evaluated (``prefixItems``, ``items``,
    ``contains``, the applicators' own): which those are depends on the value, and no list type can
    say it. The generator read it as every item's type and refused valid arrays (``["foo", 42]``
    under ``prefixItems: [string], items: true, unevaluatedItems: false``). Alone on an array it is
    ``items``; beside anything that evaluates items the model leaves the items to the schema, which the
    guard checks first."""
    rest = node.pop("unevaluatedItems")
    if node.get("type") == "array" and not any(key in node for key in (*_EVALUATING, "prefixItems", "items",
                                                                        "contains")):
        node["items"] = rest  # on another type (or several) the generator would constrain a non-array


def _describes_object(node: dict[str, Any]) -> bool:
    kind = node.get("type")
    if "properties" in node or kind == "object" or (isinstance(kind, list) and "object" in kind):
        return True
    # the generator merges allOf members into one class: it is an object when a member is one
    members = node.get("allOf")
    return isinstance(members, list) and any(isinstance(m, dict) and _describes_object(m) for m in members)
