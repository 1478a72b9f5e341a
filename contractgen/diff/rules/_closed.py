"""Whether an object schema rejects a property it does not declare (closed content model)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any


def rejects_extra(node: Mapping[str, Any], name: str) -> bool:
    if name in node.get("properties", {}):
        return False
    for pattern in node.get("patternProperties", {}):
        try:
            if re.search(pattern, name):
                return False
        except re.error:
            return False
    for keyword in ("additionalProperties", "unevaluatedProperties"):
        value = node.get(keyword)
        if isinstance(value, dict) and list(value) == ["not"] and value["not"] == {}:
            return True
    return False
