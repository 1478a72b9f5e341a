"""Observation never changes an outcome: once the implementation has run (a card was charged), a
span processor, a log handler or filter, a metrics instrument, a breaker transition's report, an
``on_call`` hook or a progress listener that raises leaves the call's envelope as it was, sync and
asyncio alike. What failed is logged (or, when logging itself is what fails, reported on stderr)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk")

from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import SpanProcessor, TracerProvider

from contractgen.runtime import Breaker, Contract, Dependency, RetryPolicy, ToolError, guard
from contractgen.runtime.breaker import InMemoryBreakerStore
from contractgen.runtime.hooks import CallHooks
from contractgen.runtime.progress import progress_listener, report_progress
from contractgen.runtime.telemetry import Telemetry


class Boom(Exception):
    pass


class BaseBoom(BaseException):
    """Not an Exception: ``except Exception`` lets it through."""


def contract(dependency: Dependency | None = None) -> Contract:
    return Contract(
        name="charge",
        version="1.0.0",
        summary="s",
        description="d",
        input_schema={"type": "object"},
        output_schema={"type": "object"},
        retry=RetryPolicy(failure_budget=5),
        dependency=dependency,
    )


class Card:
    """The implementation: it charges once per call; the test counts the charges."""

    def __init__(self) -> None:
        self.charges = 0

    def sync(self, _: Any) -> Any:
        self.charges += 1
        return {"charged": self.charges}

    async def asyncio(self, _: Any) -> Any:
        self.charges += 1
        return {"charged": self.charges}


def call_both(
    hooks: CallHooks | None = None, on_call: Any = None, dependency: Dependency | None = None
) -> list[dict[str, Any]]:
    card = Card()
    sync_tool = guard(contract(dependency), card.sync, hooks=hooks, on_call=on_call)
    async_tool = guard(contract(dependency), card.asyncio, hooks=hooks, on_call=on_call)
    answers = [sync_tool({}), asyncio.run(async_tool.acall({}))]
    assert card.charges == 2
    return answers


def assert_charged(answers: list[dict[str, Any]]) -> None:
    for envelope in answers:
        assert envelope["status"] == "ok", envelope
        assert envelope["output"]["charged"] >= 1


class RaisingProcessor(SpanProcessor):
    def __init__(self, where: str, error: BaseException) -> None:
        self.where, self.error = where, error

    def on_start(self, span: Any, parent_context: Any = None) -> None:
        if self.where == "start":
            raise self.error

    def on_end(self, span: Any) -> None:
        if self.where == "end":
            raise self.error


@pytest.mark.parametrize("where", ["start", "end"])
@pytest.mark.parametrize(
    "error", [Boom("exporter down"), BaseBoom("exporter down")], ids=["Exception", "BaseException"]
)
def test_a_raising_span_processor_leaves_a_successful_call_ok(
    where: str, error: BaseException, caplog: pytest.LogCaptureFixture
) -> None:
    provider = TracerProvider()
    provider.add_span_processor(RaisingProcessor(where, error))
    telemetry = Telemetry(provider, MeterProvider(metric_readers=[InMemoryMetricReader()]))
    with caplog.at_level(logging.ERROR, logger="contractgen.runtime"):
        assert_charged(call_both(CallHooks(telemetry=telemetry)))
    assert any("telemetry" in r.getMessage() for r in caplog.records)


class _Instrument:
    def add(self, *_: Any, **__: Any) -> None:
        raise Boom("metrics backend down")

    record = add


class RaisingMeters:
    """A meter provider whose instruments raise on every measurement (a broken exporter bridge)."""

    def get_meter(self, *_: Any, **__: Any) -> Any:
        return self

    def create_counter(self, *_: Any, **__: Any) -> Any:
        return _Instrument()

    create_histogram = create_counter


def test_raising_metrics_leave_calls_and_breaker_transitions_as_they_were() -> None:
    telemetry = Telemetry(TracerProvider(), RaisingMeters())
    assert_charged(call_both(CallHooks(telemetry=telemetry)))
    # a breaker that opens reports a transition to the metrics; the failure stays what it was
    dependency = Dependency("bank", Breaker(failures=1, open_for=60))
    hooks = CallHooks(breakers=InMemoryBreakerStore(), telemetry=telemetry)

    def declined(_: Any) -> Any:
        raise ToolError("the bank did not answer", code="UNAVAILABLE")

    envelope = guard(contract(dependency), declined, hooks=hooks)({})
    assert (
        envelope["error"]["code"] == "UNAVAILABLE" and envelope["error"]["action"] == "retry_later"
    )
    assert "did not answer" in envelope["error"]["message"]


@pytest.fixture
def raising_log(request: pytest.FixtureRequest) -> Iterator[str]:
    """A filter or a handler on the runtime's loggers that raises on every record."""
    where = request.param
    calls = logging.getLogger("contractgen.runtime.calls")
    runtime = logging.getLogger("contractgen.runtime")

    def explode(record: logging.LogRecord) -> bool:
        raise Boom("log shipper down")

    class Exploding(logging.Handler):
        def handle(self, record: logging.LogRecord) -> bool:  # not emit: handleError never sees it
            raise Boom("log shipper down")

    handler = Exploding()
    before = (calls.level, runtime.level)
    calls.setLevel(logging.INFO)
    runtime.setLevel(logging.INFO)
    if where == "filter":
        calls.addFilter(explode)
        runtime.addFilter(explode)
    else:
        runtime.addHandler(handler)
    try:
        yield where
    finally:
        calls.removeFilter(explode)
        runtime.removeFilter(explode)
        runtime.removeHandler(handler)
        calls.setLevel(before[0])
        runtime.setLevel(before[1])


@pytest.mark.parametrize("raising_log", ["filter", "handler"], indirect=True)
def test_a_raising_log_filter_or_handler_leaves_calls_as_they_were(raising_log: str) -> None:
    assert_charged(call_both())  # the call record goes to contractgen.runtime.calls at INFO
    dependency = Dependency("bank", Breaker(failures=1, open_for=60))
    assert_charged(call_both(CallHooks(breakers=InMemoryBreakerStore()), dependency=dependency))

    def declined(_: Any) -> Any:
        raise ToolError("the bank did not answer", code="UNAVAILABLE")

    # the breaker opens (a WARNING) after the call: the failure is still the tool's own
    envelope = guard(
        contract(dependency), declined, hooks=CallHooks(breakers=InMemoryBreakerStore())
    )({})
    assert (
        envelope["error"]["code"] == "UNAVAILABLE"
        and "did not answer" in envelope["error"]["message"]
    )


def test_an_on_call_hook_raising_a_base_exception_leaves_the_call_ok() -> None:
    def hook(record: Any) -> None:
        raise BaseBoom("dashboard down")

    assert_charged(call_both(on_call=hook))


@pytest.mark.parametrize(
    "error", [Boom("socket closed"), BaseBoom("socket closed")], ids=["Exception", "BaseException"]
)
def test_a_raising_progress_listener_never_reaches_the_tool(error: BaseException) -> None:
    card = Card()

    def working(_: Any) -> Any:
        report_progress(1, 2, "half way")
        return card.sync(_)

    async def aworking(_: Any) -> Any:
        report_progress(1, 2, "half way")
        return await card.asyncio(_)

    def listener(*_: Any) -> None:
        raise error

    with progress_listener(listener):
        answers = [
            guard(contract(), working)({}),
            asyncio.run(guard(contract(), aworking).acall({})),
        ]
    assert_charged(answers)
    assert card.charges == 2
