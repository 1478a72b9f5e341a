"""Schemas that name no type keep accepting every type in the models: the schema the model
generator reads says so explicitly.

A schema object without ``type`` accepts every JSON value; its object keywords (``properties``,
``required``...) judge only objects and its array keywords (``items``, ``prefixItems``...) only
arrays. datamodel-code-generator reads such keywords as ``type: object`` / ``type: array`` and writes
a model that refuses every other value: ``{"properties": {"a": ...}}`` refused the string ``"x"``,
which the schema (and the guard, which checks the schema first) accepts, and the caller was told
"'v' must be valid" about a valid call. Naming every type keeps the model's class for objects and
adds the other JSON types beside it (``V | list[Any] | str | int | float | StrictBool | None``).
An untyped ``allOf`` of untyped members is left to the schema (the model is ``Any`` there).
"""

from __future__ import annotations

import copy
from typing import Any

from ..manifest.schema_walk import subschemas

#: what ``type`` means when it is absent
EVERY_TYPE = ["object", "array", "string", "number", "boolean", "null"]
_SHAPE_KEYWORDS = frozenset({
    "properties", "required", "additionalProperties", "patternProperties", "propertyNames", "minProperties",
    "maxProperties", "dependentRequired", "dependentSchemas", "unevaluatedProperties",
    "items", "prefixItems", "contains", "minContains", "maxContains", "minItems", "maxItems", "uniqueItems",
    "unevaluatedItems",
})
#: keywords that say the value's type in other ways: the generator reads them, not the shape keywords
_TYPED_OTHERWISE = ("type", "enum", "const", "$ref", "$dynamicRef")


def every_type_named(schema: Any) -> Any:
    """A copy of ``schema`` in which every schema object that names no type but has object or array
    keywords names all of them. Only what the generator reads changes: ``type`` listing every JSON
    type validates nothing."""
    schema = copy.deepcopy(schema)
    for pointer, node in subschemas(schema):
        if any(key in node for key in _TYPED_OTHERWISE) or _same_value_branch(pointer):
            continue  # typed, or judging the value of the schema holding it, whose type decides
        if "allOf" in node and not _names_a_type(node):
            # the generator merges allOf members into a class, an object: the members' keywords
            # (``maximum``, ``properties``) judge values of any type, so the model leaves them to
            # the schema (``allOf: [{maximum: 30}, {minimum: 20}]`` refused 25 as an object would)
            del node["allOf"]
            for key in ("unevaluatedProperties", "unevaluatedItems"):  # they read what allOf evaluated
                node.pop(key, None)
        if _SHAPE_KEYWORDS.intersection(node):
            node["type"] = list(EVERY_TYPE)
    return schema


def _names_a_type(node: Any) -> bool:
    """Whether ``node`` or a schema judging the same value through ``allOf`` says the value's type."""
    if not isinstance(node, dict):
        return False
    members = node.get("allOf")
    return any(key in node for key in _TYPED_OTHERWISE) or isinstance(members, list) and any(
        _names_a_type(member) for member in members)


#: keywords whose members are named by the author: a token right after one is a name, not a keyword
_NAMED = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})


def _same_value_branch(pointer: str) -> bool:
    """Whether the schema at ``pointer`` sits directly under ``allOf``/``anyOf``/``oneOf`` (with its
    index), ``if``/``then``/``else``/``not`` or ``dependentSchemas`` of the schema holding it: a
    property named ``if`` is not a branch."""
    tokens = pointer.split("/")[1:]

    def keyword_at(index: int) -> bool:  # the token at ``index`` (from the end) is a keyword, not a name
        return len(tokens) <= index or tokens[-index - 1] not in _NAMED

    if tokens and tokens[-1] in ("if", "then", "else", "not") and keyword_at(1):
        return True
    return len(tokens) >= 2 and keyword_at(2) and (
        tokens[-2] == "dependentSchemas" or tokens[-2] in ("allOf", "anyOf", "oneOf") and tokens[-1].isdigit())
