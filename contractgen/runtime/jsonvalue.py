"""JSON values: the MISSING marker, plain copies of read-only values, where a value stops being JSON."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

MISSING: Any = object()


def thaw(value: Any) -> Any:
    """Plain dicts and lists for a JSON value held in read-only mappings or tuples."""
    if isinstance(value, dict):
        return {k: thaw(v) for k, v in value.items()} if any(
            isinstance(v, (Mapping, tuple, list)) for v in value.values()) else value
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [thaw(v) for v in value]
    return value


def non_json_path(value: Any, path: tuple[Any, ...] = ()) -> tuple[tuple[Any, ...], str] | None:
    """Where a value stops being JSON (and which Python type is there), or None."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return None
    if isinstance(value, dict):
        for k, v in value.items():
            if not isinstance(k, str):
                return path, "a non-string key"
            found = non_json_path(v, path + (k,))
            if found is not None:
                return found
        return None
    if isinstance(value, list):
        for i, v in enumerate(value):
            found = non_json_path(v, path + (i,))
            if found is not None:
                return found
        return None
    return path, f"a {type(value).__name__}"


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return "non-JSON value"
