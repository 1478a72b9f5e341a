"""Enums whose members Python counts as equal are typed by their JSON types, not as a ``Literal``.

JSON Schema tells ``1``, ``1.0`` and ``true`` apart; Python does not (``1 == 1.0 == True``). A
``Literal[1, True]`` model field handed ``1.0`` gave the implementation ``True``: a number became a
boolean after the schema had accepted it. The schema, which the guard checks first, still decides
which values are allowed; the model only has to keep each value as it was sent.
"""

from __future__ import annotations

import copy
from typing import Any

from ..manifest.schema_walk import subschemas
from ..runtime.jsonvalue import json_type

#: JSON types in the order they are written into ``type``
_JSON_TYPES = ("null", "boolean", "integer", "number", "string", "array", "object")


def _python_merges(values: list[Any]) -> bool:
    """Whether a boolean and a number in ``values`` are equal to Python (``1``/``True``, ``0.0``/``False``)."""
    booleans = [v for v in values if isinstance(v, bool)]
    numbers = [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
    return any(n == b for n in numbers for b in booleans)


def enums_python_tells_apart(schema: Any) -> Any:
    """A copy of ``schema`` in which every ``enum`` holding a boolean and a number Python counts as
    equal is replaced by the JSON types of its members (kept as they are where ``type`` is given)."""
    schema = copy.deepcopy(schema)
    for _, node in list(subschemas(schema)):  # collected before any change
        values = node.get("enum")
        if not isinstance(values, list) or not _python_merges(values):
            continue
        del node["enum"]
        if "type" not in node:
            present = {json_type(v) for v in values}
            if "number" in present:
                present.discard("integer")  # a number type holds the integral ones too
            node["type"] = [t for t in _JSON_TYPES if t in present]
    return schema


__all__ = ["enums_python_tells_apart"]
