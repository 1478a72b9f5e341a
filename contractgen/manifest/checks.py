"""Checks on one manifest (meta-schema, embedded JSON Schemas, examples) and across manifests (uniqueness)."""

from __future__ import annotations

import difflib
from typing import Any, Iterable

import jsonschema
from jsonschema.exceptions import SchemaError

from ..diagnostics import Diagnostic
from ..ir import ToolVersion
from .parse import ParsedFile, escape_pointer_token


def _pointer(path: Iterable[Any]) -> str:
    return "".join("/" + escape_pointer_token(str(p)) for p in path)


def _at(item: ParsedFile, pointer: str, message: str, code: str, hint: str | None = None) -> Diagnostic:
    probe = pointer
    while probe not in item.positions and probe:
        probe = probe.rsplit("/", 1)[0]
    line, column = item.positions.get(probe, (None, None))
    return Diagnostic(item.path, pointer, message, line=line, column=column, code=code, hint=hint)


def check_file(item: ParsedFile) -> list[Diagnostic]:
    from .load import manifest_meta_schema

    if not isinstance(item.value, dict):
        return [_at(item, "", f"expected a mapping at the top of the manifest (got {_json_type(item.value)})",
                    "not-a-mapping")]
    problems: list[Diagnostic] = []
    meta = manifest_meta_schema()
    for error in jsonschema.Draft202012Validator(meta).iter_errors(item.value):
        problems.append(_meta_error_diagnostic(item, error, meta))
    if problems:
        return problems
    for key in ("input", "output"):
        problems.extend(_check_embedded_schema(item, key))
    return problems


def _meta_error_diagnostic(item: ParsedFile, error: jsonschema.ValidationError, meta: dict[str, Any]) -> Diagnostic:
    pointer = _pointer(error.absolute_path)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = sorted(error.schema.get("properties", {}))
        extras = sorted(set(error.instance) - set(allowed))
        key = extras[0] if extras else "?"
        close = difflib.get_close_matches(key, allowed, n=1)
        return _at(item, f"{pointer}/{escape_pointer_token(key)}",
                   f"unknown key '{key}' (expected one of: {', '.join(allowed)})", "unknown-key",
                   hint=f"did you mean '{close[0]}'?" if close else None)
    if error.validator == "required":
        return _at(item, pointer, f"missing required key ({error.message})", "missing-key")
    return _at(item, pointer, f"{error.message}", f"invalid-{error.validator}")


def _check_embedded_schema(item: ParsedFile, key: str) -> list[Diagnostic]:
    schema = item.value[key]
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        pointer = f"/{key}" + _pointer(exc.absolute_path)
        return [_at(item, pointer, f"expected valid JSON Schema 2020-12 ({exc.message})", "invalid-schema")]
    if schema.get("type") != "object":
        return [_at(item, f"/{key}/type", f"expected an object schema (got type {schema.get('type')!r})",
                    "schema-not-object", hint="add `type: object` and put the fields under `properties`")]
    return []


def check_set(tools: list[ToolVersion]) -> list[Diagnostic]:
    problems: list[Diagnostic] = []
    seen: dict[tuple[str, str], ToolVersion] = {}
    for tool in tools:
        key = (tool.name, tool.version)
        if key in seen:
            line, column = tool.position("/version") or (None, None)
            problems.append(Diagnostic(tool.source, "/version",
                                       f"expected one manifest per tool version (got {tool.name} {tool.version} "
                                       f"again; first in {seen[key].source})",
                                       line=line, column=column, code="duplicate-version"))
        else:
            seen[key] = tool
    return problems


def _json_type(value: Any) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null",
            int: "integer", float: "number"}.get(type(value), type(value).__name__)
