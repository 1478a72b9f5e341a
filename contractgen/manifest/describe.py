"""Turning values and jsonschema errors into "expected X (got Y)" text with did-you-mean hints."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import jsonschema

from ..runtime.reference_validator import GUARD_FORMATS, format_checker
from ..runtime.wording import did_you_mean as guess_name
from .model_formats import TYPED_FORMATS

_MAX_SHOWN = 60

#: Words authors reach for instead of JSON Schema type names.
TYPE_SYNONYMS = {
    "str": "string",
    "text": "string",
    "datetime": "string",
    "date": "string",
    "int": "integer",
    "long": "integer",
    "float": "number",
    "double": "number",
    "decimal": "number",
    "bool": "boolean",
    "dict": "object",
    "map": "object",
    "list": "array",
    "tuple": "array",
    "none": "null",
}
TYPE_NAMES = ("array", "boolean", "integer", "null", "number", "object", "string")


#: what the formats authors most often misread ask for (RFC 3339 for the date and time formats)
_FORMAT_SHAPES = {
    "date-time": "a date-time is RFC 3339: a date, a time and a time-zone offset, as in 2026-12-01T15:00:00Z or 2026-12-01T15:00:00+01:00",
    "time": "a time is RFC 3339: a time and a time-zone offset, as in 15:00:00Z or 15:00:00+01:00",
    "date": "a date is YYYY-MM-DD, as in 2026-12-01",
    "duration": "a duration is ISO 8601's P[n]Y[n]M[n]DT[n]H[n]M[n]S, as in PT1H30M",
}


def _format_hint(fmt: Any, instance: Any) -> str | None:
    """Why a value fails its format: the format itself (the guard asserts formats by default),
    or, for a value the format admits, the Python type the generated model reads it into."""
    if not isinstance(fmt, str) or not isinstance(instance, str):
        return None
    if fmt in GUARD_FORMATS and not format_checker().conforms(instance, fmt):
        shape = _FORMAT_SHAPES.get(fmt)
        return (f"{shape + '; ' if shape else ''}the guard asserts formats, so it refuses this value: "
                f"use a valid {fmt}, or describe the text with 'pattern' instead of 'format'")
    if fmt in TYPED_FORMATS:
        return (f"the generated model reads {fmt} text into a Python type that cannot hold this value, so "
                "the stub would refuse it: use another value")
    return None


def json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    return {
        dict: "object",
        list: "array",
        str: "string",
        type(None): "null",
        int: "integer",
        float: "number",
    }.get(type(value), type(value).__name__)


def show(value: Any) -> str:
    """A short, quoted rendering of a value for a message (control characters stay escaped)."""
    if isinstance(value, str):
        text = repr(value if len(value) <= _MAX_SHOWN else value[:_MAX_SHOWN] + "...")
        return text
    if isinstance(value, bool) or value is None:
        return {True: "true", False: "false", None: "null"}[value]
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, dict):
        return "an object" if value else "an empty object"
    if isinstance(value, list):
        return "an array" if value else "an empty array"
    return type(value).__name__


def got(value: Any) -> str:
    """``got string 'x'`` style: the JSON type and the value."""
    kind = json_type(value)
    if isinstance(value, (dict, list)):
        return show(value)
    return f"{kind} {show(value)}"


def did_you_mean(word: str, options: Iterable[str], cutoff: float = 0.6) -> str | None:
    """The hint naming the option ``word`` was probably meant to be (as the runtime guesses an
    argument's name), or None."""
    close = guess_name(word, list(options), cutoff)
    return f"did you mean {close!r}?" if close is not None else None


def one_of(options: Iterable[Any]) -> str:
    shown = [show(o) if not isinstance(o, str) else repr(o) for o in options]
    if len(shown) > 12:
        shown = shown[:12] + ["..."]
    return ", ".join(shown)


def schema_of(error: jsonschema.ValidationError) -> Mapping[str, Any]:
    """The schema object holding the keyword ``error`` failed ({} for a boolean schema)."""
    return error.schema if isinstance(error.schema, Mapping) else {}


def describe_validation_error(error: jsonschema.ValidationError) -> tuple[str, str | None]:
    """Message and optional hint for one jsonschema error, phrased as "expected X (got Y)"."""
    keyword = error.validator
    expected: Any = error.validator_value  # (set on every error a validator yields)
    instance: Any = error.instance
    if keyword == "type":
        names = expected if isinstance(expected, list) else [expected]
        hint = None
        if (
            isinstance(instance, (int, float))
            and "string" in names
            and not isinstance(instance, bool)
        ):
            hint = f'quote it: "{instance}"'
        return f"expected {' or '.join(map(str, names))} (got {got(instance)})", hint
    if keyword in ("enum", "const"):
        options = expected if keyword == "enum" else [expected]
        hint = (
            did_you_mean(instance, [o for o in options if isinstance(o, str)])
            if isinstance(instance, str)
            else None
        )
        return f"expected one of {one_of(options)} (got {show(instance)})", hint
    if keyword == "required":
        missing = [name for name in expected if isinstance(instance, dict) and name not in instance]
        return f"missing required key {missing[0]!r}" if missing else error.message, None
    if keyword == "additionalProperties" and isinstance(instance, dict):
        allowed = sorted(schema_of(error).get("properties", {}))
        extras = sorted(set(instance) - set(allowed))
        return (
            f"unknown key {extras[0]!r} (expected one of: {', '.join(allowed)})"
            if allowed
            else f"unknown key {extras[0]!r} (expected no other keys)"
        ), (did_you_mean(extras[0], allowed) if extras else None)
    if keyword == "maxLength" and isinstance(instance, str):
        return f"expected at most {expected} characters (got {len(instance)})", None
    if keyword == "minLength" and isinstance(instance, str):
        return (
            (
                f"expected at least {expected} character{'s' if expected != 1 else ''} "
                f"(got {len(instance)})"
            ),
            None,
        )
    if keyword in ("maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum"):
        relation = {
            "maximum": "<=",
            "minimum": ">=",
            "exclusiveMaximum": "<",
            "exclusiveMinimum": ">",
        }[keyword]
        return f"expected a number {relation} {expected} (got {show(instance)})", None
    if keyword == "maxItems" and isinstance(instance, list):
        return f"expected at most {expected} items (got {len(instance)})", None
    if keyword == "minItems" and isinstance(instance, list):
        return (
            (
                f"expected at least {expected} item{'s' if expected != 1 else ''} "
                f"(got {len(instance)})"
            ),
            None,
        )
    if keyword == "uniqueItems":
        return f"expected unique items (got a repeated item in {show(instance)})", None
    if keyword == "pattern":
        return f"expected a string matching {expected} (got {show(instance)})", None
    if keyword == "format":
        return f"expected a {expected} string (got {show(instance)})", _format_hint(expected, instance)
    if keyword == "multipleOf":
        return f"expected a multiple of {expected} (got {show(instance)})", None
    if keyword in ("anyOf", "oneOf") and error.context:
        best = jsonschema.exceptions.best_match(error.context)
        if best is not None and best.validator != keyword:
            return describe_validation_error(best)
    if keyword == "not":
        return f"expected a value not matching {show(expected)} (got {show(instance)})", None
    if keyword == "propertyNames" and error.context:
        return describe_validation_error(error.context[0])
    return f"{error.message} (keyword {keyword!r})", None
