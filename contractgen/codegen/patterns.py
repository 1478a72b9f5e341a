"""Patterns are judged by the schema, never by the models: the model generator reads no regex.

pydantic would run a model's ``pattern`` with its own engine (Rust's ``regex``, whose ``\\d``, ``\\w``
and ``\\s`` are Unicode classes), a third dialect beside ECMA-262: ``^\\W$`` refused ``é``, which the
schema accepts, so a valid call came back INVALID_ARGUMENT. The guard checks the schema first, with
the one regex semantics (``runtime/patterns.py``); the models keep the types.
"""

from __future__ import annotations

import copy
from typing import Any

from ..manifest.schema_walk import subschemas


def patterns_left_to_schema(schema: Any) -> Any:
    """A copy of ``schema`` without ``pattern``, in which an exact map of keys by pattern (only
    ``patternProperties``, closed otherwise) keeps its value type, and no longer its key patterns:
    one pattern's subschema types every value, several patterns leave the values untyped."""
    schema = copy.deepcopy(schema)
    for _, node in list(subschemas(schema)):  # collected before any change
        if isinstance(node.get("pattern"), str):
            del node["pattern"]
        patterns = node.get("patternProperties")
        if isinstance(patterns, dict) and patterns and node.get("additionalProperties") is False \
                and not node.get("properties"):
            del node["patternProperties"]
            node["additionalProperties"] = next(iter(patterns.values())) if len(patterns) == 1 else True
    return schema


__all__ = ["patterns_left_to_schema"]
