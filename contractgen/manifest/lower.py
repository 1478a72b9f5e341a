"""Lower one parsed, meta-schema-valid manifest mapping to the runtime ``Contract`` value."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..runtime.codes import TRANSIENT_CODES
from ..runtime.contract import (
    Annotations,
    Backoff,
    Breaker,
    Confirmation,
    Contract,
    Dependency,
    Deprecation,
    EmptyResult,
    ErrorSpec,
    Example,
    Migration,
    Precondition,
    RetryPolicy,
    Timeout,
)
from .result_rules import lower_result_rules
from .schema_walk import static_dynamic_refs


def _pairs(mapping: Mapping[str, str] | None) -> tuple[tuple[str, str], ...]:
    return tuple((mapping or {}).items())


def default_retryable_codes(data: Mapping[str, Any]) -> list[str]:
    """The transient codes, less TIMEOUT for a tool declared non-idempotent.

    A call that timed out may still have taken effect (a booking made, a payment sent); telling the
    model to repeat it may repeat the effect, so such a tool must opt in to retrying TIMEOUT.
    """
    annotations = data.get("annotations") or {}
    codes = set(TRANSIENT_CODES)
    if annotations.get("idempotent") is False:
        codes.discard("TIMEOUT")
    return sorted(codes)


def lower_manifest(data: Mapping[str, Any]) -> Contract:
    retry = data.get("retry", {})
    backoff = retry.get("backoff", {})
    timeout = data.get("timeout", {})
    deprecated = data.get("deprecated")
    annotations = data.get("annotations", {})
    empty = data.get("empty_result")
    return Contract(
        name=data["name"],
        version=data["version"],
        title=data.get("title"),
        summary=data["summary"],
        description=data["description"],
        input_schema=static_dynamic_refs(data["input"]),
        output_schema=static_dynamic_refs(data["output"]),
        errors=tuple(
            ErrorSpec(
                class_name=e["class"],
                code=e["code"],
                message=e["message"],
                field=e.get("field"),
                retryable=e.get("retryable"),
                action=e.get("action"),
                retry_after=e.get("retry_after"),
                description=e.get("description"),
            )
            for e in data.get("errors", ())
        ),
        retry=RetryPolicy(
            retryable_codes=tuple(retry.get("retryable_codes", default_retryable_codes(data))),
            backoff=Backoff(
                initial=backoff.get("initial", Backoff.initial),
                multiplier=backoff.get("multiplier", Backoff.multiplier),
                maximum=backoff.get("maximum", Backoff.maximum),
                jitter=backoff.get("jitter", Backoff.jitter),
            ),
            failure_budget=retry.get("failure_budget", RetryPolicy.failure_budget),
        ),
        timeout=Timeout(
            seconds=timeout.get("seconds", Timeout.seconds),
            long_running=timeout.get("long_running", False),
        ),
        migrations=tuple(
            Migration(
                from_versions=m["from"],
                renamed=_pairs(m.get("renamed")),
                removed=_pairs(m.get("removed")),
                changed=_pairs(m.get("changed")),
                notes=m.get("notes"),
            )
            for m in data.get("migrations", ())
        ),
        deprecation=Deprecation(**deprecated) if deprecated is not None else None,
        annotations=Annotations(**annotations),
        empty_result=EmptyResult(empty["pointer"], empty["meaning"], empty.get("attempted")) if empty else None,
        partial_results=data.get("partial_results", False),
        user_supplied=tuple(data.get("user_supplied", ())),
        examples=tuple(
            Example(summary=x.get("summary", ""), arguments=x["arguments"])
            for x in data.get("examples", ())
        ),
        dependency=_dependency(data.get("dependency")),
        state_unreachable=data.get("state_unreachable", "allow"),
        icons=tuple(data.get("icons", ())),
        meta=data.get("meta"),
        result_rules=lower_result_rules(data.get("result_rules")),
        preconditions=tuple(Precondition(p["when"], p["code"], p["message"]) for p in data.get("preconditions", ())),
        confirmation=_confirmation(data.get("confirmation")),
    )


def _confirmation(data: Mapping[str, Any] | None) -> Confirmation | None:
    if data is None:
        return None
    when = data["when"]
    return Confirmation(summary=data["summary"], when=None if when == "always" else when)


def _dependency(data: Mapping[str, Any] | None) -> Dependency | None:
    if data is None:
        return None
    breaker = data.get("breaker", {})
    return Dependency(data["name"], Breaker(
        failures=breaker.get("failures", Breaker.failures),
        window=breaker.get("window", Breaker.window),
        open_for=breaker.get("open_for", Breaker.open_for)))
