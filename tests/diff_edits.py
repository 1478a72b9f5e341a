"""Edits of real schemas whose verdict is known in advance, for tests/test_diff_real_histories.py.

Refactors keep the set of accepted values exactly (a schema history's "no behaviour change" commits:
a definition extracted into ``$defs`` or inlined, keys reordered, ``const`` as a one-item ``enum``,
a ``type`` list as ``anyOf``, an integer's ``exclusiveMinimum`` as ``minimum``, keywords split into
``allOf``, another spelling of "or null", reworded descriptions). Narrowings take away values a
caller could send, each with a precondition that guarantees a value is lost (a removed enum member
the rest of the schema accepts, a bound below a value the old schema allowed, ...). Read as output
schemas, a narrowing undone (new -> old) is a widening: a consumer meets values it never saw.

Each edit takes the subschema at one position (a copy, edited in place) and returns whether it
applied; ``None`` marks a position it does not fit.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

Edit = Callable[[dict[str, Any], dict[str, Any], tuple[str, ...]], bool]

#: keywords whose meaning depends on sibling keywords: never split away from each other
SIBLING_GROUPS = (("properties", "patternProperties", "additionalProperties", "unevaluatedProperties"),
                  ("prefixItems", "items", "unevaluatedItems"), ("contains", "minContains", "maxContains"),
                  ("if", "then", "else"))
PLAIN_STRING_BLOCKERS = ("enum", "const", "format", "pattern", "anyOf", "oneOf", "allOf", "not", "$ref")


def types_of(sub: dict[str, Any]) -> list[str]:
    declared = sub.get("type")
    return [declared] if isinstance(declared, str) else list(declared) if isinstance(declared, list) else []


def at(schema: Any, ptr: tuple[str, ...]) -> Any:
    for part in ptr:
        schema = schema[part]
    return schema


#: properties of kinds the corpus seldom has (a constant, a bounded integer, a nullable text, a one-item
#: enum, keywords already split into allOf), added to both versions of a seed so every edit meets them
ENRICHMENT: dict[str, Any] = {
    "mode": {"const": "fast", "description": "Always fast."},
    "level": {"type": "integer", "minimum": 1, "maximum": 5, "description": "Level 1 to 5."},
    "ratio": {"type": "number", "minimum": 0, "maximum": 10},
    "note": {"type": ["string", "null"], "maxLength": 20},
    "choice": {"enum": ["x"]},
    "code": {"allOf": [{"type": "string"}, {"minLength": 1}]},
    "place": {"$ref": "#/$defs/place"},
    "zip": {"type": "string", "pattern": "^\\d{5}$"},
    "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 10},
    "size": {"enum": ["s", "m", "l"]},
}
ENRICHMENT_DEFS: dict[str, Any] = {
    "place": {"type": "object", "required": ["city"], "additionalProperties": False,
              "properties": {"city": {"type": "string", "minLength": 1}, "zip": {"type": "string"}}},
}


def enriched(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with the ENRICHMENT properties beside its own (optional ones)."""
    out = copy.deepcopy(schema)
    out.setdefault("properties", {}).update({k: v for k, v in copy.deepcopy(ENRICHMENT).items()
                                             if k not in out["properties"]})
    out.setdefault("$defs", {}).update({k: v for k, v in copy.deepcopy(ENRICHMENT_DEFS).items()
                                        if k not in out["$defs"]})
    return out


# --- refactors: the same set of values --------------------------------------------------------------

def r_extract_to_defs(root: dict[str, Any], sub: dict[str, Any], ptr: tuple[str, ...]) -> bool:
    """The subschema moves into $defs and is referred to (the usual "extract a definition")."""
    if not ptr or "$ref" in json.dumps(sub) or "$defs" in sub:
        return False
    name = "extracted_" + "_".join(p for p in ptr if p not in ("properties", "items"))[-40:]
    root.setdefault("$defs", {})[name] = copy.deepcopy(sub)
    sub.clear()
    sub["$ref"] = f"#/$defs/{name}"
    return True


def r_inline_refs(root: dict[str, Any], sub: dict[str, Any], ptr: tuple[str, ...]) -> bool:
    """Every local $ref below this position (one level of $defs) is replaced by its target."""
    defs = root.get("$defs") if isinstance(root.get("$defs"), dict) else {}
    changed = False

    def walk(node: Any) -> Any:
        nonlocal changed
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/") and len(node) == 1:
                target = defs.get(ref[len("#/$defs/"):])
                if isinstance(target, dict) and "$ref" not in json.dumps(target):
                    changed = True
                    return copy.deepcopy(target)
            return {k: walk(v) if k not in ("enum", "const", "default", "examples") else v for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    new = walk(sub)
    sub.clear()
    sub.update(new)
    return changed


def r_reorder(root: dict[str, Any], sub: dict[str, Any], ptr: tuple[str, ...]) -> bool:
    """Keys, properties, required names, enum members and anyOf/oneOf branches in reverse order."""
    before = json.dumps(sub)
    for key in ("required", "enum", "anyOf", "oneOf", "type"):
        if isinstance(sub.get(key), list):
            sub[key] = list(reversed(sub[key]))
    if isinstance(sub.get("properties"), dict):
        sub["properties"] = dict(reversed(list(sub["properties"].items())))
    items = list(sub.items())
    sub.clear()
    sub.update(reversed(items))
    return json.dumps(sub) != before


def r_const_enum(root: dict[str, Any], sub: dict[str, Any], ptr: tuple[str, ...]) -> bool:
    """``const: x`` and ``enum: [x]`` are the same schema (either way round)."""
    if "const" in sub and "enum" not in sub:
        sub["enum"] = [sub.pop("const")]
        return True
    if isinstance(sub.get("enum"), list) and len(sub["enum"]) == 1 and "const" not in sub:
        sub["const"] = sub.pop("enum")[0]
        return True
    return False


def r_type_list_any_of(root: dict[str, Any], sub: dict[str, Any], ptr: tuple[str, ...]) -> bool:
    """``type: [a, b]`` is ``anyOf: [{type: a}, {type: b}]`` with the other keywords beside it; a single
    type is a one-item list."""
    types = types_of(sub)
    if isinstance(sub.get("type"), str):
        sub["type"] = [sub["type"]]
        return True
    if len(types) < 2 or "anyOf" in sub:
        return False
    del sub["type"]
    sub["anyOf"] = [{"type": t} for t in types]
    return True


def r_nullable_spelling(root: dict[str, Any], sub: dict[str, Any], ptr: tuple[str, ...]) -> bool:
    """``type: [X, null]`` is ``anyOf: [{type: X, ...its keywords}, {type: null}]`` (or ``oneOf``)."""
    types = types_of(sub)
    if "null" not in types or len(types) != 2 or any(k in sub for k in ("anyOf", "oneOf", "$ref", "enum", "const")):
        return False
    other = next(t for t in types if t != "null")
    keep = {k: v for k, v in sub.items() if k in ("description", "title", "default")}
    rest = {k: v for k, v in sub.items() if k not in keep and k != "type"}
    sub.clear()
    sub.update(keep)
    sub["oneOf" if len(json.dumps(rest)) % 2 else "anyOf"] = [{"type": other, **rest}, {"type": "null"}]
    return True


def r_integer_bounds(root: dict[str, Any], sub: dict[str, Any], ptr: tuple[str, ...]) -> bool:
    """On integers, ``minimum: n`` is ``exclusiveMinimum: n - 1`` (and likewise for the maximum)."""
    if types_of(sub) != ["integer"]:
        return False
    changed = False
    for inclusive, exclusive, step in (("minimum", "exclusiveMinimum", -1), ("maximum", "exclusiveMaximum", 1)):
        bound = sub.get(inclusive)
        if isinstance(bound, int) and not isinstance(bound, bool) and exclusive not in sub:
            del sub[inclusive]
            sub[exclusive] = bound + step
            changed = True
    return changed


def r_split_all_of(root: dict[str, Any], sub: dict[str, Any], ptr: tuple[str, ...]) -> bool:
    """Keywords split into ``allOf`` parts (sibling-dependent keywords kept together)."""
    movable = [k for k in sub if k not in ("description", "title", "$defs", "allOf", "default", "examples")]
    if len(movable) < 2 or any(k.startswith("unevaluated") for k in sub):
        return False
    groups: list[list[str]] = []
    for key in movable:
        group = next((g for g in SIBLING_GROUPS if key in g), None)
        existing = next((g for g in groups if group and any(k in group for k in g)), None)
        if existing is not None:
            existing.append(key)
        else:
            groups.append([key])
    if len(groups) < 2:
        return False
    parts = [{k: sub.pop(k) for k in group} for group in groups]
    sub["allOf"] = parts
    return True


def r_flatten_all_of(root: dict[str, Any], sub: dict[str, Any], ptr: tuple[str, ...]) -> bool:
    """An ``allOf`` whose parts share no keyword with each other or the parent merges into the parent."""
    parts = sub.get("allOf")
    if not isinstance(parts, list) or not all(isinstance(p, dict) for p in parts):
        return False
    if any(k.startswith("unevaluated") for node in (sub, *parts) for k in node):
        return False
    seen = set(sub) - {"allOf"}
    for part in parts:
        if seen & set(part) or "$ref" in part:
            return False
        seen |= set(part)
    for group in SIBLING_GROUPS:  # additionalProperties only sees the properties beside it, ...
        holders = [node for node in (sub, *parts) if any(k in node for k in group)]
        if len(holders) > 1:
            return False
    del sub["allOf"]
    for part in parts:
        sub.update(part)
    return True


def r_reword(root: dict[str, Any], sub: dict[str, Any], ptr: tuple[str, ...]) -> bool:
    """Descriptions and titles edited, a $comment and examples-free annotations added."""
    sub["description"] = (sub.get("description") or "") + " (reworded)"
    sub["title"] = "Reworded"
    sub["$comment"] = "no behaviour change"
    return True


def r_true_schemas(root: dict[str, Any], sub: dict[str, Any], ptr: tuple[str, ...]) -> bool:
    """An absent ``additionalProperties``/``items`` is ``true``; an absent ``required`` is ``[]``."""
    changed = False
    if "object" in types_of(sub) and "additionalProperties" not in sub and "unevaluatedProperties" not in sub:
        sub["additionalProperties"] = True
        changed = True
    if "array" in types_of(sub) and "items" not in sub and "prefixItems" not in sub:
        sub["items"] = True
        changed = True
    if "object" in types_of(sub) and "required" not in sub:
        sub["required"] = []
        changed = True
    return changed


def r_enum_as_consts(root: dict[str, Any], sub: dict[str, Any], ptr: tuple[str, ...]) -> bool:
    """``enum: [a, b]`` is ``anyOf: [{const: a}, {const: b}]``."""
    enum = sub.get("enum")
    if not isinstance(enum, list) or len(enum) < 2 or "anyOf" in sub:
        return False
    sub["anyOf"] = [{"const": value} for value in sub.pop("enum")]
    return True


def r_enum_typed(root: dict[str, Any], sub: dict[str, Any], ptr: tuple[str, ...]) -> bool:
    """An enum of strings (or integers) says so with a ``type`` its members all have."""
    enum = sub.get("enum")
    if not isinstance(enum, list) or not enum or "type" in sub:
        return False
    if all(isinstance(v, str) for v in enum):
        sub["type"] = "string"
    elif all(isinstance(v, int) and not isinstance(v, bool) for v in enum):
        sub["type"] = "integer"
    else:
        return False
    return True


def r_trivial_bounds(root: dict[str, Any], sub: dict[str, Any], ptr: tuple[str, ...]) -> bool:
    """``minLength: 0``, ``minItems: 0``, ``minProperties: 0`` and an integer bound written as a float."""
    before = json.dumps(sub)
    for json_type, key in (("string", "minLength"), ("array", "minItems"), ("object", "minProperties")):
        if json_type in types_of(sub) and key not in sub:
            sub[key] = 0
    for key in ("minimum", "maximum"):
        if isinstance(sub.get(key), int) and not isinstance(sub.get(key), bool):
            sub[key] = float(sub[key])
    return json.dumps(sub) != before


def r_digit_class(root: dict[str, Any], sub: dict[str, Any], ptr: tuple[str, ...]) -> bool:
    """In ECMA-262 ``\\d`` is ``[0-9]`` (the guard reads patterns so)."""
    pattern = sub.get("pattern")
    if not isinstance(pattern, str) or "\\d" not in pattern or "[" in pattern:
        return False
    sub["pattern"] = pattern.replace("\\d", "[0-9]")
    return True


REFACTORS: dict[str, Edit] = {f.__name__[2:]: f for f in (
    r_extract_to_defs, r_inline_refs, r_reorder, r_const_enum, r_type_list_any_of, r_nullable_spelling,
    r_integer_bounds, r_split_all_of, r_flatten_all_of, r_reword, r_true_schemas, r_enum_as_consts,
    r_enum_typed, r_trivial_bounds, r_digit_class)}


# --- narrowings: a value the old schema accepts is refused -------------------------------------------

def _plain_string(sub: dict[str, Any]) -> bool:
    return types_of(sub) == ["string"] and not any(k in sub for k in PLAIN_STRING_BLOCKERS)


def _plain_number(sub: dict[str, Any]) -> bool:
    return types_of(sub) in (["integer"], ["number"]) and not any(
        k in sub for k in ("enum", "const", "multipleOf", "anyOf", "oneOf", "allOf", "not", "$ref"))


def n_new_required(root: dict[str, Any], sub: dict[str, Any], ptr: tuple[str, ...]) -> bool:
    props = sub.get("properties")
    required = sub.get("required", [])
    if not isinstance(props, dict) or not isinstance(required, list) or any(
            k in sub for k in ("minProperties", "dependentRequired", "dependentSchemas", "anyOf", "oneOf", "allOf",
                               "if", "not")):
        return False
    optional = sorted(set(props) - set(required))
    if not optional:
        return False
    sub["required"] = [*required, optional[0]]
    return True


def n_enum_member_removed(root: dict[str, Any], sub: dict[str, Any], ptr: tuple[str, ...]) -> bool:
    enum = sub.get("enum")
    if not isinstance(enum, list) or len(enum) < 2 or set(sub) - {"enum", "type", "description", "title", "default"}:
        return False
    kept = [v for v in enum if v != sub.get("default")] or enum
    sub["enum"] = [v for v in enum if v != kept[-1]]
    return True


def n_tighter_bound(root: dict[str, Any], sub: dict[str, Any], ptr: tuple[str, ...]) -> bool:
    if _plain_number(sub) and "exclusiveMinimum" not in sub and "exclusiveMaximum" not in sub:
        low, high = sub.get("minimum"), sub.get("maximum")
        if not isinstance(low, (int, float)):
            sub["minimum"] = (high - 10) if isinstance(high, (int, float)) else 0  # a value below it is lost
            return True
        if isinstance(high, (int, float)) and high - low < 2:
            return False
        sub["maximum"] = low + 1  # values above low + 1 (up to the old maximum) are lost
        return True
    if _plain_string(sub):
        low, high = sub.get("minLength", 0), sub.get("maxLength")
        if isinstance(high, int) and high <= low:
            return False
        sub["maxLength"] = low
        return True
    if "array" in types_of(sub) and types_of(sub) == ["array"] and "items" in sub and not any(
            k in sub for k in ("contains", "prefixItems", "uniqueItems", "maxItems", "anyOf", "oneOf", "allOf")):
        sub["maxItems"] = sub.get("minItems", 0)
        return True
    return False


def n_pattern_added(root: dict[str, Any], sub: dict[str, Any], ptr: tuple[str, ...]) -> bool:
    if not _plain_string(sub) or sub.get("minLength", 0) > 20:
        return False
    sub["pattern"] = "^[0-9]+$"
    return True


def n_format_added(root: dict[str, Any], sub: dict[str, Any], ptr: tuple[str, ...]) -> bool:
    if not _plain_string(sub) or sub.get("minLength", 0) > 20:
        return False
    sub["format"] = ("email", "uuid", "date", "ipv4")[len(ptr) % 4]
    return True


def n_closed_property_removed(root: dict[str, Any], sub: dict[str, Any], ptr: tuple[str, ...]) -> bool:
    props = sub.get("properties")
    if sub.get("additionalProperties") is not False or not isinstance(props, dict) or not props or any(
            k in sub for k in ("patternProperties", "anyOf", "oneOf", "allOf", "if", "not", "dependentSchemas")):
        return False
    name = min(props)
    del props[name]
    if isinstance(sub.get("required"), list):
        sub["required"] = [r for r in sub["required"] if r != name]
    return True


def n_type_narrowed(root: dict[str, Any], sub: dict[str, Any], ptr: tuple[str, ...]) -> bool:
    types = types_of(sub)
    if any(k in sub for k in ("enum", "const", "anyOf", "oneOf", "allOf", "not", "$ref")):
        return False
    if len(types) >= 2:
        dropped = "null" if "null" in types else types[-1]
        rest = [t for t in types if t != dropped]
        if dropped == "integer" and "number" in rest:
            return False  # every integer is still a number
        sub["type"] = rest[0] if len(rest) == 1 else rest
        return True
    if types == ["number"] and not any(k in sub for k in ("multipleOf", "exclusiveMinimum", "exclusiveMaximum")):
        low, high = sub.get("minimum", -10), sub.get("maximum", 10)
        if isinstance(low, (int, float)) and isinstance(high, (int, float)) and high - low >= 2:
            sub["type"] = "integer"  # 0.5 past the minimum is lost
            return True
    return False


def n_const_added(root: dict[str, Any], sub: dict[str, Any], ptr: tuple[str, ...]) -> bool:
    if not _plain_string(sub) or sub.get("minLength", 0) > 1 or sub.get("maxLength", 1) < 1:
        return False
    sub["const"] = "x"  # every other string is lost
    return True


def n_multiple_of_added(root: dict[str, Any], sub: dict[str, Any], ptr: tuple[str, ...]) -> bool:
    if not _plain_number(sub) or any(k in sub for k in ("exclusiveMinimum", "exclusiveMaximum")):
        return False
    low, high = sub.get("minimum"), sub.get("maximum")
    if isinstance(low, (int, float)) and isinstance(high, (int, float)) and high - low < 8:
        return False
    sub["multipleOf"] = 7
    return True


def n_array_tightened(root: dict[str, Any], sub: dict[str, Any], ptr: tuple[str, ...]) -> bool:
    """An array gets uniqueItems (when two equal items were allowed) or a raised minItems."""
    if types_of(sub) != ["array"] or not isinstance(sub.get("items"), dict) or any(
            k in sub for k in ("contains", "prefixItems", "anyOf", "oneOf", "allOf", "not")):
        return False
    items, high = sub["items"], sub.get("maxItems")
    if not sub.get("uniqueItems") and (high is None or high >= 2) and not any(k in items for k in ("not", "$ref")):
        sub["uniqueItems"] = True
        return True
    low = sub.get("minItems", 0)
    if high is None or high > low:
        sub["minItems"] = low + 1
        return True
    return False


NARROWINGS: dict[str, Edit] = {f.__name__[2:]: f for f in (
    n_new_required, n_enum_member_removed, n_tighter_bound, n_pattern_added, n_format_added,
    n_closed_property_removed, n_type_narrowed, n_const_added, n_multiple_of_added, n_array_tightened)}
