"""The two agent-loop scenarios every framework adapter is tested with, framework-free.

A scripted model reads only the tool results its framework put in front of it and reacts like a
well-behaved model: it calls again unchanged on ``retry_later``, fixes the named field on
``fix_arguments``, and stops on anything else (``stop_and_tell_user``, success). Tools are the
bundled ``get_exchange_rate`` contract (failure budget 2) with an upstream that is down or up.
"""

from __future__ import annotations

import json
from typing import Any, Self

from contractgen.runtime import GuardedTool
from generated import get_exchange_rate_v1 as rates

#: the most tool calls a scripted model makes, so a missing stop cannot loop forever
MAX_CALLS = 5
FIRST_CALL = {"down": {"base": "EUR", "quote": "USD"}, "bad_argument": {"base": "euro", "quote": "USD"}}
FIXED_CALL = {"base": "EUR", "quote": "USD"}
RATE = {"base": "EUR", "quote": "USD", "rate": 1.08, "date": "2026-11-27"}


def rates_tool(upstream: str, **options: Any) -> GuardedTool[Any, Any]:
    """A fresh guarded get_exchange_rate (fresh budget store) whose provider is ``down`` or ``up``."""

    def lookup(args: rates.GetExchangeRateV1Input) -> dict[str, Any]:
        if upstream == "down":
            raise rates.ProviderUnavailable()
        return {**RATE, "base": args.base.root, "quote": args.quote.root}

    return rates.get_exchange_rate.implement(lookup, **options)


class Traced:
    """A rates tool whose guard reports to a real OpenTelemetry SDK, spans kept in memory."""

    def __init__(self, upstream: str) -> None:
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

        from contractgen.runtime.hooks import CallHooks
        from contractgen.runtime.telemetry import Telemetry

        self.spans = InMemorySpanExporter()
        tracer_provider = TracerProvider()
        tracer_provider.add_span_processor(SimpleSpanProcessor(self.spans))
        telemetry = Telemetry(tracer_provider, MeterProvider())
        self.tool = rates_tool(upstream, hooks=CallHooks(telemetry=telemetry))

    def attribute(self, name: str) -> list[Any]:
        """One attribute of every finished span of the tool, in call order."""
        return [span.attributes.get(name) for span in self.spans.get_finished_spans()]


def next_arguments(scenario: str, received: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The scripted model's next call given the envelopes it has read so far, or None to answer."""
    if not received:
        return dict(FIRST_CALL[scenario])
    if len(received) >= MAX_CALLS:
        return None
    last = received[-1]
    if last.get("status") != "error":
        return None
    error = last["error"]
    if error["action"] == "retry_later":
        return dict(FIRST_CALL[scenario])  # unchanged, as the action says
    if error["action"] == "fix_arguments" and error.get("field") == "/base":
        return dict(FIXED_CALL)
    return None


def final_text(received: list[dict[str, Any]]) -> str:
    last = received[-1] if received else {}
    return "rate: " + str(last["output"]["rate"]) if last.get("status") == "ok" else "tool is not working"


def as_envelope(content: Any) -> dict[str, Any]:
    """A tool result as the model read it (JSON text or an already-decoded object)."""
    return json.loads(content) if isinstance(content, str) else dict(content)


def assert_down_scenario(received: list[dict[str, Any]], calls_made: int) -> None:
    """The model got retry_later, then stop_and_tell_user at the budget, and made no further call."""
    assert [e["error"]["action"] for e in received] == ["retry_later", "stop_and_tell_user"], received
    assert [e["error"]["code"] for e in received] == ["UNAVAILABLE", "UNAVAILABLE"]
    assert received[1]["error"]["budget"] == {"consecutive_failures": 2, "limit": 2, "exhausted": True}
    assert received[1]["error"]["retryable"] is False
    assert calls_made == 2


def assert_bad_argument_scenario(received: list[dict[str, Any]], calls_made: int) -> None:
    """The model got fix_arguments naming /base, fixed the call, and the fixed call succeeded."""
    first, second = received
    assert first["error"]["code"] == "INVALID_ARGUMENT" and first["error"]["action"] == "fix_arguments"
    assert first["error"]["field"] == "/base" and first["error"]["constraint"] == "pattern"
    assert second["status"] == "ok" and second["output"]["base"] == "EUR"
    assert calls_made == 2


class ServedOverHttp:
    """A FastMCP server served over real HTTP (uvicorn, a free local port) in a background thread."""

    def __init__(self, server: Any) -> None:
        import socket
        import threading
        import time

        import uvicorn

        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        self.url = f"http://127.0.0.1:{port}/mcp"
        config = uvicorn.Config(server.http_app(), host="127.0.0.1", port=port, log_level="warning")
        self.uvicorn = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.uvicorn.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.uvicorn.started:
            assert self.thread.is_alive() and time.monotonic() < deadline, "the HTTP server did not start"
            time.sleep(0.02)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.uvicorn.should_exit = True
        self.thread.join(timeout=30)
