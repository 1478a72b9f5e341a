"""OpenTelemetry for guarded calls: one span per call and four instruments (``otel`` extra).

Spans follow the GenAI semantic conventions for tool execution (``execute_tool {tool}``, kind
INTERNAL, ``gen_ai.operation.name``, ``gen_ai.tool.name``, ``gen_ai.tool.call.id``) plus
contractgen's own ``contractgen.*`` attributes. Arguments are recorded only after redaction (every
value the input schema marks sensitive, and every sensitively named key, becomes ``[redacted]``).
The guard reaches this module only through ``CallHooks``; it never imports OpenTelemetry.
"""

from __future__ import annotations

import time
from typing import Any

from .install_hint import install_hint

try:
    from opentelemetry import context as otel_context
    from opentelemetry import metrics, trace
    from opentelemetry.trace import SpanKind, StatusCode
except ImportError as exc:  # pragma: no cover - exercised only without the extra installed
    raise ImportError(f"contractgen.runtime.telemetry needs OpenTelemetry: {install_hint('otel')}") from exc

from ._version import RUNTIME_VERSION
from .envelope import cap_text
from .observe import observed_quietly
from .scrub import arguments_shown

__all__ = ["Telemetry"]

# The GenAI names, as strings: the semconv package marks its GenAI constants deprecated (moved to
# the GenAI conventions repository); a test checks these values against it.
GEN_AI_OPERATION_NAME = "gen_ai.operation.name"
EXECUTE_TOOL = "execute_tool"
GEN_AI_TOOL_NAME = "gen_ai.tool.name"
GEN_AI_TOOL_CALL_ID = "gen_ai.tool.call.id"
GEN_AI_TOOL_TYPE = "gen_ai.tool.type"
GEN_AI_TOOL_CALL_ARGUMENTS = "gen_ai.tool.call.arguments"
ERROR_TYPE = "error.type"

VERSION = "contractgen.contract.version"
CODE = "contractgen.code"
CATEGORY = "contractgen.category"
ACTION = "contractgen.action"
VALIDATION = "contractgen.validation"
VALIDATION_INPUT = "contractgen.validation.input"
VALIDATION_OUTPUT = "contractgen.validation.output"
CALLER = "contractgen.caller"
BUDGET_FAILURES = "contractgen.budget.consecutive_failures"
BUDGET_LIMIT = "contractgen.budget.limit"
BUDGET_EXHAUSTED = "contractgen.budget.exhausted"
BUDGET_STORE = "contractgen.budget.store"
DEPENDENCY = "contractgen.breaker.dependency"
BREAKER_STATE = "contractgen.breaker.state"
BREAKER_TRANSITION = "contractgen.breaker.transition"

#: seconds; the SDK's default buckets (0, 5, 10, 25...) are meant for milliseconds
DURATION_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
                    5.0, 10.0, 30.0, 60.0)
#: characters of recorded arguments (as JSON) before they are summarised
ARGUMENTS_CAP = 2000
#: characters kept of a call id or a caller (an MCP client chooses its request id, of any size)
IDENTIFIER_CAP = 256


class Telemetry:
    """Spans and metrics for guarded calls; pass providers explicitly, or the global ones are used."""

    def __init__(self, tracer_provider: Any = None, meter_provider: Any = None, *,
                 record_arguments: bool = True) -> None:
        tracers = tracer_provider or trace.get_tracer_provider()
        meters = meter_provider or metrics.get_meter_provider()
        self.tracer = tracers.get_tracer("contractgen.runtime", RUNTIME_VERSION)
        meter = meters.get_meter("contractgen.runtime", RUNTIME_VERSION)
        self.record_arguments = record_arguments
        self.calls = meter.create_counter("contractgen.tool.calls", unit="{call}",
                                          description="Guarded tool calls by tool and code")
        self.duration = meter.create_histogram(
            "contractgen.tool.duration", unit="s", description="Wall time inside the guard",
            explicit_bucket_boundaries_advisory=list(DURATION_BUCKETS))
        self.exhaustions = meter.create_counter(
            "contractgen.budget.exhaustions", unit="{call}",
            description="Calls that spent their session's failure budget")
        self.transitions = meter.create_counter(
            "contractgen.breaker.transitions", unit="{transition}",
            description="Circuit breaker state changes by dependency and transition")

    def start(self, tool: Any, call_id: str | None, caller: str | None) -> CallSpan:
        attributes: dict[str, Any] = {GEN_AI_OPERATION_NAME: EXECUTE_TOOL, GEN_AI_TOOL_NAME: tool.name,
                                      GEN_AI_TOOL_TYPE: "function", VERSION: tool.version}
        if call_id:
            attributes[GEN_AI_TOOL_CALL_ID] = cap_text(call_id, IDENTIFIER_CAP)  # one line, capped
        if caller:
            attributes[CALLER] = cap_text(caller, IDENTIFIER_CAP)
        span = self.tracer.start_span(f"{EXECUTE_TOOL} {tool.name}", kind=SpanKind.INTERNAL,
                                      attributes=attributes)
        return CallSpan(self, tool, span)

    def transition(self, dependency: str, transition: str) -> None:
        self.transitions.add(1, {DEPENDENCY: dependency, BREAKER_TRANSITION: transition})


class CallSpan:
    """One call's span, current while the call runs (so the implementation's spans nest in it)."""

    def __init__(self, telemetry: Telemetry, tool: Any, span: Any) -> None:
        self.telemetry = telemetry
        self.tool = tool
        self.span = span
        self.start = time.perf_counter()
        self._token: Any = None

    def __enter__(self) -> CallSpan:  # noqa: PYI034 - Self needs Python 3.11
        self._token = observed_quietly(f"telemetry of {self.tool.name} (entering a span)", otel_context.attach,
                                       trace.set_span_in_context(self.span))
        return self

    def __exit__(self, *exc_info: object) -> None:
        # a span processor's on_end runs here, after the call's envelope is final: it decides nothing
        if self._token is not None:
            observed_quietly(f"telemetry of {self.tool.name} (leaving a span)", otel_context.detach, self._token)
        observed_quietly(f"telemetry of {self.tool.name} (ending a span)", self.span.end)

    def done(self, envelope: dict[str, Any], arguments: Any, breaker: dict[str, str],
             stages: dict[str, str]) -> None:
        """Record what the call answered: its code, what its input and output checks found (passed,
        failed, or not_run), budget and breaker state, redacted arguments."""
        telemetry, span, name = self.telemetry, self.span, self.tool.name
        error = envelope.get("error") if envelope.get("status") == "error" else None
        code = error.get("code", "INTERNAL") if isinstance(error, dict) else "OK"
        checked_input, checked_output = stages.get("input", "not_run"), stages.get("output", "not_run")
        # the summary names the check that failed, else "passed" (nothing that ran failed)
        summary = ("version_mismatch" if code == "VERSION_MISMATCH" else "input_invalid" if checked_input == "failed"
                   else "output_invalid" if checked_output == "failed" else "passed")
        attributes: dict[str, Any] = {CODE: code, VALIDATION: summary, VALIDATION_INPUT: checked_input,
                                      VALIDATION_OUTPUT: checked_output}
        if isinstance(error, dict):
            attributes.update({CATEGORY: str(error.get("category")), ACTION: str(error.get("action")),
                               ERROR_TYPE: code})
            budget = error.get("budget")
            if isinstance(budget, dict):
                attributes.update(_budget_attributes(budget))
        for key, value in breaker.items():
            attributes[f"contractgen.breaker.{key}"] = value
        if self.telemetry.record_arguments:
            attributes[GEN_AI_TOOL_CALL_ARGUMENTS] = redacted_arguments(self.tool, arguments)
        span.set_attributes(attributes)
        if isinstance(error, dict):
            span.set_status(StatusCode.ERROR, code)
        labels = {GEN_AI_TOOL_NAME: name, CODE: code}
        telemetry.calls.add(1, labels)
        telemetry.duration.record(time.perf_counter() - self.start, labels)
        if attributes.get(BUDGET_EXHAUSTED):
            telemetry.exhaustions.add(1, {GEN_AI_TOOL_NAME: name})


def _budget_attributes(budget: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = {BUDGET_EXHAUSTED: bool(budget.get("exhausted"))}
    if isinstance(budget.get("consecutive_failures"), int):
        found[BUDGET_FAILURES] = budget["consecutive_failures"]
    if isinstance(budget.get("limit"), int):
        found[BUDGET_LIMIT] = budget["limit"]
    if budget.get("store"):
        found[BUDGET_STORE] = str(budget["store"])
    return found


def redacted_arguments(tool: Any, arguments: Any) -> str:
    """The arguments as JSON, with what the input schema marks sensitive replaced and long values
    capped (``scrub.arguments_shown``, which framework adapters' own traces use too)."""
    return arguments_shown(tool, arguments, ARGUMENTS_CAP)
