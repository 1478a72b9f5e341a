"""Tool definitions for the three consumers: MCP ``Tool``, OpenAI function tool (plus strict variant), Anthropic.

OpenAI strict mode is offered only when the schema already satisfies it (every object closed with
``additionalProperties: false``, every property required, only supported keywords); otherwise the
reason is recorded instead. We never rewrite a schema to make it strict: that would change the contract.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..runtime.contract import Contract
from ..runtime.mcp import META_LONG_RUNNING
from .pyliteral import Code, json_plain

#: Module constants the exports refer to instead of repeating the data.
DESCRIPTION = Code("DESCRIPTION")
INPUT_SCHEMA = Code("INPUT_SCHEMA")
OUTPUT_SCHEMA = Code("OUTPUT_SCHEMA")

#: Keywords OpenAI's strict mode accepts (structured outputs documentation, 2025).
STRICT_KEYWORDS = frozenset({
    "type", "properties", "required", "additionalProperties", "enum", "const", "anyOf", "$ref", "$defs",
    "items", "description", "title", "pattern", "format", "multipleOf", "maximum", "exclusiveMaximum",
    "minimum", "exclusiveMinimum", "minItems", "maxItems",
})
STRICT_FORMATS = frozenset({"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"})
#: Annotation-only keywords dropped from the strict variant (they do not change what validates).
ANNOTATIONS = frozenset({"examples", "$comment"})
_SCHEMA_MAPS = ("properties", "$defs", "definitions")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SCHEMA_SINGLE = ("items", "not", "if", "then", "else", "additionalProperties", "contains",
                  "propertyNames", "unevaluatedProperties", "unevaluatedItems")


def mcp_tool(contract: Contract, description: str = DESCRIPTION) -> dict[str, Any]:
    tool: dict[str, Any] = {"name": contract.name}
    if contract.title:
        tool["title"] = contract.title
    tool["description"] = description
    tool["inputSchema"] = INPUT_SCHEMA
    tool["outputSchema"] = OUTPUT_SCHEMA
    hints = contract.annotations
    annotations: dict[str, Any] = {}
    if contract.title:
        annotations["title"] = contract.title
    for key, value in (("readOnlyHint", hints.read_only), ("destructiveHint", hints.destructive),
                       ("idempotentHint", hints.idempotent), ("openWorldHint", hints.open_world)):
        if value is not None:
            annotations[key] = value
    if annotations:
        tool["annotations"] = annotations
    if contract.icons:
        tool["icons"] = [dict(icon) for icon in contract.icons]
    meta = dict(contract.meta or {})
    if contract.timeout.long_running:  # clients should wait and show progress, not give up early
        meta[META_LONG_RUNNING] = True
    if meta:
        tool["_meta"] = meta
    return tool


def openai_tool(contract: Contract, description: str = DESCRIPTION) -> dict[str, Any]:
    """Chat Completions function tool: ``{"type": "function", "function": {...}}``."""
    return {"type": "function", "function": {
        "name": contract.name, "description": description, "parameters": INPUT_SCHEMA}}


def openai_strict_tool(contract: Contract, description: str = DESCRIPTION) -> tuple[dict[str, Any] | None, str | None]:
    """The strict-mode variant, or ``(None, why not)``."""
    schema = json_plain(contract.input_schema)
    problem = strict_problem(schema)
    if problem is not None:
        return None, problem
    return {"type": "function", "function": {
        "name": contract.name, "description": description, "parameters": _strip_annotations(schema),
        "strict": True}}, None


def anthropic_tool(contract: Contract, description: str = DESCRIPTION) -> dict[str, Any]:
    return {"name": contract.name, "description": description, "input_schema": INPUT_SCHEMA}


def strict_problem(schema: Mapping[str, Any], pointer: str = "") -> str | None:
    """Why ``schema`` cannot be used in OpenAI strict mode, as ``#/pointer: reason``; ``None`` if it can."""
    for key, value in schema.items():
        if key in ANNOTATIONS:
            continue
        if key not in STRICT_KEYWORDS:
            return f"#{pointer}/{key}: keyword '{key}' is not supported in strict mode"
        if key == "format" and value not in STRICT_FORMATS:
            return f"#{pointer}/format: format '{value}' is not supported in strict mode"
    kinds = schema.get("type")
    is_object = kinds == "object" or (isinstance(kinds, list) and "object" in kinds) or "properties" in schema
    if is_object:
        if schema.get("additionalProperties") is not False:
            return f"#{pointer}: objects need additionalProperties: false in strict mode"
        missing = [name for name in schema.get("properties", {}) if name not in set(schema.get("required", ()))]
        if missing:
            return f"#{pointer}/properties/{missing[0]}: optional property; strict mode needs every property required"
    for key in _SCHEMA_MAPS:
        for name, sub in (schema.get(key) or {}).items():
            if isinstance(sub, Mapping) and (found := strict_problem(sub, f"{pointer}/{key}/{name}")):
                return found
    for key in _SCHEMA_LISTS:
        for index, sub in enumerate(schema.get(key) or ()):
            if isinstance(sub, Mapping) and (found := strict_problem(sub, f"{pointer}/{key}/{index}")):
                return found
    for key in _SCHEMA_SINGLE:
        sub = schema.get(key)
        if isinstance(sub, Mapping) and (found := strict_problem(sub, f"{pointer}/{key}")):
            return found
    return None


def _strip_annotations(node: Any, in_map: bool = False) -> Any:
    if isinstance(node, dict):
        return {k: v if k in ("enum", "const", "default") and not in_map else _strip_annotations(v, k in _SCHEMA_MAPS)
                for k, v in node.items() if in_map or k not in ANNOTATIONS}
    if isinstance(node, list):
        return [_strip_annotations(v) for v in node]
    return node
