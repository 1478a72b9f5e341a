"""The MCP form of the envelope: a ``CallToolResult`` (MCP 2025-11-25) carrying the same envelope.

``isError`` mirrors ``status``; argument errors are tool-execution errors (``isError: true``), not
protocol errors. The whole envelope is always the JSON text content. ``structuredContent`` is the
envelope on errors, but on success it is the bare output: clients validate a successful
``structuredContent`` against the tool's ``outputSchema`` (the envelope's other keys then ride in
``_meta["contractgen/envelope"]``). The ``mcp`` package is imported only when these functions run.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .codes import CODES
from .envelope import untrusted
from .errors import ToolError

#: ``_meta`` key of a successful result's envelope fields (everything but the output)
META_ENVELOPE = "contractgen/envelope"
#: ``_meta`` key of a tool definition whose calls may take minutes and report progress.
META_LONG_RUNNING = "contractgen/long_running"


def to_call_tool_result(envelope: Mapping[str, Any]) -> Any:
    """``mcp.types.CallToolResult`` for an envelope returned by a guarded tool."""
    from mcp import types

    payload = dict(envelope)
    result: dict[str, Any] = {
        "content": [{"type": "text", "text": json.dumps(payload, ensure_ascii=False, sort_keys=False)}],
        "structuredContent": payload,
        "isError": payload.get("status") != "ok",
    }
    if not result["isError"]:
        result["structuredContent"] = payload.get("output")
        result["_meta"] = {META_ENVELOPE: {k: v for k, v in payload.items() if k != "output"}}
    return types.CallToolResult.model_validate(result)


def output_from_call_tool_result(result: Any) -> Any:
    """The output of another MCP server's tool result, for use inside a wrapped implementation.

    An ``isError`` result raises a ToolError: its code is kept when the remote speaks our closed
    set, and its text is quoted as untrusted data, never as our message.
    """
    data = result.model_dump(by_alias=True) if hasattr(result, "model_dump") else dict(result)
    text = "".join(c.get("text", "") for c in data.get("content") or () if c.get("type") == "text")
    structured = data.get("structuredContent")
    if not data.get("isError"):
        if structured is not None:
            return structured
        try:
            return json.loads(text)
        except ValueError:
            return {"text": text}
    code = "UNAVAILABLE"
    remote = structured if isinstance(structured, Mapping) else None
    if remote is None:
        try:
            remote = json.loads(text)
        except ValueError:
            remote = None
    error = remote.get("error") if isinstance(remote, Mapping) else None
    if isinstance(error, Mapping) and error.get("code") in CODES:
        code = str(error["code"])
    raise ToolError(f"The remote tool reported an error ({code}); its own words are in 'upstream'.",
                    code=code, upstream=untrusted(text))


#: How the MCP SDK client reports a result that breaks the tool's advertised outputSchema.
_SDK_INVALID_OUTPUT = "Invalid structured content returned by tool"


async def call_mcp_tool(session: Any, name: str, arguments: Mapping[str, Any] | None = None,
                        **options: Any) -> Any:
    """Call a tool of another MCP server through an SDK ``ClientSession`` and return its output,
    for use as the implementation of a ``wrap_tool``.

    Its errors raise a ToolError (see ``output_from_call_tool_result``); a result the SDK client
    rejects against the tool's ``outputSchema`` (the silent "200 with an empty payload" failure)
    raises UNAVAILABLE rather than an exception string; transport failures propagate to the
    wrapper's mapper.
    """
    try:
        result = await session.call_tool(name, dict(arguments or {}), **options)
    except RuntimeError as exc:
        if str(exc).startswith(_SDK_INVALID_OUTPUT):
            raise ToolError("The remote tool returned a result that does not match its output "
                            "schema. Wait a moment and call again unchanged.",
                            code="UNAVAILABLE") from exc
        raise
    return output_from_call_tool_result(result)
