"""Recognise existing tool definitions (MCP, OpenAI function tools, Anthropic tools) in parsed JSON/YAML.

Each recognised tool becomes a format-neutral ``ImportedTool``; anything else becomes a diagnostic
that points at the offending value. Nothing here touches the file system.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from ..diagnostics import Diagnostic, Level
from .dialects import Conversion

Format = Literal["mcp", "openai", "anthropic", "openapi"]
FORMATS: tuple[str, ...] = ("auto", "mcp", "openai", "anthropic", "openapi")

#: the forms we accept, for the hint when nothing matches
KNOWN_FORMS = (
    "an MCP tool {name, description, inputSchema}, an MCP tools/list result {tools: [...]}, "
    "an OpenAI function tool {type: function, function: {name, parameters}} or its flat Responses form "
    "{type: function, name, parameters}, an Anthropic tool {name, input_schema}, or a list of these"
)

_FORMAT_LABEL = {"mcp": "MCP tool", "openai": "OpenAI function tool", "anthropic": "Anthropic tool"}


@dataclass(frozen=True)
class ImportedTool:
    """One tool definition as found in a source file, before it becomes a manifest."""

    name: str
    description: str
    input_schema: Mapping[str, Any] | None  # None: the source declared no parameters
    output_schema: Mapping[str, Any] | None
    format: Format
    source: str  # the file, as given on the command line
    pointer: str  # JSON pointer of the tool inside the file ("" for a single-tool file)
    title: str | None = None
    #: MCP-style hints, already renamed to manifest keys (read_only, destructive, idempotent, open_world)
    annotations: Mapping[str, bool] = field(default_factory=dict)
    #: the source keys the schemas came from (``inputSchema``, ``parameters``, ``output_parameters`` ...)
    input_key: str = "inputSchema"
    output_key: str | None = None
    #: MCP ``icons`` and ``_meta``, kept as they are
    icons: tuple[Mapping[str, Any], ...] = ()
    meta: Mapping[str, Any] | None = None
    #: what was read differently from how the source spelled it (pointers relative to the tool, or
    #: to ``conversion_base`` when it is set)
    conversions: tuple[Conversion, ...] = ()
    conversion_base: str | None = None
    #: the source key the name came from (OpenAPI: ``operationId``; None: derived, not written)
    name_key: str | None = "name"
    #: OpenAPI: the document's version, its documented errors, the ``x-`` keys for the manifest, and
    #: per schema section (input, output) where each schema object came from in the document
    version: str | None = None
    errors: tuple[Mapping[str, Any], ...] | None = None
    extensions: Mapping[str, Any] = field(default_factory=dict)
    origins: Mapping[str, Mapping[str, str]] = field(default_factory=dict)


    @property
    def name_pointer(self) -> str:
        """Where the name stands in the source (the tool itself when the name was derived)."""
        return f"{self.pointer}/{self.name_key}" if self.name_key else self.pointer


@dataclass
class Extraction:
    tools: list[ImportedTool] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)


@dataclass(frozen=True)
class _Where:
    """The file being read and its JSON pointer -> (line, column) table, to locate diagnostics."""

    path: str
    positions: Mapping[str, tuple[int, int]]
    format_flag: str = "--format"  # how the user named the source format, for messages

    def diagnostic(self, pointer: str, message: str, code: str, *, hint: str | None = None,
                   level: Level = Level.ERROR) -> Diagnostic:
        probe = pointer
        while probe not in self.positions and probe:
            probe = probe.rsplit("/", 1)[0]
        line, column = self.positions.get(probe, (None, None))
        return Diagnostic(self.path, pointer, message, level=level, line=line, column=column,
                          hint=hint, code=code)


def extract_tools(value: Any, *, path: str, positions: Mapping[str, tuple[int, int]] | None = None,
                  fmt: str = "auto", format_flag: str = "--format") -> Extraction:
    """Every tool definition in one parsed document (a tool, a list, or a tools/list result)."""
    where = _Where(path, positions or {}, format_flag)
    out = Extraction()
    _walk_document(value, "", where, fmt, out)
    if not out.tools and not out.diagnostics:
        out.diagnostics.append(where.diagnostic("", "expected at least one tool definition (got none)",
                                                "no-tools", hint=f"the file may hold {KNOWN_FORMS}"))
    return out


def _walk_document(value: Any, pointer: str, where: _Where, fmt: str, out: Extraction) -> None:
    if isinstance(value, list):
        for index, item in enumerate(value):
            _walk_tool(item, f"{pointer}/{index}", where, fmt, out)
        return
    if isinstance(value, dict):
        # a JSON-RPC response to tools/list: {"jsonrpc": "2.0", "id": 1, "result": {"tools": [...]}}
        if "jsonrpc" in value and isinstance(value.get("result"), dict):
            _walk_document(value["result"], f"{pointer}/result", where, fmt, out)
            return
        for container in ("tools", "functions", "function"):
            if container == "function" and not isinstance(value.get("function"), list):
                continue  # a BFCL entry {question, function: [...]}; a dict is OpenAI's Chat form
            if container in value and (container == "function" or not _looks_like_tool(value)):
                items = value[container]
                if not isinstance(items, list):
                    out.diagnostics.append(where.diagnostic(
                        f"{pointer}/{container}", f"expected a list of tools (got {_json_type(items)})",
                        "invalid-tool-list"))
                    return
                _walk_document(items, f"{pointer}/{container}", where, fmt, out)
                return
    _walk_tool(value, pointer, where, fmt, out)


def _looks_like_tool(value: Mapping[str, Any]) -> bool:
    return any(key in value for key in ("inputSchema", "input_schema", "parameters", "input_parameters",
                                        "function"))


def _walk_tool(value: Any, pointer: str, where: _Where, fmt: str, out: Extraction) -> None:
    if not isinstance(value, dict):
        out.diagnostics.append(where.diagnostic(
            pointer, f"expected a tool definition object (got {_json_type(value)})", "not-a-tool",
            hint=f"the file may hold {KNOWN_FORMS}"))
        return
    detected = _detect(value)
    if fmt != "auto" and detected != fmt:
        keys = ", ".join(sorted(map(str, value))) or "none"
        out.diagnostics.append(where.diagnostic(
            pointer, f"expected an {_FORMAT_LABEL[fmt]} here, as {where.format_flag} {fmt} says (got keys: {keys})",
            "format-mismatch",
            hint=f"this looks like an {_FORMAT_LABEL[detected]}; drop {where.format_flag} to detect it" if detected else
            _shape_hint(fmt)))
        return
    if detected is None:
        keys = ", ".join(sorted(map(str, value))) or "none"
        out.diagnostics.append(where.diagnostic(
            pointer, f"expected a tool definition (got an object with keys: {keys})", "unknown-format",
            hint=f"contractgen import reads {KNOWN_FORMS}"))
        return
    reader = {"mcp": _read_mcp, "openai": _read_openai, "anthropic": _read_anthropic}[detected]
    tool = reader(value, pointer, where, out)
    if tool is not None:
        out.tools.append(tool)


def _detect(value: Mapping[str, Any]) -> Format | None:
    if "inputSchema" in value:
        return "mcp"
    if "input_schema" in value:
        return "anthropic"
    if value.get("type") == "function" or "parameters" in value or "input_parameters" in value:
        return "openai"
    if "name" in value and "function" not in value and "type" not in value:
        # a bare {name, description}: MCP's inputSchema is required, so call it MCP and let the
        # reader say what is missing
        return "mcp"
    return None


def _shape_hint(fmt: str) -> str:
    return {
        "mcp": "an MCP tool looks like {name, description, inputSchema: {type: object, ...}}",
        "openai": "an OpenAI function tool looks like {type: function, function: {name, description, parameters}}",
        "anthropic": "an Anthropic tool looks like {name, description, input_schema: {type: object, ...}}",
    }[fmt]


def _read_mcp(value: dict[str, Any], pointer: str, where: _Where, out: Extraction) -> ImportedTool | None:
    if "inputSchema" not in value:
        out.diagnostics.append(where.diagnostic(
            pointer, "expected an MCP tool with an inputSchema (got none)", "missing-input-schema",
            hint=_shape_hint("mcp")))
        return None
    annotations_value = value.get("annotations")
    annotations: dict[str, bool] = {}
    title = _optional_string(value, "title", pointer, where, out)
    if annotations_value is not None:
        if not isinstance(annotations_value, dict):
            out.diagnostics.append(where.diagnostic(
                f"{pointer}/annotations", f"expected an object of hints (got {_json_type(annotations_value)})",
                "invalid-annotations"))
            return None
        for hint_key, manifest_key in (("readOnlyHint", "read_only"), ("destructiveHint", "destructive"),
                                       ("idempotentHint", "idempotent"), ("openWorldHint", "open_world")):
            hint_value = annotations_value.get(hint_key)
            if hint_value is None:
                continue
            if not isinstance(hint_value, bool):
                out.diagnostics.append(where.diagnostic(
                    f"{pointer}/annotations/{hint_key}", f"expected true or false (got {_json_type(hint_value)})",
                    "invalid-annotations"))
                return None
            annotations[manifest_key] = hint_value
        if title is None:
            title = _optional_string(annotations_value, "title", f"{pointer}/annotations", where, out)
    notes = read_only_implies(annotations)
    icons = value.get("icons")
    if icons is not None and not (isinstance(icons, list) and all(isinstance(i, dict) for i in icons)):
        out.diagnostics.append(where.diagnostic(
            f"{pointer}/icons", f"expected a list of icon objects (got {_json_type(icons)})", "invalid-icons",
            hint="MCP icons look like [{src: https://..., mimeType: image/png, sizes: [48x48]}]"))
        return None
    meta = value.get("_meta")
    if meta is not None and not isinstance(meta, dict):
        out.diagnostics.append(where.diagnostic(
            f"{pointer}/_meta", f"expected an object (got {_json_type(meta)})", "invalid-meta"))
        return None
    tool = _finish(value, pointer, where, out, fmt="mcp", schema_key="inputSchema",
                   output_key="outputSchema", title=title, annotations=annotations)
    if tool is None:
        return None
    return replace(tool, conversions=tuple(notes), icons=tuple(icons or ()), meta=meta)


def read_only_implies(annotations: dict[str, bool]) -> list[Conversion]:
    """MCP: destructiveHint and idempotentHint mean something only when readOnlyHint is false; a
    read-only tool changes nothing, so it is non-destructive and idempotent. Rewrites ``annotations``."""
    if annotations.get("read_only") is not True:
        return []
    notes = []
    for key, hint_key, implied in (("destructive", "destructiveHint", False), ("idempotent", "idempotentHint", True)):
        said = annotations.get(key)
        if said is not None and said != implied:
            notes.append(Conversion(f"/annotations/{hint_key}", "read-only-hint",
                                    f"{hint_key}: {str(said).lower()} ignored, as MCP says for a read-only tool: "
                                    f"read as {key}: {str(implied).lower()}"))
        elif said is None:
            notes.append(Conversion("/annotations/readOnlyHint", "read-only-hint",
                                    f"readOnlyHint: true implies {key}: {str(implied).lower()}"))
        annotations[key] = implied
    return notes


def _read_openai(value: dict[str, Any], pointer: str, where: _Where, out: Extraction) -> ImportedTool | None:
    body, body_pointer = value, pointer
    if "function" in value:  # Chat Completions form; the flat Responses form has the fields at the top
        body, body_pointer = value["function"], f"{pointer}/function"
        if not isinstance(body, dict):
            out.diagnostics.append(where.diagnostic(
                body_pointer, f"expected the function object (got {_json_type(body)})", "invalid-function",
                hint=_shape_hint("openai")))
            return None
    # function-calling dialects put the result's shape beside the parameters
    output_key = next((k for k in ("output_parameters", "response") if isinstance(body.get(k), dict)), None)
    schema_key = "input_parameters" if "input_parameters" in body and "parameters" not in body else "parameters"
    return _finish(body, body_pointer, where, out, fmt="openai", schema_key=schema_key,
                   output_key=output_key, title=None, annotations={}, schema_optional=True)


def _read_anthropic(value: dict[str, Any], pointer: str, where: _Where, out: Extraction) -> ImportedTool | None:
    return _finish(value, pointer, where, out, fmt="anthropic", schema_key="input_schema",
                   output_key=None, title=None, annotations={})


def _finish(value: dict[str, Any], pointer: str, where: _Where, out: Extraction, *, fmt: Format,
            schema_key: str, output_key: str | None, title: str | None, annotations: dict[str, bool],
            schema_optional: bool = False) -> ImportedTool | None:
    before = len(out.diagnostics)
    name = value.get("name")
    if not isinstance(name, str) or not name.strip():
        got = "none" if name is None else (repr(name) if isinstance(name, str) else _json_type(name))
        out.diagnostics.append(where.diagnostic(
            f"{pointer}/name", f"expected the tool's name as a non-empty string (got {got})", "missing-name",
            hint=_shape_hint(fmt)))
    description = _optional_string(value, "description", pointer, where, out) or ""
    input_schema = value.get(schema_key)
    if input_schema is None and not schema_optional:
        out.diagnostics.append(where.diagnostic(
            f"{pointer}/{schema_key}", f"expected the argument schema in {schema_key} (got none)",
            "missing-input-schema", hint=_shape_hint(fmt)))
    elif input_schema is not None and not isinstance(input_schema, dict):
        out.diagnostics.append(where.diagnostic(
            f"{pointer}/{schema_key}", f"expected a JSON Schema object (got {_json_type(input_schema)})",
            "invalid-input-schema", hint="tool arguments are described by an object schema: {type: object, properties: {...}}"))
    output_schema = value.get(output_key) if output_key else None
    if output_schema is not None and not isinstance(output_schema, dict):
        out.diagnostics.append(where.diagnostic(
            f"{pointer}/{output_key}", f"expected a JSON Schema object (got {_json_type(output_schema)})",
            "invalid-output-schema"))
    if len(out.diagnostics) > before:
        return None
    assert isinstance(name, str)
    return ImportedTool(name=name, description=description, input_schema=input_schema,
                        output_schema=output_schema, format=fmt, source=where.path, pointer=pointer,
                        title=title, annotations=annotations, input_key=schema_key, output_key=output_key)


def _optional_string(value: Mapping[str, Any], key: str, pointer: str, where: _Where,
                     out: Extraction) -> str | None:
    found = value.get(key)
    if found is None:
        return None
    if not isinstance(found, str):
        out.diagnostics.append(where.diagnostic(
            f"{pointer}/{key}", f"expected a string (got {_json_type(found)})", f"invalid-{key}"))
        return None
    return found


def _json_type(value: Any) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null",
            int: "integer", float: "number"}.get(type(value), type(value).__name__)
