"""A confirmation or precondition ``when`` schema in words, for the model-facing description.

Only the plain forms authors write are put in words (comparisons, ``const``, ``enum``, ``required``,
``anyOf`` / ``allOf`` of those); anything else reads "some calls", which is true and never misleads.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

SOME_CALLS = "some calls"
_COMPARISONS = (
    ("exclusiveMinimum", ">"),
    ("minimum", ">="),
    ("exclusiveMaximum", "<"),
    ("maximum", "<="),
)
_ANNOTATIONS = frozenset({"description", "title", "$comment", "type", "examples"})


def condition_words(schema: Any) -> str:
    """``schema`` as a condition on the arguments (``amount > 500 and currency is "USD"``)."""
    words = _words(schema)
    return SOME_CALLS if words is None else words


def _words(schema: Any) -> str | None:
    if not isinstance(schema, Mapping):
        return None
    parts: list[str] = []
    required = schema.get("required") or []
    properties = schema.get("properties") or {}
    for key, value in schema.items():
        if key in _ANNOTATIONS or key in ("required", "properties"):
            continue
        if key in ("anyOf", "allOf") and isinstance(value, list) and value:
            branches = [_words(branch) for branch in value]
            if any(b is None for b in branches):
                return None
            joined = (" or " if key == "anyOf" else " and ").join(
                f"({b})" if len(value) > 1 else b for b in branches if b
            )
            parts.append(joined)
            continue
        return None
    if not isinstance(properties, Mapping) or not isinstance(required, list):
        return None
    for name, sub in properties.items():
        said = _property_words(str(name), sub)
        if said is None:
            return None
        parts.append(said if name in required else f"({said} or {name} not given)")
    parts += [f"{name} is given" for name in required if name not in properties]
    return " and ".join(parts) if parts else None


def _property_words(name: str, sub: Any) -> str | None:
    if not isinstance(sub, Mapping):
        return None
    parts = []
    for key, value in sub.items():
        if key in _ANNOTATIONS:
            continue
        operator = dict(_COMPARISONS).get(key)
        if operator is not None:
            parts.append(f"{name} {operator} {_shown(value)}")
        elif key == "const":
            parts.append(f"{name} is {_shown(value)}")
        elif key == "enum" and isinstance(value, list) and value:
            parts.append(f"{name} is one of {', '.join(_shown(v) for v in value)}")
        else:
            return None
    return " and ".join(parts) if parts else None


def _shown(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return json.dumps(value, ensure_ascii=False)
