"""Our own schema reasoning: equivalent rewrites, and a sound structural test for "covers".

``equivalent`` spells the same value set one way (integer exclusive bounds as inclusive ones, a single
branch combinator as allOf, a pattern's implied minimum length made explicit), so the algebra and the
structural test see like as like. ``structurally_covers`` answers only "yes" or "cannot tell".
"""

from __future__ import annotations

import math
from typing import Any

from .formats import format_includes
from .regex import pattern_includes, shortest_match

_SUB_MAPS = ("properties", "patternProperties", "dependentSchemas", "$defs")
_SUB_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SUB_VALUES = ("items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames",
               "unevaluatedProperties", "unevaluatedItems")
_ANNOTATIONS = frozenset({"description", "title", "$comment", "examples", "default", "deprecated",
                          "readOnly", "writeOnly", "$schema", "$id"})


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def equivalent(schema: Any) -> Any:
    """The same set of values, spelled canonically (recursively)."""
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _ANNOTATIONS:
            continue
        if key in _SUB_MAPS and isinstance(value, dict):
            out[key] = {k: equivalent(v) for k, v in value.items()}
        elif key in _SUB_LISTS and isinstance(value, list):
            out[key] = [equivalent(v) for v in value]
        elif key in _SUB_VALUES:
            out[key] = equivalent(value)
        else:
            out[key] = value
    _integer_bounds(out)
    _pattern_length(out)
    return _single_branch(out)


def _only_integers(schema: dict[str, Any]) -> bool:
    return schema.get("type") in ("integer", ["integer"])


def _integer_bounds(schema: dict[str, Any]) -> None:
    """For integers, ``exclusiveMinimum: 5`` is ``minimum: 6`` (and likewise for the maximum)."""
    if not _only_integers(schema):
        return
    low = schema.pop("exclusiveMinimum", None)
    if _is_number(low):
        schema["minimum"] = max(math.floor(low) + 1, schema.get("minimum", -math.inf))
    elif low is not None:
        schema["exclusiveMinimum"] = low
    high = schema.pop("exclusiveMaximum", None)
    if _is_number(high):
        schema["maximum"] = min(math.ceil(high) - 1, schema.get("maximum", math.inf))
    elif high is not None:
        schema["exclusiveMaximum"] = high
    for key in ("minimum", "maximum"):
        if isinstance(schema.get(key), float) and schema[key].is_integer():
            schema[key] = int(schema[key])


def _pattern_length(schema: dict[str, Any]) -> None:
    """A string that contains a match of ``pattern`` is at least as long as the shortest match."""
    pattern = schema.get("pattern")
    if not isinstance(pattern, str):
        return
    shortest = shortest_match(pattern)
    current = schema.get("minLength", 0)
    if shortest is not None and shortest > 0 and isinstance(current, int) and shortest > current:
        schema["minLength"] = shortest


def _single_branch(schema: dict[str, Any]) -> dict[str, Any]:
    """``oneOf: [X]``/``anyOf: [X]``/``allOf: [X]`` is X applied in place: merge it when no keyword clashes."""
    for key in ("oneOf", "anyOf", "allOf"):
        branches = schema.get(key)
        if not (isinstance(branches, list) and len(branches) == 1 and isinstance(branches[0], dict)):
            continue
        branch = branches[0]
        rest = {k: v for k, v in schema.items() if k != key}
        if set(rest) & set(branch) or _scope_sensitive(rest) or _scope_sensitive(branch):
            continue
        return _single_branch({**rest, **branch})
    return schema


def _scope_sensitive(schema: dict[str, Any]) -> bool:
    """Keywords whose meaning depends on their siblings: merging would change what they see."""
    return any(k in schema for k in ("additionalProperties", "unevaluatedProperties", "unevaluatedItems",
                                     "items", "prefixItems", "if", "contains"))


# --- a sound (incomplete) containment test -----------------------------------------------------------

_LOWER = ("minimum", "minLength", "minItems", "minProperties", "minContains")
_UPPER = ("maximum", "maxLength", "maxItems", "maxProperties", "maxContains")
#: keywords whose meaning depends on siblings: judged only when those siblings are identical
_DEPENDS = {"additionalProperties": ("properties", "patternProperties"),
            "unevaluatedProperties": None, "unevaluatedItems": None,
            "then": ("if",), "else": ("if",), "minContains": ("contains",), "maxContains": ("contains",),
            "items": ("prefixItems",)}


def _types(schema: dict[str, Any]) -> set[str] | None:
    declared = schema.get("type")
    if declared is None:
        return None
    return {declared} if isinstance(declared, str) else set(declared)


def _false(schema: Any) -> bool:
    return schema is False or (isinstance(schema, dict) and schema.get("not") in ({}, True))


def structurally_covers(outer: Any, inner: Any, depth: int = 0) -> bool:
    """True only when every keyword of ``outer`` provably holds for every value ``inner`` accepts."""
    if outer is True or outer == {}:
        return True
    if _false(inner):
        return True
    if not isinstance(outer, dict) or not isinstance(inner, dict) or depth > 12:
        return False
    if "anyOf" in inner and "anyOf" not in outer:  # each branch (with its siblings) must be covered
        rest = {k: v for k, v in inner.items() if k != "anyOf"}
        return all(isinstance(b, dict) and structurally_covers(outer, {**rest, **b}, depth + 1)
                   for b in inner["anyOf"]) if not set(rest) & _keys(inner["anyOf"]) else False
    return all(_keyword_holds(key, value, outer, inner, depth) for key, value in outer.items()
               if key not in _ANNOTATIONS)


def _keys(branches: Any) -> set[str]:
    return {k for b in branches if isinstance(b, dict) for k in b}


def _keyword_holds(key: str, value: Any, outer: dict[str, Any], inner: dict[str, Any], depth: int) -> bool:
    if key == "additionalProperties":
        # it applies to the names properties and patternProperties leave out: only those names matter
        # (the property schemas are judged on their own under "properties")
        if any(_names(outer.get(k)) != _names(inner.get(k)) for k in ("properties", "patternProperties")):
            return False
        return inner.get(key) == value or key in inner and structurally_covers(value, inner[key], depth + 1)
    if key in _DEPENDS:
        needs = _DEPENDS[key]
        if needs is None or any(outer.get(n) != inner.get(n) for n in needs):
            return False
    if key == "contains" and any(outer.get(k) != inner.get(k) for k in ("minContains", "maxContains")):
        return False  # the same `contains` means something else under other counts
    if key in inner and inner[key] == value:
        return True
    if key == "type":
        inner_types = _types(inner)
        outer_types = _types(outer) or set()
        return inner_types is not None and all(
            t in outer_types or (t == "integer" and "number" in outer_types) for t in inner_types)
    if key in ("enum", "const"):
        allowed = [value] if key == "const" else value
        values = [inner["const"]] if "const" in inner else inner.get("enum")
        return isinstance(values, list) and isinstance(allowed, list) and all(
            any(_same(v, a) for a in allowed) for v in values)
    if key in _LOWER or key == "exclusiveMinimum":
        return _bound_holds(inner, key, value, lower=True)
    if key in _UPPER or key == "exclusiveMaximum":
        return _bound_holds(inner, key, value, lower=False)
    if key == "required":
        return isinstance(value, list) and set(value) <= set(inner.get("required", []))
    if key == "format":  # every email address is an idn-email address (formats.py)
        return format_includes(value, inner.get("format"))
    if key == "pattern":  # every string inner accepts matches its own pattern, hence this one
        own = inner.get("pattern")
        return isinstance(value, str) and isinstance(own, str) and pattern_includes(value, own) is True
    if key == "properties" and isinstance(value, dict):
        inner_props = inner.get("properties", {})
        return all(structurally_covers(sub, inner_props.get(name, _unconstrained(inner, name)), depth + 1)
                   for name, sub in value.items())
    if key == "contains":  # minContains defaults to 1, and a wider `contains` can exceed maxContains
        same_counts = all(outer.get(k) == inner.get(k) for k in ("minContains", "maxContains"))
        return same_counts and "maxContains" not in outer and key in inner and \
            structurally_covers(value, inner[key], depth + 1)
    if key in ("items", "additionalProperties", "propertyNames") and key in inner:
        return structurally_covers(value, inner[key], depth + 1)
    if key == "allOf" and isinstance(value, list):
        return all(structurally_covers(part, inner, depth + 1) for part in value)
    if key == "anyOf" and isinstance(value, list):
        return any(structurally_covers(branch, inner, depth + 1) for branch in value)
    return False


def _names(mapping: Any) -> frozenset[str] | None:
    return frozenset(mapping) if isinstance(mapping, dict) else None if mapping is None else frozenset({"?"})


def _unconstrained(inner: dict[str, Any], name: str) -> Any:
    """What ``inner`` allows for a property it does not declare (anything, unless it constrains extras)."""
    if "patternProperties" in inner or "unevaluatedProperties" in inner:
        return None  # cannot tell here: only an unconstrained outer covers a non-schema
    extra = inner.get("additionalProperties", True)
    return {} if extra is True else extra


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b or (_is_number(a) and _is_number(b) and a == b)


def _bound_holds(inner: dict[str, Any], key: str, value: Any, lower: bool) -> bool:
    if not _is_number(value):
        return False
    if key in ("exclusiveMinimum", "exclusiveMaximum"):
        strict = key
        loose = "minimum" if lower else "maximum"
    else:
        strict = "exclusiveMinimum" if key == "minimum" else "exclusiveMaximum" if key == "maximum" else ""
        loose = key
    exclusive_needed = key in ("exclusiveMinimum", "exclusiveMaximum")
    for name in (loose, strict):
        have = inner.get(name)
        if not name or not _is_number(have):
            continue
        tighter_or_equal = have >= value if lower else have <= value
        strictly = have > value if lower else have < value
        if name == strict or not exclusive_needed:
            if tighter_or_equal:
                return True
        elif strictly:
            return True
    return False
