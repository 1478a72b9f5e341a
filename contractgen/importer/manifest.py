"""Turn one ``ImportedTool`` into a starting manifest: the mapping, and its commented YAML text.

What the source cannot tell us gets an explicit, commented default for the author to edit: a
permissive output schema, a default error section, and the version 1.0.0.
"""

from __future__ import annotations

import re
from typing import Any

from ..naming import TOOL_NAME_PATTERN
from .formats import ImportedTool
from .yaml_text import dump_block

SUMMARY_MAX = 200
TITLE_MAX = 100
NO_DESCRIPTION = "TODO: say what this tool does and when to use it (the source had no description)."

_PERMISSIVE_OUTPUT: dict[str, Any] = {
    "type": "object",
    "description": "TODO: describe what a successful call returns.",
    "additionalProperties": True,
}

# Default errors, by code. Class names avoid the runtime's own names (Timeout, ToolError, ...).
_ALWAYS = (
    {
        "class": "InvalidArguments",
        "code": "INVALID_ARGUMENT",
        "message": "An argument is not acceptable to this tool. Fix the argument this error names, then "
                   "call again.",
        "description": "Imported default: raise it for argument problems the input schema cannot express.",
    },
    {
        "class": "InternalFailure",
        "code": "INTERNAL",
        "message": "The tool failed unexpectedly. Do not call it again for this request; tell the user "
                   "it is not working right now.",
        "description": "Imported default: the guard already reports unexpected exceptions as INTERNAL; "
                       "raise it to say so explicitly.",
    },
)
_OPEN_WORLD = (
    {
        "class": "UpstreamUnavailable",
        "code": "UNAVAILABLE",
        "message": "The service behind this tool is temporarily unavailable. Wait a little, then call "
                   "again with the same arguments.",
        "description": "Imported default: raise it when the remote service is down or unreachable.",
    },
    {
        "class": "UpstreamTimeout",
        "code": "TIMEOUT",
        "message": "The service behind this tool did not answer in time. Wait a little, then call again "
                   "with the same arguments.",
        "description": "Imported default: raise it when the remote service does not answer in time.",
    },
    {
        "class": "UpstreamRateLimited",
        "code": "RATE_LIMITED",
        "message": "Too many calls to the service behind this tool. Wait retry_after seconds, then call "
                   "again with the same arguments.",
        "description": "Imported default: raise it (with retry_after) when the remote service throttles.",
    },
)

_TIMEOUT_NOT_IDEMPOTENT: dict[str, Any] = {
    "class": "UpstreamTimeout",
    "code": "TIMEOUT",
    "message": "The service behind this tool did not answer in time, and the call may have taken effect. "
               "Do not call it again; tell the user what happened.",
    "retryable": False,
    "action": "stop_and_tell_user",
    "description": "Imported default for a tool that is not idempotent: raise it when the remote service "
                   "does not answer in time.",
}

_SENTENCE_END = re.compile(r"(?<=[.!?])\s")


def portable_name(name: str, prefix: str = "") -> str:
    """Map a tool name onto ``^[a-zA-Z0-9_-]{1,64}$``: other characters (dots, spaces) become ``_``."""
    mapped = re.sub(r"[^a-zA-Z0-9_-]+", "_", prefix + name.strip()).strip("_")
    return (mapped or "tool")[:64]


def is_portable(name: str) -> bool:
    return TOOL_NAME_PATTERN.match(name) is not None


def first_sentence(text: str) -> str:
    """The description's first sentence, on one line, at most ``SUMMARY_MAX`` characters."""
    flat = " ".join(text.split())
    sentence = _SENTENCE_END.split(flat, 1)[0] if flat else ""
    if len(sentence) <= SUMMARY_MAX:
        return sentence
    cut = sentence[: SUMMARY_MAX - 3]
    if " " in cut:
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:") + "..."


def is_open_world(tool: ImportedTool) -> bool:
    """MCP's openWorldHint defaults to true; OpenAI and Anthropic say nothing, so assume it too."""
    return tool.annotations.get("open_world", True)


def build_manifest(tool: ImportedTool, name: str, version: str, *, input_schema: dict[str, Any] | None = None,
                   output_schema: dict[str, Any] | None = None) -> dict[str, Any]:
    """The manifest mapping; ``input_schema``/``output_schema`` are the converted source schemas."""
    description = tool.description.strip() or NO_DESCRIPTION
    manifest: dict[str, Any] = {"name": name, "version": version}
    title = " ".join((tool.title or "").split())
    if title:
        manifest["title"] = title[:TITLE_MAX].rstrip()
    manifest["summary"] = first_sentence(description)
    manifest["description"] = description
    manifest["input"] = normalised_input_schema(tool, input_schema)
    output = output_schema if output_schema is not None else tool.output_schema
    manifest["output"] = dict(output) if output is not None else dict(_PERMISSIVE_OUTPUT)
    upstream: list[dict[str, Any]] = list(_OPEN_WORLD) if is_open_world(tool) else []
    if tool.annotations.get("idempotent") is False:
        # a timed-out call may have taken effect: repeating it may repeat the effect
        upstream = [_TIMEOUT_NOT_IDEMPOTENT if e["code"] == "TIMEOUT" else e for e in upstream]
    errors = [dict(error) for error in [*_ALWAYS, *upstream]]
    for documented in tool.errors or ():  # the source's own errors replace the default of their code
        errors = [e for e in errors if e["code"] != documented["code"]] + [dict(documented)]
    manifest["errors"] = errors
    if tool.annotations:
        manifest["annotations"] = {key: tool.annotations[key]
                                   for key in ("read_only", "destructive", "idempotent", "open_world")
                                   if key in tool.annotations}
    if tool.icons:
        manifest["icons"] = [dict(icon) for icon in tool.icons]
    if tool.meta:
        manifest["meta"] = dict(tool.meta)
    manifest.update(tool.extensions)
    return manifest


def normalised_input_schema(tool: ImportedTool, converted: dict[str, Any] | None = None) -> dict[str, Any]:
    """The source's argument schema; an absent one (OpenAI allows it) means "no arguments"."""
    source = converted if converted is not None else tool.input_schema
    if source is None:
        return {"type": "object", "properties": {}}
    schema = dict(source)
    if "type" not in schema:
        # MCP and both vendors require an object root; plenty of real definitions leave `type` out
        schema = {"type": "object", **schema}
    return schema


def schema_comment(schema_ref: str | None) -> str:
    """The first line of a written manifest: the editor's schema, or where to map it once."""
    if schema_ref is not None:
        return f"# yaml-language-server: $schema={schema_ref}\n"
    return ("# Editor completion: map contractgen's installed manifest.schema.json to these files "
            "(docs/manifest.md, Editor setup).\n")


def render_manifest(manifest: dict[str, Any], tool: ImportedTool, *, schema_ref: str | None,
                    original_name: str, conversions: list[str] | tuple[str, ...] = ()) -> str:
    """The manifest as commented YAML: what was imported from where, and what to edit next."""
    where = f"{tool.source}#{tool.pointer}" if tool.pointer else tool.source
    label = {"mcp": "an MCP tool", "openai": "an OpenAI function tool", "anthropic": "an Anthropic tool",
             "openapi": "an OpenAPI operation"}
    parts = [
        schema_comment(schema_ref),
        f"# Imported by `contractgen import` from {label[tool.format]} in {_one_line(where)}.\n",
        "# A starting point: review every section, then run `contractgen check` and `contractgen build`.\n",
    ]
    if original_name != manifest["name"]:
        parts.append(f"# The source called it {_one_line(original_name)!r}, which is not a portable tool name\n"
                     "# (^[a-zA-Z0-9_-]{1,64}$): callers must use the name below.\n")
    if conversions:
        parts.append("# Converted on import, so that the guard checks what the source meant:\n")
        parts.extend(f"#   - {_one_line(message)}\n" for message in conversions)
    parts.append(dump_block("name", manifest["name"]))
    parts.append("# Bump the major version for any change that breaks callers (see `contractgen diff`).\n")
    parts.append(dump_block("version", manifest["version"]))
    if "title" in manifest:
        parts.append(dump_block("title", manifest["title"]))
    parts.append("# summary: one sentence (the description's first); description: when to use the tool.\n")
    parts.append(dump_block("summary", manifest["summary"]))
    if tool.description.strip():
        parts.append(dump_block("description", manifest["description"]))
    else:
        parts.append("# TODO: the source had no description; the model reads this one.\n")
        parts.append(dump_block("description", manifest["description"]))
    parts.append("# input: the arguments, JSON Schema 2020-12, as the source declared them. Consider\n"
                 "# `additionalProperties: false`, so that misspelled argument names are rejected.\n")
    parts.append(dump_block("input", manifest["input"]))
    if tool.output_schema is None:
        parts.append("# output: TODO. The source declared no output schema, so this accepts any object.\n"
                     "# Replace it with the real shape: every result is checked against it before it is returned.\n")
    else:
        parts.append("# output: what a successful call returns; every result is checked against it.\n")
    parts.append(dump_block("output", manifest["output"]))
    if tool.errors is not None:
        parts.append("# errors: the documented error responses (their status in the description), and imported\n"
                     "# defaults for the codes the document does not name. Rewrite the messages: the model\n"
                     "# reads them and acts on them.\n")
    else:
        parts.append("# errors: every error the tool can return. These are imported defaults: keep the ones\n"
                     "# that apply, rewrite the messages (the model reads them and acts on them), and add the\n"
                     "# tool's own, such as NOT_FOUND or CONFLICT with a `field` pointing at the argument.\n")
    parts.append(dump_block("errors", manifest["errors"]))
    if "annotations" in manifest:
        parts.append("# annotations: behaviour hints, " + ("from the HTTP method.\n" if tool.format == "openapi"
                                                          else "imported from the MCP tool's annotations.\n"))
        parts.append(dump_block("annotations", manifest["annotations"]))
    else:
        parts.append("# annotations: behaviour hints for clients; the source gave none.\n"
                     "# annotations: {read_only: false, destructive: false, idempotent: false, open_world: true}\n")
    if "icons" in manifest:
        parts.append("# icons: the MCP tool's icons, served with the tool.\n")
        parts.append(dump_block("icons", manifest["icons"]))
    if "meta" in manifest:
        parts.append("# meta: the MCP tool's _meta, served with the tool.\n")
        parts.append(dump_block("meta", manifest["meta"]))
    for key, value in tool.extensions.items():
        parts.append(f"# {key}: how a call goes back to HTTP (contractgen check ignores x- keys; the HTTP\n"
                     "# implementation that `contractgen build --http` writes reads it).\n")
        parts.append(dump_block(key, value))
    parts.append("# retry: consecutive retry_later failures allowed before the model is told to stop.\n"
                 "# retry: {failure_budget: 3}\n"
                 "# timeout: the per-call deadline in seconds.\n"
                 "# timeout: {seconds: 30}\n"
                 "# examples: calls the model can copy; each is checked against `input`.\n"
                 "# examples: [{summary: ..., arguments: {...}}]\n")
    return "".join(parts)


def _one_line(text: str) -> str:
    """Text safe inside a YAML comment: one line of printable characters."""
    return "".join(ch if ch.isprintable() else "?" for ch in " ".join(text.split()))
