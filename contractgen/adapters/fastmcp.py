"""FastMCP 4.x: guarded tools registered on a ``FastMCP`` server.

Name, title, description, input and output schema and annotations come from the contract (the same
definition ``contractgen.runtime.mcp_server`` serves); results are the runtime's MCP form (``isError``
plus the envelope, the bare output as ``structuredContent`` on success). The failure budget counts
per MCP session: the client's ``_meta["contractgen/session"]`` when it sends one, else FastMCP's
``ctx.session_id`` (stable on legacy-protocol connections, new on every request of a stateless one).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

try:
    from fastmcp import FastMCP
    from fastmcp.server.dependencies import get_context
    from fastmcp.tools import Tool, ToolResult
    from pydantic import Field
except ImportError as exc:  # pragma: no cover - exercised only without the extra installed
    raise ImportError("contractgen.adapters.fastmcp needs FastMCP: "
                      "pip install 'contractgen[fastmcp]'") from exc

from contractgen.runtime import GuardedTool
from contractgen.runtime.mcp_server import META_SESSION, META_VERSION, call_result, tool_definition

from ._guarded import call_guarded, session_from

__all__ = ["GuardedFastMCPTool", "add_guarded_tools", "fastmcp_tool"]


class GuardedFastMCPTool(Tool):
    """A FastMCP tool whose every call goes through a contractgen guard."""

    guarded: Any = Field(default=None, exclude=True)

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        tool: GuardedTool[Any, Any] = self.guarded
        session, version, request_id = _request_session()
        envelope = await call_guarded(tool, arguments, session=session, contract_version=version,
                                      call_id=request_id)
        result = call_result(envelope)
        return ToolResult(content=result.content, structured_content=result.structured_content,
                          meta=result.meta, is_error=result.is_error)


def fastmcp_tool(tool: GuardedTool[Any, Any]) -> GuardedFastMCPTool:
    """The FastMCP tool for a guarded tool, declared exactly as the contract's MCP export."""
    definition = tool_definition(tool)
    return GuardedFastMCPTool(name=definition.name, title=definition.title,
                              description=definition.description, parameters=definition.input_schema,
                              output_schema=definition.output_schema, annotations=definition.annotations,
                              meta=definition.meta, guarded=tool)


def add_guarded_tools(server: FastMCP, tools: GuardedTool[Any, Any] | Iterable[GuardedTool[Any, Any]],
                      ) -> list[GuardedFastMCPTool]:
    """Register guarded tools (one, or every generated tool you implemented) on ``server``."""
    batch = [tools] if isinstance(tools, GuardedTool) else list(tools)
    names = [t.name for t in batch]
    if len(set(names)) != len(names):
        raise ValueError("two versions of one tool name: serve one version per name over MCP")
    registered = [fastmcp_tool(t) for t in batch]
    for item in registered:
        server.add_tool(item)
    return registered


def _request_session() -> tuple[str, str | None, str | None]:
    """(budget session, declared contract version, request id) of the current FastMCP request."""
    try:
        ctx = get_context()
    except RuntimeError:  # called outside a request (a direct ``run()`` in a test or script)
        return "default", None, None
    request = getattr(ctx, "request_context", None)
    meta = getattr(request, "meta", None) or {}
    if not isinstance(meta, dict):
        meta = meta.model_dump(by_alias=True) if hasattr(meta, "model_dump") else {}
    named = session_from(meta, META_SESSION)
    version = session_from(meta, META_VERSION)
    request_id = getattr(request, "request_id", None)
    call_id = None if request_id is None else str(request_id)
    if named is not None:
        return "client:" + named, version, call_id
    return "mcp:" + str(ctx.session_id)[:200], version, call_id
