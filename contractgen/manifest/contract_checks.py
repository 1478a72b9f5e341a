"""Checks on a manifest's retry and timeout settings, its example calls and its empty-result rule."""

from __future__ import annotations

from typing import Any

import jsonschema
from jsonschema.exceptions import best_match
from referencing.exceptions import Unresolvable

from ..runtime import reference_validator
from ..runtime.contract import LONGEST_DEADLINE
from ..runtime.pointer import escape_token
from ..runtime.pointer import pointer as json_pointer
from ..runtime.reference_validator import PatternUndecided
from .describe import describe_validation_error, did_you_mean, show
from .model_formats import model_format_checker
from .report import Reporter
from .schema_walk import lookup_argument


def check_retry_and_timeout(report: Reporter, data: dict[str, Any]) -> None:
    backoff = data.get("retry", {}).get("backoff", {})
    initial, maximum = backoff.get("initial"), backoff.get("maximum")
    if initial is not None and maximum is not None and maximum < initial:
        report.error(
            "/retry/backoff/maximum",
            f"expected maximum >= initial (got maximum {maximum} < initial {initial})",
            "backoff-maximum-below-initial",
            hint=f"set maximum to at least {initial}",
        )
    timeout = data.get("timeout", {})
    seconds = timeout.get("seconds")
    if isinstance(seconds, (int, float)) and not isinstance(seconds, bool) and seconds > LONGEST_DEADLINE:
        report.error(
            "/timeout/seconds",
            f"expected a deadline of at most {LONGEST_DEADLINE:.0f} seconds (366 days) (got {seconds})",
            "timeout-too-long",
            hint="use `seconds: null` for no deadline, or a deadline the runtime can wait for",
        )
    if (
        timeout.get("long_running")
        and timeout.get("seconds") is not None
        and timeout["seconds"] < 30
    ):
        report.warning(
            "/timeout/seconds",
            f"a long-running tool with a short deadline (got {timeout['seconds']} s)",
            "long-running-short-timeout",
            hint="raise timeout.seconds, or drop long_running",
        )


def _accepts_empty_object(schema: dict[str, Any]) -> bool:
    """Whether ``{}`` is a valid output: no ``required``, or an equivalent (a branch, ``minProperties``)."""
    try:
        return bool(reference_validator.validator(schema, formats=False).is_valid({}))
    except (Unresolvable, PatternUndecided, RecursionError, jsonschema.exceptions.SchemaError):
        return False  # the schema checks report why it cannot be used


def check_examples(
    report: Reporter, data: dict[str, Any], input_schema: dict[str, Any] | None
) -> None:
    examples = data.get("examples", [])
    if not examples:
        report.warning(
            "/examples" if "examples" in data else "",
            "expected at least one example call (got none)",
            "no-examples",
            hint="add `examples: [{summary: ..., arguments: {...}}]`; check validates them",
        )
    if input_schema is None:
        return
    validator = reference_validator.validator(input_schema, format_checker=model_format_checker())
    for i, example in enumerate(examples):
        base = f"/examples/{i}/arguments"
        try:
            errors = sorted(
                validator.iter_errors(example["arguments"]),
                key=lambda e: list(map(str, e.absolute_path)),
            )
        except (Unresolvable, PatternUndecided, RecursionError) as exc:
            report.error(
                base,
                f"cannot validate this example ({type(exc).__name__.lower()})",
                "unvalidatable-example",
            )
            continue
        for error in errors:
            chosen = best_match([error]) or error
            where = base + json_pointer(chosen.absolute_path)
            if chosen.validator == "additionalProperties" and isinstance(chosen.instance, dict):
                allowed = sorted(chosen.schema.get("properties", {}))
                for extra in sorted(set(chosen.instance) - set(allowed)):
                    report.error(
                        f"{where}/{escape_token(extra)}",
                        f"example does not match the input schema: "
                        f"unknown argument {extra!r} "
                        f"(expected one of: {', '.join(allowed) or 'none'})",
                        "invalid-example",
                        hint=did_you_mean(extra, allowed),
                        key=True,
                    )
                continue
            message, hint = describe_validation_error(chosen)
            report.error(
                where,
                f"example does not match the input schema: {message}",
                "invalid-example",
                hint=hint,
            )


EMPTY_OUTPUT_HINT = (
    "list the fields every result has under `required: [...]`, or declare "
    "`empty_result: {pointer: ..., meaning: ...}` so an empty result reaches the model as empty, "
    "not as a success"
)


def check_empty_result(
    report: Reporter, data: dict[str, Any], output_schema: dict[str, Any] | None
) -> None:
    empty = data.get("empty_result")
    if output_schema is None:
        return
    if empty is None and _accepts_empty_object(output_schema):
        # The author's decision, not a weakened guarantee: a warning (fails only with --strict).
        report.warning(
            "/output",
            "the output schema accepts an empty object {} (nothing is required), and no "
            "`empty_result` says what an empty result means: a tool that found nothing "
            "reports plain success",
            "output-accepts-empty",
            hint=EMPTY_OUTPUT_HINT,
            key=True,
        )
    if not isinstance(empty, dict):
        return
    found = known_pointer(report, output_schema, empty["pointer"], "/empty_result/pointer")
    if "attempted" in empty:
        known_pointer(report, output_schema, empty["attempted"], "/empty_result/attempted")
    if found is None:
        return
    declared = found.schema.get("type") if isinstance(found.schema, dict) else None
    kinds = {declared} if isinstance(declared, str) else set(declared or ())
    if kinds and not kinds & {"array", "object", "string", "null"}:
        report.warning(
            "/empty_result/pointer",
            f"expected a value that can be empty: an array, object, string or null "
            f"(got {' or '.join(sorted(kinds))} at {empty['pointer']}; only its absence counts)",
            "empty-pointer-never-empty",
            hint="point at the list of results, e.g. /results",
        )


def known_pointer(report: Reporter, schema: dict[str, Any], pointer: str, where: str, *,
                  side: str = "output", code: str = "unknown-empty-pointer") -> Any:
    """The lookup of ``pointer`` in the ``side`` schema, or None after reporting it names nothing there."""
    found = lookup_argument(schema, pointer)
    if found.found:
        return found
    report.error(
        where,
        f"expected a pointer into the {side} schema (got {show(pointer)}: "
        f"no {found.missing} in the {side} schema)",
        code,
        hint=did_you_mean(pointer, found.candidates)
        or (f"{side} fields here: {', '.join(found.candidates)}" if found.candidates else None),
    )
    return None
