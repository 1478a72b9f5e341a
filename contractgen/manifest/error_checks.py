"""Checks on a manifest's error entries: class names, model-facing messages, field pointers, and
retry settings that agree with each other."""

from __future__ import annotations

import keyword
from typing import Any

from ..naming import class_prefix, error_class_problem
from ..runtime.codes import CODES, retry_withheld
from ..runtime.pointer import escape_token
from .describe import did_you_mean, show
from .leaks import find_leaks
from .lower import default_retryable_codes
from .report import Reporter
from .schema_walk import lookup_argument


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
        # mixed signals confuse a model, but the envelope stays well-formed: a warning
        if action in ("fix_arguments", "retry_later") and not retryable:
            report.warning(
                base,
                f"expected retryable: true with action {action!r} (got retryable: false)",
                "contradictory-retry",
                hint=_contradiction_hint(entry, spec),
            )
        if action in ("stop_and_tell_user", "escalate") and retryable:
            report.warning(
                base,
                f"expected retryable: false with action {action!r} (got retryable: true)",
                "contradictory-retry",
                hint=_contradiction_hint(entry, spec),
            )
        if entry["code"] == "TIMEOUT" and retryable and _idempotent(data) is False:
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
        elif "retry_after" in entry and retry_withheld(
            entry["code"], entry.get("retryable"), entry.get("action"), _retried_codes(data)
        ):
            report.warning(
                f"{base}/retry_after",
                f"retry_after has no effect: {entry['code']} is not in retry.retryable_codes, so the "
                "runtime tells callers not to retry this error and sends no retry_after",
                "retry-after-ignored",
                hint=f"add {entry['code']} to retry.retryable_codes to have it retried after "
                "retry_after, or remove retry_after",
            )
    retry = data.get("retry", {})
    if "retryable_codes" in retry:
        listed = set(retry["retryable_codes"])
        if "TIMEOUT" in listed and _idempotent(data) is False:
            report.warning(
                f"/retry/retryable_codes/{retry['retryable_codes'].index('TIMEOUT')}",
                "a timed-out call of a non-idempotent tool may have taken effect; retrying it "
                "may repeat the effect",
                "timeout-retry-not-idempotent",
                hint="remove TIMEOUT from retry.retryable_codes (the default for a tool with "
                "`idempotent: false`), or make the tool idempotent",
            )
        for i, entry in enumerate(data.get("errors", [])):
            if i in skip:
                continue
            spec = CODES[entry["code"]]
            if (
                entry.get("action", spec.action) == "retry_later"
                and entry.get("retryable", spec.retryable)
                and entry["code"] not in listed
            ):
                message, hint = _unlisted_retry(entry)
                report.warning(f"/errors/{i}/code", message, "code-not-retryable", hint=hint)


def _unlisted_retry(entry: dict[str, Any]) -> tuple[str, str]:
    """(message, hint) for an error of a code ``retry.retryable_codes`` leaves out, by what the
    runtime sends (``runtime.codes.retry_withheld``): an error that writes neither retryable nor
    action follows the list and is told not to retry; one that writes them keeps its own answer."""
    code, name = entry["code"], entry["class"]
    if "retryable" not in entry and "action" not in entry:
        message = (f"error {name!r} has the transient code {code}, which retry.retryable_codes does not "
                   "list: the runtime tells callers not to retry it (retryable: false, action stop_and_tell_user)")
        hint = (f"add {code} to retry.retryable_codes to have it retried, or write `retryable: false` and "
                "`action: stop_and_tell_user` to say so")
        return message, hint
    message = (f"error {name!r} tells the model to retry later, but {code} is not in retry.retryable_codes: "
               "callers are told to retry it while the published retry policy leaves it out")
    return message, f"add {code} to retry.retryable_codes, or set `retryable: false`"


def _retried_codes(data: dict[str, Any]) -> tuple[str, ...]:
    """The codes the runtime retries: ``retry.retryable_codes`` as lowered (its default when absent;
    a malformed list is reported by the meta-schema and read as the default here)."""
    retry = data.get("retry")
    listed = retry.get("retryable_codes") if isinstance(retry, dict) else None
    if isinstance(listed, list) and all(isinstance(code, str) for code in listed):
        return tuple(listed)
    return tuple(default_retryable_codes(data))


def _idempotent(data: dict[str, Any]) -> bool | None:
    """``annotations.idempotent``; another section's shape may be wrong (already reported)."""
    annotations = data.get("annotations")
    return annotations.get("idempotent") if isinstance(annotations, dict) else None


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
                    (f"/migrations/{i}/{part}/{escape_token(key)}", text)
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
