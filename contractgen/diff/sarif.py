"""Render a diff report as SARIF 2.1.0 for code scanning (GitHub and other SARIF consumers).

Every rule is listed in the driver (so ``ruleIndex`` is stable across runs); each finding is one
result on the manifest's file and line, with a stable ``partialFingerprints`` entry. Findings that
cannot fail the run (acknowledged in configuration, or allowed by a major version bump or a pre-release) are kept,
with a suppression that says why, so code scanning shows them as dismissed rather than losing them.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

from .. import __version__
from ..diagnostics import escape_controls
from .engine import DiffReport
from .levels import group_of
from .model import Finding, Level
from .registry import RULES
from .render import Labels, json_text, witness_json

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
FINGERPRINT_KEY = "contractgen/v1"
_SARIF_LEVEL = {Level.BREAKING: "error", Level.DANGEROUS: "warning", Level.SAFE: "note"}


def _rule_name(rule_id: str) -> str:
    return "".join(part.capitalize() for part in re.split(r"[^0-9A-Za-z]+", rule_id) if part)


def _rule_descriptor(rule: Any) -> dict[str, Any]:
    rationale = rule.rationale or rule.summary
    help_text = rationale
    if rule.strict_level is not None and rule.strict_level is not rule.level:
        help_text += f"\n\nUnder --strict this rule reports at level {rule.strict_level.value}."
    return {
        "id": rule.id,
        "name": _rule_name(rule.id),
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rationale.split("\n\n")[0]},
        "help": {"text": help_text},
        "defaultConfiguration": {"level": _SARIF_LEVEL[rule.level]},
        "properties": {"tags": sorted({"contractgen", group_of(rule), rule.direction.value}),
                       "group": group_of(rule)},
    }


def _message(finding: Finding) -> str:
    versions = " -> ".join(v for v in (finding.old_version, finding.new_version) if v)
    text = f"{finding.tool} {versions} #{finding.pointer}: {finding.message}"
    if finding.has_witness:
        text += f" (witness: {witness_json(finding.witness)})"
    elif finding.witness_note:
        text += f" ({finding.witness_note})"
    return escape_controls(text)  # a viewer shows it as written: no bidi or control character reaches it


def _location(finding: Finding) -> list[dict[str, Any]]:
    logical = {"name": escape_controls(finding.pointer or "/"),
               "fullyQualifiedName": escape_controls(f"{finding.tool}#{finding.pointer}"), "kind": "member"}
    location: dict[str, Any] = {"logicalLocations": [logical]}
    if finding.file:
        # a file name's undecodable bytes (surrogate escapes) are percent-encoded as the bytes they were
        uri = quote(finding.file.replace("\\", "/"), errors="surrogateescape")
        physical: dict[str, Any] = {"artifactLocation": {"uri": uri, "uriBaseId": "%SRCROOT%"}}
        if finding.line is not None and finding.line >= 1:
            region: dict[str, Any] = {"startLine": finding.line}
            if finding.column is not None and finding.column >= 1:
                region["startColumn"] = finding.column
            physical["region"] = region
        location["physicalLocation"] = physical
    return [location]


def _result(finding: Finding, index: dict[str, int], labels: Labels) -> dict[str, Any]:
    result: dict[str, Any] = {
        "ruleId": finding.rule,
        "level": _SARIF_LEVEL[finding.level],
        "message": {"text": _message(finding)},
        "locations": _location(finding),
        "partialFingerprints": {FINGERPRINT_KEY: finding.fingerprint},
        "properties": {"tool": finding.tool, "oldVersion": finding.old_version, "newVersion": finding.new_version,
                       "pointer": finding.pointer, "side": finding.side,
                       "witness": finding.witness if finding.has_witness else None},
    }
    if finding.rule in index:  # a rule turned off in configuration reports nothing, so this always holds
        result["ruleIndex"] = index[finding.rule]
    if finding.side == "old" and labels.old_prefix:
        result["properties"]["revision"] = labels.old_prefix.rstrip(":")
    reasons = [r for r in (finding.ignored_by and f"acknowledged in configuration: {finding.ignored_by}",
                           finding.allowed_by and finding.level is not Level.SAFE and f"allowed: {finding.allowed_by}")
               if r]
    if reasons:
        result["suppressions"] = [{"kind": "external", "justification": escape_controls("; ".join(reasons))}]
    return result


def render_sarif(report: DiffReport, labels: Labels) -> str:
    index = {rule.id: i for i, rule in enumerate(RULES)}
    run = {
        "tool": {"driver": {"name": "contractgen", "version": __version__, "semanticVersion": __version__,
                            "rules": [_rule_descriptor(rule) for rule in RULES]}},
        "columnKind": "unicodeCodePoints",
        "invocations": [{"executionSuccessful": True, "exitCode": report.exit_code}],
        "results": [_result(f, index, labels) for f in report.findings],
        "properties": {"old": labels.old, "new": labels.new, "strict": labels.strict,
                       "failOn": report.fail_on.value},
    }
    document = {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}
    return json_text(document, indent=2) + "\n"
