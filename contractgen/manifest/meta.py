"""Validating a manifest against the shipped meta-schema, with messages that say how to fix it."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import lru_cache
from importlib import resources
from typing import Any

import jsonschema

from ..runtime import reference_validator
from ..runtime.codes import CODES
from ..runtime.pointer import escape_token
from ..runtime.pointer import pointer as json_pointer
from .describe import describe_validation_error, did_you_mean, schema_of, show
from .fast_validate import fast_validator
from .report import Reporter

#: Codes from other vocabularies (gRPC, HTTP) and the closed-set code that replaces each.
CODE_SYNONYMS = {
    "RESOURCE_EXHAUSTED": "RATE_LIMITED",
    "TOO_MANY_REQUESTS": "RATE_LIMITED",
    "THROTTLED": "RATE_LIMITED",
    "DEADLINE_EXCEEDED": "TIMEOUT",
    "TIMED_OUT": "TIMEOUT",
    "GATEWAY_TIMEOUT": "TIMEOUT",
    "ALREADY_EXISTS": "CONFLICT",
    "ABORTED": "CONFLICT",
    "UNAUTHENTICATED": "PERMISSION_DENIED",
    "FORBIDDEN": "PERMISSION_DENIED",
    "UNAUTHORIZED": "PERMISSION_DENIED",
    "BAD_REQUEST": "INVALID_ARGUMENT",
    "OUT_OF_RANGE": "INVALID_ARGUMENT",
    "VALIDATION_ERROR": "INVALID_ARGUMENT",
    "UNKNOWN": "INTERNAL",
    "DATA_LOSS": "INTERNAL",
    "UNIMPLEMENTED": "INTERNAL",
    "SERVICE_UNAVAILABLE": "UNAVAILABLE",
    "PRECONDITION_FAILED": "FAILED_PRECONDITION",
}

_SEMVER_LIKE = re.compile(r"^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?$")


@lru_cache(maxsize=1)
def manifest_meta_schema() -> dict[str, Any]:
    text = resources.files("contractgen.schema").joinpath("manifest.schema.json").read_text("utf-8")
    return json.loads(text)


@lru_cache(maxsize=1)
def _manifest_validator() -> jsonschema.protocols.Validator:
    return reference_validator.validator(manifest_meta_schema(), formats=False)


@lru_cache(maxsize=1)
def _fast_manifest_validator() -> Callable[[Any], bool] | None:
    """A jsonschema-rs pre-check: a manifest it accepts has no meta-schema error to report."""
    return fast_validator(manifest_meta_schema())


def check_meta(report: Reporter, value: dict[str, Any]) -> set[str]:
    """Report every meta-schema violation; return where they were: "" for the root, each top-level
    key, and ``key/index`` for an item of a list section (so other items can still be checked)."""
    bad: set[str] = set()
    is_valid = _fast_manifest_validator()
    if is_valid is not None and is_valid(value):
        return bad
    errors = sorted(
        _manifest_validator().iter_errors(value),
        key=lambda e: (list(map(str, e.absolute_path)), e.validator),
    )
    for error in errors:
        path = list(error.absolute_path)
        if len(path) >= 2 and isinstance(path[1], int):
            bad.add(f"{path[0]}/{path[1]}")
        else:
            bad.add(str(path[0]) if path else "")
        _report(report, error, json_pointer(path))
    return bad


def _report(report: Reporter, error: jsonschema.ValidationError, pointer: str) -> None:
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = sorted(schema_of(error).get("properties", {}))
        patterns = list(schema_of(error).get("patternProperties", {}))
        extras = [
            k
            for k in error.instance
            if k not in allowed and not any(re.search(p, k) for p in patterns)
        ]
        for key in sorted(extras):
            report.error(
                f"{pointer}/{escape_token(key)}",
                f"unknown key {show(key)} (expected one of: {', '.join(allowed)})",
                "unknown-key",
                hint=did_you_mean(key, allowed) or _unknown_key_hint(key),
                key=True,
            )
        return
    if error.validator == "required" and isinstance(error.instance, dict):
        properties = schema_of(error).get("properties", {})
        # jsonschema yields one error per missing key, each with the whole list: report each once
        missing = re.match(r"^'(.*)' is a required property$", error.message)
        required: Any = error.validator_value
        for name in required:
            if name not in error.instance and (missing is None or missing.group(1) == name):
                about = (
                    (properties.get(name, {}).get("description") or "").split(". ")[0].rstrip(".")
                )
                near = [k for k in error.instance if did_you_mean(k, [name], cutoff=0.75)]
                fix = (
                    f"rename {near[0]!r} to {name!r}"
                    if near
                    else f"add `{name}:`" + (f" - {about}" if about else "")
                )
                report.error(pointer, f"missing required key {name!r}", "missing-key", hint=fix)
        return
    message, hint = describe_validation_error(error)
    special = _special(pointer, error)
    if special:
        message, hint = (special[0] or message), (special[1] or hint)
    report.error(pointer, message, f"invalid-{_kebab(str(error.validator))}", hint=hint)


def _special(
    pointer: str, error: jsonschema.ValidationError
) -> tuple[str | None, str | None] | None:
    """Field-specific wording for the mistakes authors make most."""
    instance: Any = error.instance
    if pointer == "/name" and error.validator == "pattern":
        cleaned = re.sub(r"[^a-zA-Z0-9_-]+", "_", instance).strip("_-")[:64]
        return (
            (
                "expected a portable tool name: 1-64 letters, digits, '_' or '-' "
                f"(got {show(instance)})"
            ),
            f"did you mean {cleaned!r}?"
            if cleaned
            else "use letters, digits, '_' or '-', e.g. 'search_documents'",
        )
    if pointer == "/version" and error.validator == "pattern":
        match = _SEMVER_LIKE.match(instance.strip())
        fixed = ".".join(g or "0" for g in match.groups()) if match else None
        return (
            f"expected a semantic version MAJOR.MINOR.PATCH (got {show(instance)})",
            f"did you mean {fixed!r}?" if fixed else "write it like 1.0.0 or 2.1.0-rc.1",
        )
    if pointer == "/version" and error.validator == "type":
        return (None, f'quote it: version: "{_as_semver(instance)}"')
    if re.fullmatch(r"/errors/\d+/class", pointer) and error.validator == "pattern":
        cleaned = "".join(p[:1].upper() + p[1:] for p in re.split(r"[^A-Za-z0-9]+", instance) if p)
        if cleaned[:1].isdigit():
            cleaned = "E" + cleaned
        message = (
            "expected a Python class name: letters, digits and '_', not starting with a digit "
            f"(got {show(instance)})"
        )
        return (message, f"did you mean {cleaned!r}?" if cleaned else None)
    if (
        (
            re.fullmatch(r"/errors/\d+/code", pointer)
            or re.fullmatch(r"/retry/retryable_codes/\d+", pointer)
        )
        and error.validator == "enum"
        and isinstance(instance, str)
    ):
        synonym = CODE_SYNONYMS.get(instance.upper().replace("-", "_").replace(" ", "_"))
        if synonym:
            return (
                None,
                (
                    f"did you mean {synonym!r}? "
                    f"({instance} is spelled {synonym} in contractgen's code set)"
                ),
            )
        return (None, did_you_mean(instance, CODES, cutoff=0.5))
    if re.fullmatch(r"/errors/\d+/message", pointer) and error.validator == "maxLength":
        return (
            None,
            "say what went wrong and the one thing to do next; put the rest in `description`",
        )
    if pointer == "/deprecated/sunset" and error.validator == "pattern":
        return (f"expected an ISO date YYYY-MM-DD (got {show(instance)})", None)
    if (
        error.validator == "type"
        and isinstance(instance, str)
        and error.validator_value in ("boolean", "number", "integer")
    ):
        return (
            None,
            f"write it without quotes: {instance.strip()}"
            if _looks_like(instance, error.validator_value)
            else None,
        )
    return None


def _looks_like(text: str, kind: str) -> bool:
    text = text.strip()
    if kind == "boolean":
        return text in ("true", "false")
    try:
        return (
            kind == "number"
            and float(text) is not None
            or kind == "integer"
            and int(text) is not None
        )
    except ValueError:
        return False


def _as_semver(value: Any) -> str:
    text = str(value)
    return text + ".0" * (2 - text.count(".")) if re.fullmatch(r"\d+(\.\d+){0,2}", text) else text


def _unknown_key_hint(key: str) -> str | None:
    if key == "<<":
        return "YAML merge keys (<<: *name) are not supported; write the keys out"
    if key.startswith("x-"):
        return "extension keys belong inside the input/output JSON Schemas, not at manifest level"
    return None


def _kebab(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "-", name).lower()


__all__ = ["CODE_SYNONYMS", "check_meta", "manifest_meta_schema"]
