"""An MCP server and the SDK's client connected in memory, for tests that need a real session."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
from mcp import ClientSession
from mcp.shared.memory import create_client_server_memory_streams


@asynccontextmanager
async def connected(server: Any) -> AsyncIterator[ClientSession]:
    """An initialized client session talking to ``server`` (a low-level ``Server``)."""
    async with create_client_server_memory_streams() as (client_streams, server_streams), \
            anyio.create_task_group() as group:
        group.start_soon(lambda: server.run(server_streams[0], server_streams[1],
                                            server.create_initialization_options()))
        async with ClientSession(*client_streams) as session:
            await session.initialize()
            yield session
        group.cancel_scope.cancel()


def error_texts(server: Any, tool: str, calls: list[Any]) -> list[str]:
    """Each call of ``tool`` over a real MCP session, which must come back as an error result: the
    result as the client read it, serialized."""

    async def main() -> list[str]:
        texts = []
        async with connected(server) as session:
            for args in calls:
                result = await session.call_tool(tool, args)
                assert result.is_error is True
                texts.append(result.model_dump_json())
        return texts

    return anyio.run(main)
