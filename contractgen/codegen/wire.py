"""The output's JSON form for datamodel-code-generator's TypedDict output: the schema it reads, widened
where a TypedDict would say less than the schema allows, and the code it writes, widened the same way.

A TypedDict may be wider than its schema (it drops constraints), never narrower: every value the
output schema accepts must have the type.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from typing import Any

from .defaults import add_import
from .source_text import name_as_written, parser_lines, source_lines

#: Only restrict which keys or items may appear: dropping them widens, and the generator would
#: otherwise read some of them as types (a map of the unevaluated schema).
_RESTRICTIONS_ONLY = ("format", "propertyNames", "unevaluatedProperties", "unevaluatedItems")
#: Keywords that make the generator assume an object or an array when a schema names no type, though
#: the schema then accepts every other JSON value too.
_SHAPE_KEYWORDS = frozenset({
    "properties", "patternProperties", "additionalProperties", "required", "minProperties", "maxProperties",
    "dependentRequired", "dependentSchemas", "items", "prefixItems", "contains", "minContains",
    "maxContains", "minItems", "maxItems", "uniqueItems"})
_TYPING_KEYWORDS = ("type", "$ref", "enum", "const")
_BRANCHES = ("allOf", "anyOf", "oneOf")
_ANNOTATIONS = ("title", "description", "$comment")


def wire_schema(schema: Any, *, value: bool = True) -> Any:
    """``schema`` as the TypedDict generator should read it. ``value``: the schema types a value of
    its own (a root, a property, items), not a branch that the enclosing schema's type also binds."""
    if not isinstance(schema, Mapping):
        return schema
    node = {k: v for k, v in schema.items() if k not in _RESTRICTIONS_ONLY}
    if "prefixItems" in node:  # a tuple: typed as the generator would, list[first item], it lies
        node.pop("prefixItems")
        node.pop("items", None)
    if "patternProperties" in node:  # keys by pattern: neither the declared keys nor one map type
        node.pop("patternProperties")
        if isinstance(node.get("additionalProperties"), Mapping):
            node.pop("additionalProperties")
    if value and _untyped(node) and (_SHAPE_KEYWORDS.intersection(node) or _untyped_branches(node)):
        return {k: v for k, v in node.items() if k in _ANNOTATIONS}  # any JSON value: Any
    out: dict[str, Any] = {}
    for key, sub in node.items():
        if key in ("properties", "$defs", "definitions") and isinstance(sub, Mapping):
            out[key] = {name: wire_schema(child) for name, child in sub.items()}
        elif key in ("items", "additionalProperties", "contains"):
            out[key] = wire_schema(sub)
        elif key in _BRANCHES and isinstance(sub, list):
            out[key] = [wire_schema(branch, value=False) for branch in sub]
        else:
            out[key] = sub
    return out


def _untyped(node: Mapping[str, Any]) -> bool:
    return not any(key in node for key in _TYPING_KEYWORDS)


def _untyped_branches(node: Mapping[str, Any]) -> bool:
    """Combinators whose branches name no type either (``allOf: [{minimum: 1}]``): any JSON value."""
    branches = [b for key in _BRANCHES for b in (node.get(key) or []) if isinstance(node.get(key), list)]
    return bool(branches) and all(isinstance(b, Mapping) and _untyped(b) and not any(k in b for k in _BRANCHES)
                                  for b in branches)


def empty_objects_as_maps(code: str) -> str:
    """An object schema without properties becomes an empty TypedDict, from which mypy lets no key be
    read although the object may have any: type it ``dict[str, Any]`` instead (wider, and honest).
    So is a class with a key Python reads under another spelling: class syntax normalises ``µ`` to
    ``μ`` (PEP 3131), so the TypedDict would promise a key the JSON never holds."""
    tree = ast.parse(code)
    bases = {base.id for node in tree.body if isinstance(node, ast.ClassDef)
             for base in node.bases if isinstance(base, ast.Name)}
    ast_lines = parser_lines(code)
    empty = [node for node in tree.body if isinstance(node, ast.ClassDef) and node.name not in bases
             and (all(isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
                      for s in node.body) or _respelt_key(node, ast_lines))]
    if not empty:
        return code
    lines = source_lines(code)
    for node in reversed(empty):
        assert node.end_lineno is not None
        lines[node.lineno - 1:node.end_lineno] = [f"{node.name}: TypeAlias = dict[str, Any]\n"]
    return add_import("".join(lines), tree, "from typing import Any, TypeAlias")


def _respelt_key(node: ast.ClassDef, ast_lines: list[str]) -> bool:
    """Whether a key of the class-syntax TypedDict ``node`` is written other than Python reads it."""
    return any(isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
               and name_as_written(ast_lines, s.target) != s.target.id for s in node.body)
