"""Whether an object schema rejects a property it does not declare (closed content model)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..reading import matches_pattern_property


def rejects_extra(node: Mapping[str, Any], name: str) -> bool:
    if name in node.get("properties", {}):
        return False
    if matches_pattern_property(node, name):
        return False
    for keyword in ("additionalProperties", "unevaluatedProperties"):
        value = node.get(keyword)
        if isinstance(value, dict) and list(value) == ["not"] and value["not"] == {}:
            return True
    return False
