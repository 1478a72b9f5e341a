"""OpenTelemetry for guarded calls, with the SDK's in-memory exporters: GenAI span attributes,
contractgen's own attributes, metrics, nesting, and that no sensitive argument reaches a span."""

from __future__ import annotations

import asyncio
import json
import warnings
from dataclasses import replace
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk")

from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from contractgen.runtime import (
    Breaker,
    Contract,
    Dependency,
    RetryPolicy,
    Timeout,
    ToolError,
    guard,
)
from contractgen.runtime import telemetry as tm
from contractgen.runtime.breaker import InMemoryBreakerStore
from contractgen.runtime.hooks import CallHooks

SECRET = "hunter2-very-secret"
INPUT = {"type": "object", "additionalProperties": False, "required": ["city"],
         "properties": {"city": {"type": "string"}, "password": {"type": "string"},
                        "card": {"type": "string", "x-sensitive": True},
                        "note": {"type": "object", "properties": {"pin": {"type": "string", "writeOnly": True}}}}}


class Otel:
    def __init__(self) -> None:
        self.spans = InMemorySpanExporter()
        self.tracer_provider = TracerProvider()
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(self.spans))
        self.reader = InMemoryMetricReader()
        self.meter_provider = MeterProvider(metric_readers=[self.reader])
        self.telemetry = tm.Telemetry(self.tracer_provider, self.meter_provider)

    def metrics(self) -> dict[str, Any]:
        data = self.reader.get_metrics_data()
        return {m.name: m for rm in data.resource_metrics for sm in rm.scope_metrics for m in sm.metrics}

    def points(self, name: str) -> dict[tuple[tuple[str, Any], ...], Any]:
        return {tuple(sorted(p.attributes.items())): p for p in self.metrics()[name].data.data_points}


def contract(budget: int | None = 2, dependency: Dependency | None = None) -> Contract:
    return Contract(name="weather", version="2.1.0", summary="s", description="d", input_schema=INPUT,
                    output_schema={"type": "object"}, retry=RetryPolicy(failure_budget=budget),
                    dependency=dependency)


def test_attribute_names_match_the_semantic_conventions() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # reading the constants must not warn (calling the enum does)
        from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as gen_ai
        from opentelemetry.semconv.attributes import error_attributes

        assert tm.GEN_AI_OPERATION_NAME == gen_ai.GEN_AI_OPERATION_NAME
        assert tm.EXECUTE_TOOL == gen_ai.GenAiOperationNameValues.EXECUTE_TOOL.value
        assert tm.GEN_AI_TOOL_NAME == gen_ai.GEN_AI_TOOL_NAME
        assert tm.GEN_AI_TOOL_CALL_ID == gen_ai.GEN_AI_TOOL_CALL_ID
        assert tm.GEN_AI_TOOL_TYPE == gen_ai.GEN_AI_TOOL_TYPE
        assert tm.GEN_AI_TOOL_CALL_ARGUMENTS == gen_ai.GEN_AI_TOOL_CALL_ARGUMENTS
        assert tm.ERROR_TYPE == error_attributes.ERROR_TYPE


def test_one_span_per_call_with_genai_and_contractgen_attributes() -> None:
    otel = Otel()
    inner = otel.tracer_provider.get_tracer("impl")

    def forecast(arguments: dict[str, Any]) -> dict[str, Any]:
        with inner.start_as_current_span("http GET"):
            return {"temp": 21}
    tool = guard(contract(), forecast, hooks=CallHooks(telemetry=otel.telemetry))
    arguments = {"city": "Oslo", "password": SECRET, "card": SECRET, "note": {"pin": SECRET}}
    assert tool(arguments, call_id="call_7", caller="agent:planner/user:42")["status"] == "ok"
    http, span = otel.spans.get_finished_spans()
    assert span.name == "execute_tool weather" and span.kind is SpanKind.INTERNAL
    assert http.parent is not None and http.parent.span_id == span.context.span_id  # nested
    attrs = dict(span.attributes)
    assert attrs["gen_ai.operation.name"] == "execute_tool"
    assert attrs["gen_ai.tool.name"] == "weather" and attrs["gen_ai.tool.call.id"] == "call_7"
    assert attrs["contractgen.contract.version"] == "2.1.0"
    assert attrs["contractgen.code"] == "OK" and attrs["contractgen.validation"] == "passed"
    assert attrs["contractgen.caller"] == "agent:planner/user:42"
    assert json.loads(attrs["gen_ai.tool.call.arguments"]) == {
        "city": "Oslo", "password": "[redacted]", "card": "[redacted]", "note": {"pin": "[redacted]"}}
    assert span.status.status_code is StatusCode.UNSET
    assert not any(SECRET in str(v) for s in (http, span) for v in s.attributes.values())


@pytest.mark.parametrize("seconds", [None, 5.0])  # inline, and on a worker thread under a deadline
@pytest.mark.parametrize("asynchronous", [False, True])
def test_the_trace_says_what_each_validation_found(seconds: float | None, asynchronous: bool) -> None:
    """An invalid result is recorded as such (it was recorded as passed), on every way a call runs."""
    otel = Otel()
    results = iter([{"temp": 21}, {"temp": "warm"}])

    def forecast(_: Any) -> Any:
        return next(results)

    async def aforecast(_: Any) -> Any:
        return next(results)

    the_contract = replace(contract(), timeout=Timeout(seconds),
                           output_schema={"type": "object", "properties": {"temp": {"type": "number"}}})
    tool = guard(the_contract, aforecast if asynchronous else forecast, hooks=CallHooks(telemetry=otel.telemetry))
    for _ in range(2):
        envelope = asyncio.run(tool.acall({"city": "Oslo"})) if asynchronous else tool({"city": "Oslo"})
    assert envelope["status"] == "error"
    good, bad = otel.spans.get_finished_spans()
    found = [(s.attributes["contractgen.validation"], s.attributes["contractgen.validation.input"],
              s.attributes["contractgen.validation.output"]) for s in (good, bad)]
    assert found == [("passed", "passed", "passed"), ("output_invalid", "passed", "failed")]


def test_error_spans_and_metrics_carry_code_budget_and_validation() -> None:
    otel = Otel()

    async def down(_: Any) -> Any:
        raise ToolError("upstream down", code="UNAVAILABLE")
    tool = guard(contract(budget=2), down, hooks=CallHooks(telemetry=otel.telemetry))
    for _ in range(2):
        asyncio.run(tool.acall({"city": "Oslo", "password": SECRET}, session="s"))
    asyncio.run(tool.acall({"town": "Oslo", "password": SECRET}, session="s"))  # invalid arguments
    first, second, invalid = otel.spans.get_finished_spans()
    assert first.attributes["contractgen.code"] == "UNAVAILABLE"
    assert first.attributes["error.type"] == "UNAVAILABLE"
    assert first.attributes["contractgen.category"] == "transient"
    assert first.attributes["contractgen.action"] == "retry_later"
    assert first.attributes["contractgen.budget.consecutive_failures"] == 1
    assert first.attributes["contractgen.budget.limit"] == 2
    assert first.attributes["contractgen.budget.exhausted"] is False
    assert second.attributes["contractgen.budget.exhausted"] is True
    assert second.attributes["contractgen.action"] == "stop_and_tell_user"
    assert first.status.status_code is StatusCode.ERROR
    assert invalid.attributes["contractgen.validation"] == "input_invalid"
    assert invalid.attributes["contractgen.code"] == "INVALID_ARGUMENT"
    assert (first.attributes["contractgen.validation.input"], first.attributes["contractgen.validation.output"]) \
        == ("passed", "not_run")  # the tool raised: its result was never checked
    assert (invalid.attributes["contractgen.validation.input"], invalid.attributes["contractgen.validation.output"]) \
        == ("failed", "not_run")
    for span in (first, second, invalid):
        assert not any(SECRET in str(v) for v in span.attributes.values())
    calls = otel.points("contractgen.tool.calls")
    assert calls[(("contractgen.code", "UNAVAILABLE"), ("gen_ai.tool.name", "weather"))].value == 2
    assert calls[(("contractgen.code", "INVALID_ARGUMENT"), ("gen_ai.tool.name", "weather"))].value == 1
    (spent,) = otel.points("contractgen.budget.exhaustions").values()
    assert spent.value == 1 and dict(spent.attributes) == {"gen_ai.tool.name": "weather"}
    durations = otel.points("contractgen.tool.duration")
    assert sum(p.count for p in durations.values()) == 3
    assert all(p.sum >= 0 and list(p.explicit_bounds) == list(tm.DURATION_BUCKETS) for p in durations.values())
    assert otel.metrics()["contractgen.tool.duration"].unit == "s"


def test_breaker_state_and_transitions() -> None:
    otel = Otel()
    breakers = InMemoryBreakerStore()
    dependency = Dependency("met-api", Breaker(failures=2, window=60, open_for=30))

    def down(_: Any) -> Any:
        raise ToolError("upstream down", code="UNAVAILABLE")
    tool = guard(contract(budget=None, dependency=dependency), down,
                 hooks=CallHooks(breakers=breakers, telemetry=otel.telemetry))
    for i in range(3):
        tool({"city": "Oslo"}, session=f"s{i}")
    first, opening, refused = otel.spans.get_finished_spans()
    assert first.attributes["contractgen.breaker.dependency"] == "met-api"
    assert first.attributes["contractgen.breaker.state"] == "closed"
    assert "contractgen.breaker.transition" not in first.attributes
    assert opening.attributes["contractgen.breaker.transition"] == "opened"
    assert refused.attributes["contractgen.breaker.state"] == "open"
    (opened,) = otel.points("contractgen.breaker.transitions").values()
    assert opened.value == 1 and dict(opened.attributes) == {
        "contractgen.breaker.dependency": "met-api", "contractgen.breaker.transition": "opened"}


def test_arguments_can_be_left_out() -> None:
    otel = Otel()
    quiet = tm.Telemetry(otel.tracer_provider, otel.meter_provider, record_arguments=False)
    guard(contract(), lambda _: {}, hooks=CallHooks(telemetry=quiet))({"city": "Oslo"})
    (span,) = otel.spans.get_finished_spans()
    assert "gen_ai.tool.call.arguments" not in span.attributes


def test_mcp_requests_carry_their_id_and_the_hosts_caller_into_the_span() -> None:
    import anyio
    from mcp_support import connected

    from contractgen.runtime.mcp_server import build_server

    otel = Otel()
    tool = guard(contract(), lambda _: {"temp": 3}, hooks=CallHooks(telemetry=otel.telemetry))

    def caller(ctx: Any) -> str | None:
        meta = (ctx.params or {}).get("_meta") or {}
        return meta.get("example/user")

    server = build_server([tool], caller=caller)

    async def main() -> None:
        async with connected(server) as session:
            result = await session.call_tool("weather", {"city": "Oslo", "password": SECRET},
                                             meta={"example/user": "user-42"})  # type: ignore[typeddict-unknown-key]
            assert result.is_error is False

    anyio.run(main)
    (span,) = otel.spans.get_finished_spans()
    assert span.attributes["contractgen.caller"] == "user-42"
    assert span.attributes["gen_ai.tool.call.id"]  # the JSON-RPC request id
    assert SECRET not in span.attributes["gen_ai.tool.call.arguments"]
