"""The manifest's ``result_rules``: checking them against the output schema, and lowering them.

Durations are ISO 8601 (weeks, days, hours, minutes, seconds: ``PT24H``, ``P7D``) or a number of
seconds. Years and months have no fixed length, so they are refused with a hint, not guessed.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from ..runtime.contract import FreshnessRule, IntegrityRule
from ..runtime.pointer import escape_token, pointer_parts
from .describe import did_you_mean, show
from .report import Reporter
from .schema_walk import lookup_argument

DEFAULT_SKEW = FreshnessRule.skew
_NUMBER = r"(\d+(?:\.\d+)?)"
_DURATION = re.compile(
    rf"P(?:{_NUMBER}W)?(?:{_NUMBER}D)?(?:T(?:{_NUMBER}H)?(?:{_NUMBER}M)?(?:{_NUMBER}S)?)?"
)
_UNITS = (7 * 86400, 86400, 3600, 60, 1)
#: the keys each kind of rule takes besides ``rule`` and ``field``: (required, optional)
_KEYS = {"integrity": (("hash_of", "algorithm"), ()), "freshness": ((), ("max_age", "skew"))}


def parse_duration(value: Any) -> float | str:
    """Seconds, or why ``value`` is not a duration (the message's "got ..." part included)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return f"expected an ISO 8601 duration or a number of seconds (got {show(value)})"
    if not isinstance(value, str):
        seconds = float(value)
    else:
        match = _DURATION.fullmatch(value.strip().upper())
        if match is None or not any(match.groups()) or value.strip().upper().endswith("T"):
            return f"expected an ISO 8601 duration such as PT24H or P7D, or a number of seconds (got {show(value)})"
        seconds = sum(
            float(part) * unit for part, unit in zip(match.groups(), _UNITS, strict=True) if part
        )
    if not math.isfinite(seconds) or seconds < 0:
        return f"expected a finite, non-negative duration (got {show(value)})"
    return seconds


def lower_result_rules(
    rules: list[Mapping[str, Any]] | None,
) -> tuple[IntegrityRule | FreshnessRule, ...]:
    lowered: list[IntegrityRule | FreshnessRule] = []
    for rule in rules or ():
        if rule["rule"] == "integrity":
            lowered.append(IntegrityRule(rule["field"], rule["hash_of"], rule["algorithm"]))
        else:
            max_age = parse_duration(rule["max_age"]) if "max_age" in rule else None
            skew = parse_duration(rule["skew"]) if "skew" in rule else DEFAULT_SKEW
            if isinstance(max_age, str) or isinstance(skew, str):
                raise ValueError(max_age if isinstance(max_age, str) else skew)
            lowered.append(FreshnessRule(rule["field"], max_age, skew))
    return tuple(lowered)


def check_result_rules(
    report: Reporter, data: dict[str, Any], output: dict[str, Any] | None
) -> None:
    seen: dict[tuple[str, str], int] = {}
    for index, rule in enumerate(data.get("result_rules") or ()):
        base = f"/result_rules/{index}"
        kind, field = rule["rule"], rule["field"]
        required, optional = _KEYS[kind]
        for key in required:
            if key not in rule:
                report.error(
                    base,
                    f"missing required key {key!r} of an integrity rule",
                    "missing-key",
                    hint=_KEY_HINTS[key],
                )
        for key in sorted(set(rule) - {"rule", "field", *required, *optional}):
            other = "freshness" if kind == "integrity" else "integrity"
            report.error(
                f"{base}/{escape_token(key)}",
                f"{key!r} belongs to {other} rules, not to {kind} rules",
                "result-rule-key-of-other-kind",
                hint=f"remove {key!r}, or make it a rule of its own",
                key=True,
            )
        if (kind, field) in seen:
            report.error(
                f"{base}/field",
                f"a second {kind} rule on {field} (the first is result_rules/{seen[(kind, field)]})",
                "duplicate-result-rule",
                hint="merge the two rules into one",
            )
        seen.setdefault((kind, field), index)
        for key in ("max_age", "skew"):
            if key in rule:
                _check_duration(report, f"{base}/{key}", rule[key], positive=key == "max_age")
        if output is None:
            continue  # the output schema's own checks say why it cannot be read
        node = _schema_at(report, output, field, f"{base}/field")
        if node is not None and kind == "integrity":
            _check_type(
                report,
                f"{base}/field",
                field,
                node,
                "string",
                None,
                "an integrity rule's field holds a hex digest: give it `type: string`",
            )
            _check_hash_of(report, base, output, field, rule.get("hash_of"))
        elif node is not None:
            _check_type(
                report,
                f"{base}/field",
                field,
                node,
                "string",
                "date-time",
                "a freshness rule's field is a timestamp: give it `type: string, format: date-time`",
            )


_KEY_HINTS = {
    "hash_of": "add `hash_of:` with the pointer of the hashed value ('' for the whole result)",
    "algorithm": "add `algorithm: sha256` (or the hashlib algorithm the tool uses)",
}


def _check_duration(report: Reporter, where: str, value: Any, positive: bool) -> None:
    seconds = parse_duration(value)
    if isinstance(seconds, str):
        months = isinstance(value, str) and re.search(r"\d[YM]", value.upper().split("T")[0])
        hint = (
            "years and months have no fixed length: write days instead, e.g. P30D"
            if months
            else "write PT24H for 24 hours, P7D for a week, or a number of seconds"
        )
        report.error(where, seconds, "invalid-duration", hint=hint)
    elif positive and seconds == 0:
        report.error(
            where,
            "expected a maximum age above zero (got 0): no timestamp could pass",
            "invalid-duration",
            hint="write the oldest acceptable age, e.g. PT24H",
        )


def _schema_at(report: Reporter, output: dict[str, Any], path: str, where: str) -> Any:
    """The output schema node ``path`` names (``*`` steps into array items), or None, reported."""
    walked: list[str] = []  # lookup_argument's form: an array item is any index
    shown = ""
    for token in pointer_parts(path):
        node = lookup_argument(output, _pointer(walked)).schema
        array = isinstance(node, dict) and ("items" in node or _types(node) == {"array"})
        if token == "*" and not array:
            report.error(
                where,
                f"expected an array at {shown or '/'} for '*' to step into (got {_kind(node)})",
                "result-rule-star-not-array",
                hint="'*' stands for every item of an array; name a property here",
            )
            return None
        if token != "*" and array and token.isdigit():
            report.error(
                where,
                f"expected '*' for the items of the array at {shown} (got index {token})",
                "result-rule-array-index",
                hint=f"write {shown}/* so that every item is checked",
            )
            return None
        walked.append("0" if token == "*" else token)
        shown += "/" + escape_token(token)
        found = lookup_argument(output, _pointer(walked))
        if not found.found:
            names = [c.rsplit("/", 1)[-1] for c in found.candidates]
            near = did_you_mean(token, names)
            parent = shown.rsplit("/", 1)[0]
            report.error(
                where,
                f"expected a pointer into the output schema (got {show(path)}: "
                f"no {shown} in the output schema)",
                "unknown-result-rule-pointer",
                hint=(
                    f"did you mean {parent}/{near.split(chr(39))[1]}?"
                    if near and "'" in near
                    else None
                )
                or (
                    f"output fields here: {', '.join(f'{parent}/{n}' for n in names)}"
                    if names
                    else None
                ),
            )
            return None
    return lookup_argument(output, _pointer(walked)).schema


def _check_type(
    report: Reporter, where: str, path: str, node: Any, kind: str, format_: str | None, hint: str
) -> None:
    types = _types(node)
    if kind not in types:
        report.error(
            where,
            f"expected {path} to be a {kind} in the output schema (got {_kind(node)})",
            "result-rule-field-type",
            hint=hint,
        )
    elif format_ is not None and node.get("format") != format_:
        got = f"format {node['format']!r}" if node.get("format") else "no format"
        report.error(
            where,
            f"expected {path} to have format {format_!r} in the output schema (got {got})",
            "result-rule-field-format",
            hint=hint,
        )


def _check_hash_of(
    report: Reporter, base: str, output: dict[str, Any], field: str, hash_of: Any
) -> None:
    if not isinstance(hash_of, str):
        return
    if hash_of == field:
        report.error(
            f"{base}/hash_of",
            f"expected a value other than the hash itself (got {show(hash_of)})",
            "result-rule-hashes-itself",
            hint="name the field whose content the hash covers",
        )
        return
    if hash_of != "" and _schema_at(report, output, hash_of, f"{base}/hash_of") is None:
        return
    source, target = pointer_parts(hash_of), pointer_parts(field)
    last = max((i for i, t in enumerate(source) if t == "*"), default=-1)
    if source[: last + 1] != target[: last + 1]:
        report.error(
            f"{base}/hash_of",
            f"expected each '*' of hash_of to be an array that field is in "
            f"(got {show(hash_of)} for field {show(field)})",
            "result-rule-unbound-star",
            hint="hash a value of the same item, e.g. /chunks/*/content for /chunks/*/content_hash",
        )


def _types(node: Any) -> set[str]:
    declared = node.get("type") if isinstance(node, dict) else None
    return {declared} if isinstance(declared, str) else set(declared or ())


def _kind(node: Any) -> str:
    types = _types(node)
    return " or ".join(sorted(types)) if types else "no declared type"


def _pointer(tokens: list[str]) -> str:
    return "".join("/" + escape_token(t) for t in tokens)


__all__ = ["check_result_rules", "lower_result_rules", "parse_duration"]
