"""Telemetry attributes are bounded: a call id or a caller of 5 MB (an MCP client chooses its own
request id) is recorded capped and on one line, like the arguments, on direct calls and over a real
MCP session."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk")

from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from contractgen.runtime import Contract, guard
from contractgen.runtime.hooks import CallHooks
from contractgen.runtime.telemetry import (
    ARGUMENTS_CAP,
    CALLER,
    GEN_AI_TOOL_CALL_ARGUMENTS,
    GEN_AI_TOOL_CALL_ID,
    Telemetry,
)

HUGE = "x" * 5_000_000
#: what docs/runtime.md promises for a call id and a caller (telemetry.IDENTIFIER_CAP)
IDENTIFIER_CAP = 256
CONTRACT = Contract(
    name="lookup",
    version="1.0.0",
    summary="s",
    description="d",
    input_schema={"type": "object"},
    output_schema={"type": "object"},
)


def traced() -> tuple[Any, InMemorySpanExporter]:
    spans = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    telemetry = Telemetry(provider, MeterProvider(metric_readers=[InMemoryMetricReader()]))
    return guard(
        CONTRACT, lambda arguments: {"ok": True}, hooks=CallHooks(telemetry=telemetry)
    ), spans


def test_a_huge_call_id_and_caller_are_recorded_capped() -> None:
    tool, spans = traced()
    assert tool({"q": HUGE}, call_id=HUGE, caller="agent\n" + HUGE)["status"] == "ok"
    assert (
        asyncio.run(tool.acall({}, call_id=HUGE + "\r\nforged: 1", caller=HUGE))["status"] == "ok"
    )
    recorded = spans.get_finished_spans()
    assert len(recorded) == 2
    for span in recorded:
        for key in (GEN_AI_TOOL_CALL_ID, CALLER):
            value = span.attributes[key]
            assert 0 < len(value) <= IDENTIFIER_CAP and "\n" not in value and "\r" not in value, key
        assert len(span.attributes.get(GEN_AI_TOOL_CALL_ARGUMENTS, "")) <= ARGUMENTS_CAP + 100
    assert recorded[0].attributes[CALLER].startswith("agent x")


def test_a_huge_mcp_request_id_is_recorded_capped() -> None:
    """Raw JSON-RPC over the SDK's in-memory transport: its client numbers its own requests."""
    pytest.importorskip("mcp")
    import anyio
    import mcp_types as types
    from mcp.shared.memory import create_client_server_memory_streams
    from mcp.shared.message import SessionMessage

    from contractgen.runtime.mcp_server import build_server

    tool, spans = traced()
    server = build_server([tool])

    async def main() -> Any:
        async with (
            create_client_server_memory_streams() as (client, served),
            anyio.create_task_group() as group,
        ):
            group.start_soon(
                lambda: server.run(served[0], served[1], server.create_initialization_options())
            )
            read, write = client
            await write.send(
                SessionMessage(
                    types.JSONRPCRequest(
                        jsonrpc="2.0",
                        id=0,
                        method="initialize",
                        params={
                            "protocolVersion": "2025-11-25",
                            "capabilities": {},
                            "clientInfo": {"name": "t", "version": "1"},
                        },
                    )
                )
            )
            await read.receive()
            await write.send(
                SessionMessage(
                    types.JSONRPCNotification(jsonrpc="2.0", method="notifications/initialized")
                )
            )
            await write.send(
                SessionMessage(
                    types.JSONRPCRequest(
                        jsonrpc="2.0",
                        id=HUGE,
                        method="tools/call",
                        params={"name": "lookup", "arguments": {}},
                    )
                )
            )
            answer = await read.receive()
            group.cancel_scope.cancel()
            return answer.message

    answer = anyio.run(main)
    assert answer.id == HUGE and answer.result["structuredContent"] == {"ok": True}
    (span,) = spans.get_finished_spans()
    assert 0 < len(span.attributes[GEN_AI_TOOL_CALL_ID]) <= IDENTIFIER_CAP
