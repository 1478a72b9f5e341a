"""Checks on one manifest's own fields once its shape is right: errors, retry,
examples, lifecycle."""

from __future__ import annotations

import datetime as dt
import keyword
import re
from pathlib import PurePath
from typing import Any

import jsonschema
from jsonschema.exceptions import best_match
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version
from referencing.exceptions import Unresolvable

from ..naming import class_prefix, error_class_problem
from ..runtime.codes import CODES
from .describe import describe_validation_error, did_you_mean, pointer_of, show
from .leaks import find_leaks
from .parse import escape_pointer_token
from .report import Reporter
from .schema_walk import lookup_argument

_SEMVER_FILE = re.compile(r"^v?\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]*)?$")


def check_errors(
    report: Reporter,
    data: dict[str, Any],
    input_schema: dict[str, Any] | None,
    skip: frozenset[int] = frozenset(),
) -> None:
    """Error entries; ``skip`` holds the indices of entries with meta-schema errors."""
    first_seen: dict[str, int] = {}
    for i, entry in enumerate(data.get("errors", [])):
        if i in skip:
            continue
        base = f"/errors/{i}"
        name = entry["class"]
        if name in first_seen:
            report.error(
                f"{base}/class",
                f"expected each error class once per tool (got {name!r} again; "
                f"first at /errors/{first_seen[name]})",
                "duplicate-error-class",
                hint=f"merge the two entries or rename this one, e.g. {name + '2'!r}",
            )
        else:
            first_seen[name] = i
        problem = error_class_problem(name, data["name"])
        if problem:
            report.error(
                f"{base}/class",
                f"expected an error class name that is not {problem} (got {name!r})",
                "reserved-class-name",
                hint=f"rename it, e.g. {_suggest_class(name, data['name'])!r}",
            )
        elif not name[:1].isupper():
            report.warning(
                f"{base}/class",
                f"expected a PascalCase class name (got {name!r})",
                "class-not-pascal-case",
                hint=f"did you mean {name[:1].upper() + name[1:]!r}?",
            )
        if not entry["message"].strip():
            report.error(
                f"{base}/message",
                "expected an instruction for the model (got only whitespace)",
                "empty-message",
            )
        field = entry.get("field")
        if field is not None and input_schema is not None:
            found = lookup_argument(input_schema, field)
            if not found.found:
                report.error(
                    f"{base}/field",
                    f"expected a pointer to an input argument (got {show(field)}: "
                    f"no {found.missing} in the input schema)",
                    "unknown-error-field",
                    hint=did_you_mean(field, found.candidates)
                    or (
                        f"arguments here: {', '.join(found.candidates)}"
                        if found.candidates
                        else None
                    ),
                )
        spec = CODES[entry["code"]]
        retryable = entry.get("retryable", spec.retryable)
        action = entry.get("action", spec.action)
        if action in ("fix_arguments", "retry_later") and not retryable:
            report.error(
                base,
                f"expected retryable: true with action {action!r} (got retryable: false)",
                "contradictory-retry",
                hint=_contradiction_hint(entry, spec),
            )
        if action in ("stop_and_tell_user", "escalate") and retryable:
            report.error(
                base,
                f"expected retryable: false with action {action!r} (got retryable: true)",
                "contradictory-retry",
                hint=_contradiction_hint(entry, spec),
            )
        if (
            entry["code"] == "TIMEOUT"
            and retryable
            and data.get("annotations", {}).get("idempotent") is False
        ):
            report.warning(
                base,
                "a timed-out call of a non-idempotent tool may have taken effect; retrying it "
                "may repeat the effect",
                "timeout-retry-not-idempotent",
                hint="set `retryable: false` and `action: stop_and_tell_user`, "
                "or make the tool idempotent",
            )
        if "retry_after" in entry and not retryable:
            report.warning(
                f"{base}/retry_after",
                "retry_after has no effect on an error that is not retryable",
                "retry-after-ignored",
                hint="remove retry_after, or make the error retryable",
            )
    retry = data.get("retry", {})
    if "retryable_codes" in retry:
        listed = set(retry["retryable_codes"])
        for i, entry in enumerate(data.get("errors", [])):
            if i in skip:
                continue
            spec = CODES[entry["code"]]
            if (
                entry.get("action", spec.action) == "retry_later"
                and entry.get("retryable", spec.retryable)
                and entry["code"] not in listed
            ):
                report.warning(
                    f"/errors/{i}/code",
                    f"error {entry['class']!r} tells the model to retry later, "
                    f"but {entry['code']} is not in retry.retryable_codes",
                    "code-not-retryable",
                    hint=f"add {entry['code']} to retry.retryable_codes, or set `retryable: false`",
                )


def _contradiction_hint(entry: dict[str, Any], spec: Any) -> str:
    if "action" in entry and "retryable" in entry:
        return "make retryable and action agree, or drop both to use the code's defaults"
    changed = "action" if "action" in entry else "retryable"
    return (
        f"drop `{changed}` to use {entry['code']}'s default "
        f"({spec.action}, retryable: {str(spec.retryable).lower()})"
        if changed in entry
        else "make retryable and action agree"
    )


def _suggest_class(name: str, tool: str) -> str:
    """A free name close to ``name``: keywords get ``Error``, other names the tool's prefix."""
    if keyword.iskeyword(name):
        return name[:1].upper() + name[1:] + "Error"
    prefix = class_prefix(tool)
    return name + "Error" if name.startswith(prefix) else prefix + name[:1].upper() + name[1:]


def check_messages(report: Reporter, data: dict[str, Any]) -> None:
    """Model-facing texts may not leak internals."""
    texts: list[tuple[str, Any]] = [
        (f"/errors/{i}/message", e.get("message")) for i, e in enumerate(data.get("errors", []))
    ]
    if isinstance(data.get("deprecated"), dict):
        texts.append(("/deprecated/message", data["deprecated"].get("message")))
    if isinstance(data.get("empty_result"), dict):
        texts.append(("/empty_result/meaning", data["empty_result"].get("meaning")))
    for i, migration in enumerate(data.get("migrations", [])):
        for part in ("removed", "changed"):
            for key, text in (migration.get(part) or {}).items():
                texts.append(
                    (f"/migrations/{i}/{part}/{key.replace('~', '~0').replace('/', '~1')}", text)
                )
        texts.append((f"/migrations/{i}/notes", migration.get("notes")))
    for pointer, text in texts:
        if not isinstance(text, str):
            continue
        leaks = find_leaks(text)
        if leaks:
            shown = ", ".join(f"{leak.kind} {show(leak.text)}" for leak in leaks)
            report.error(
                pointer,
                f"expected a model-facing message free of internals (got {shown})",
                "message-leak",
                hint="say what went wrong and what to do next in the user's terms; "
                "keep internal details in logs or in `description`",
            )


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
    validator = jsonschema.Draft202012Validator(
        input_schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )
    for i, example in enumerate(examples):
        base = f"/examples/{i}/arguments"
        try:
            errors = sorted(
                validator.iter_errors(example["arguments"]),
                key=lambda e: list(map(str, e.absolute_path)),
            )
        except (Unresolvable, re.error, RecursionError) as exc:
            report.error(
                base,
                f"cannot validate this example ({type(exc).__name__.lower()})",
                "unvalidatable-example",
            )
            continue
        for error in errors:
            chosen = best_match([error]) or error
            where = base + pointer_of(chosen.absolute_path)
            if chosen.validator == "additionalProperties" and isinstance(chosen.instance, dict):
                allowed = sorted(chosen.schema.get("properties", {}))
                for extra in sorted(set(chosen.instance) - set(allowed)):
                    report.error(
                        f"{where}/{escape_pointer_token(extra)}",
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


def check_lifecycle(report: Reporter, data: dict[str, Any]) -> None:
    """The version orders; deprecation dates are real and in order; migration specifiers parse."""
    version = data["version"]
    try:
        Version(version)
    except InvalidVersion:
        report.error(
            "/version",
            f"expected a version that both semver and PEP 440 can order (got {version!r})",
            "unorderable-version",
            hint="use pre-release tags alpha.N, beta.N or rc.N, e.g. 2.0.0-rc.1",
        )
    deprecated = data.get("deprecated")
    if isinstance(deprecated, dict):
        since, sunset = deprecated.get("since"), deprecated.get("sunset")
        since_date = since_version = sunset_date = None
        if since is not None:
            since_date = _iso_date(since)
            if since_date is None:
                try:
                    since_version = Version(since)
                except InvalidVersion:
                    report.error(
                        "/deprecated/since",
                        f"expected an ISO date YYYY-MM-DD or a version (got {show(since)})",
                        "invalid-deprecation-since",
                        hint='e.g. since: "2026-11-01" or since: 2.0.0',
                    )
        if since_version is not None and _parses(version) and since_version <= Version(version):
            report.error(
                "/deprecated/since",
                f"expected a version after this one (got {since} <= {version})",
                "deprecated-since-not-later",
                hint="name the version that replaced this one",
            )
        if sunset is not None:
            sunset_date = _iso_date(sunset)
            if sunset_date is None:
                report.error(
                    "/deprecated/sunset",
                    f"expected a real calendar date YYYY-MM-DD (got {show(sunset)})",
                    "invalid-sunset-date",
                )
        if since_date and sunset_date and sunset_date <= since_date:
            report.error(
                "/deprecated/sunset",
                f"expected sunset after since (got {sunset} <= {since})",
                "sunset-before-since",
            )
    for i, migration in enumerate(data.get("migrations", [])):
        try:
            SpecifierSet(migration["from"])
        except InvalidSpecifier:
            text = migration["from"].strip()
            suggestion = f"'=={text}'" if _parses(text) else "'>=1,<2'"
            report.error(
                f"/migrations/{i}/from",
                f"expected a PEP 440 version specifier (got {show(migration['from'])})",
                "invalid-migration-from",
                hint=f"e.g. {suggestion}",
            )
            continue
        if _parses(version) and SpecifierSet(migration["from"]).contains(version, prereleases=True):
            report.error(
                f"/migrations/{i}/from",
                f"expected a range of earlier versions (got {migration['from']!r}, "
                f"which includes {version} itself)",
                "migration-from-includes-self",
                hint=f"end the range below this version, e.g. '<{Version(version).major}'",
            )
        for part in ("renamed", "removed", "changed"):
            for old, new in (migration.get(part) or {}).items():
                if part == "renamed" and old == new:
                    report.error(
                        f"/migrations/{i}/renamed/{old}",
                        f"expected a new name (got {old!r} renamed to itself)",
                        "rename-to-self",
                    )


def check_layout(report: Reporter, data: dict[str, Any]) -> None:
    """contracts/<tool>/<version>.yaml: a file named after a version should hold that version."""
    path = PurePath(report.item.path)
    if _SEMVER_FILE.match(path.stem) and path.stem.lstrip("v") != data["version"]:
        report.warning(
            "/version",
            f"expected the version to match the file name (got {data['version']!r} in {path.name})",
            "version-file-mismatch",
            hint=f"rename the file to {data['version']}{path.suffix}",
        )
        return
    if _SEMVER_FILE.match(path.stem) and path.parent.name not in ("", ".", data["name"]):
        report.warning(
            "/name",
            f"expected the tool's folder to be named after it (got {data['name']!r} in folder "
            f"{path.parent.name!r})",
            "name-folder-mismatch",
            hint=f"move the file to {data['name']}/{path.name}",
        )


def check_empty_result(
    report: Reporter, data: dict[str, Any], output_schema: dict[str, Any] | None
) -> None:
    empty = data.get("empty_result")
    if not isinstance(empty, dict) or output_schema is None:
        return
    found = lookup_argument(output_schema, empty["pointer"])
    if not found.found:
        report.error(
            "/empty_result/pointer",
            f"expected a pointer into the output schema (got {show(empty['pointer'])}: "
            f"no {found.missing} in the output schema)",
            "unknown-empty-pointer",
            hint=did_you_mean(empty["pointer"], found.candidates)
            or (f"output fields here: {', '.join(found.candidates)}" if found.candidates else None),
        )


def _iso_date(value: Any) -> dt.date | None:
    if not isinstance(value, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        return None


def _parses(version: str) -> bool:
    try:
        Version(version)
        return True
    except InvalidVersion:
        return False
