"""Render a diff report as text (grouped by tool), JSON, Markdown, GitHub annotations or JUnit XML.

Rendering returns strings; only ``contractgen.cli`` prints. The JSON shape is documented in
docs/diff.md and versioned by its ``schema`` field.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from itertools import groupby
from typing import Any

from ..diagnostics import escape_controls
from .engine import DiffReport
from .model import Finding, Level

JSON_SCHEMA_ID = "contractgen-diff/1"
_COLOURS = {Level.BREAKING: "\x1b[31;1m", Level.DANGEROUS: "\x1b[33;1m", Level.SAFE: "\x1b[36m"}
_RESET, _DIM = "\x1b[0m", "\x1b[2m"


@dataclass(frozen=True)
class Labels:
    mode: str
    old: str
    new: str
    old_prefix: str = ""  # shown before old-side file names ("main:" for --against main)
    strict: bool = False


def finding_line(finding: Finding) -> str:
    """The golden-file line: ``LEVEL rule-id #/pointer: message``."""
    return f"{finding.level.tag} {finding.rule} #{finding.pointer}: {finding.message}"


def _location(finding: Finding, labels: Labels) -> str:
    if finding.file is None:
        return ""
    text = (labels.old_prefix if finding.side == "old" else "") + finding.file
    if finding.line is not None:
        text += f":{finding.line}"
        if finding.column is not None:
            text += f":{finding.column}"
    return text


def _pair_title(finding: Finding) -> str:
    if finding.old_version and finding.new_version:
        return f"{finding.tool} {finding.old_version} -> {finding.new_version}"
    return f"{finding.tool} {finding.old_version or finding.new_version}"


def _group_key(finding: Finding) -> tuple[str, str, str]:
    return (finding.tool, finding.old_version or "", finding.new_version or "")


def witness_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(", ", ": "))


def json_text(document: Any, **options: Any) -> str:
    """``json.dumps`` that keeps non-ASCII text readable but writes every control, bidi or other
    invisible character (and a lone surrogate) as a ``\\u`` escape: the data reads back the same,
    and the file shown on a terminal or in an editor shows what is in it."""
    text = json.dumps(document, ensure_ascii=False, **options)
    if text.replace("\n", "").isprintable():
        return text
    return "".join(json.dumps(c)[1:-1] if c != "\n" and escape_controls(c) != c else c for c in text)


def summary(report: DiffReport) -> str:
    allowances = [f.allowed_by for f in report.findings if f.allowed_by and f.ignored_by is None and f.level is not Level.SAFE]
    allowed = len(allowances)
    parts = [f"{report.count(Level.BREAKING)} breaking", f"{report.count(Level.DANGEROUS)} dangerous",
             f"{report.count(Level.SAFE)} safe"]
    text = f"{report.compared} version pair{'s' if report.compared != 1 else ''} compared: " + ", ".join(parts)
    if allowed:
        text += f" ({allowed} allowed by {_allowed_by(allowances)})"
    if report.ignored:
        text += f", {report.ignored} acknowledged in configuration"
    failing = len(report.failing)
    verdict = f"FAILED: {failing} finding{'s' if failing != 1 else ''} need{'s' if failing == 1 else ''} " \
              "a major version bump, a migration, or a fix" if failing else "OK"
    return f"{text}\n{verdict}"


def _allowed_by(allowances: list[str], short: bool = False) -> str:
    """What let findings through (``rules._versions.breaking_allowance``): a major bump, a pre-release."""
    kinds = ["major bump" if short else "a major version bump"] if any(a.startswith("major") for a in allowances) else []
    if not all(a.startswith("major") for a in allowances):
        kinds.append("pre-release" if short else "a pre-release version")
    return " or ".join(kinds)


def render_text(report: DiffReport, labels: Labels, *, color: bool = False, verbose: bool = True) -> str:
    def paint(text: str, code: str) -> str:
        return f"{code}{text}{_RESET}" if color else text

    lines: list[str] = []
    for key, group in groupby(report.findings, key=_group_key):
        findings = list(group)
        title = escape_controls(_pair_title(findings[0]))
        lines.append(paint(title, "\x1b[1m") if color else title)
        for finding in findings:
            tag = paint(f"{finding.level.tag:<4}", _COLOURS[finding.level])
            # names and messages come from files and manifests: no raw control characters reach the terminal
            where, ptr, message = (escape_controls(t) for t in (_location(finding, labels), finding.pointer,
                                                                 finding.message))
            lines.append(f"  {tag} {finding.rule}  {where} #{ptr}: {message}")
            notes: list[str] = []
            if finding.ignored_by:
                notes.append(f"acknowledged: {finding.ignored_by}")
            elif finding.allowed_by and finding.level is not Level.SAFE:
                notes.append(f"allowed: {finding.allowed_by}")
            if finding.has_witness:
                notes.append(f"witness: {witness_json(finding.witness)}")
            elif finding.witness_note:
                notes.append(finding.witness_note)
            if verbose and finding.level is not Level.SAFE:
                notes.append(f"fingerprint: {finding.fingerprint}")
            notes = [escape_controls(n) for n in notes]
            lines.extend(f"       {paint(n, _DIM) if color else n}" for n in notes)
        lines.append("")
    if not report.findings:
        lines.append("no changes found")
    lines.append(summary(report))
    return "\n".join(lines) + "\n"


def finding_json(finding: Finding) -> dict[str, Any]:
    return {
        "fingerprint": finding.fingerprint, "rule": finding.rule, "level": finding.level.value,
        "tag": finding.level.tag, "tool": finding.tool, "old_version": finding.old_version,
        "new_version": finding.new_version, "pointer": finding.pointer, "message": finding.message,
        "file": finding.file, "line": finding.line, "column": finding.column, "side": finding.side,
        "witness": finding.witness if finding.has_witness else None, "has_witness": finding.has_witness,
        "witness_note": finding.witness_note,
        "allowed_by": finding.allowed_by, "acknowledged_by": finding.ignored_by, "counts": finding.counts,
    }


def render_json(report: DiffReport, labels: Labels) -> str:
    document = {
        "schema": JSON_SCHEMA_ID, "mode": labels.mode, "old": labels.old, "new": labels.new,
        "policy": {"strict": labels.strict, "fail_on": report.fail_on.value},
        "result": {"exit_code": report.exit_code, "compared": report.compared,
                   "breaking": report.count(Level.BREAKING), "dangerous": report.count(Level.DANGEROUS),
                   "safe": report.count(Level.SAFE), "acknowledged": report.ignored,
                   "failing": [f.fingerprint for f in report.failing]},
        "findings": [finding_json(f) for f in report.findings],
    }
    return json_text(document, indent=2, sort_keys=False) + "\n"


#: every ASCII punctuation character: CommonMark reads each one escaped by a backslash as itself
_MD_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")


def _md(text: str) -> str:
    """Text from manifests, file names or revisions as literal Markdown on one line of a table cell.

    A property name is the manifest author's to choose (``![x](https://...)``, a backtick, ``<img>``,
    ``|``): every ASCII punctuation character is escaped, so nothing in it becomes a link, an image,
    HTML, emphasis, a code span, a cell break or (GFM) a bare URL's autolink; control and bidi
    characters are written as escapes. GFM links ``a@b.c`` even when escaped: an empty ``<wbr>``
    element before each ``@`` leaves no address in one run of text."""
    escaped = _MD_PUNCTUATION.sub(r"\\\1", escape_controls(text.replace("\n", " ")))
    return escaped.replace("\\@", "<wbr>\\@")


def _md_code(text: str) -> str:
    """``_md`` in code type: a code span cannot be escaped from inside, an HTML ``code`` element can."""
    return f"<code>{_md(text)}</code>"


def render_markdown(report: DiffReport, labels: Labels) -> str:
    failing = len(report.failing)
    head = (f"### contractgen diff: {failing} finding{'s' if failing != 1 else ''} to fix" if failing
            else "### contractgen diff: no unacknowledged breaking changes")
    lines = [head, "", f"{_md_code(labels.old)} → {_md_code(labels.new)}", ""]
    if report.findings:
        lines += ["| Level | Rule | Tool | Where | Finding |", "|---|---|---|---|---|"]
        for f in report.findings:
            status = " (acknowledged)" if f.ignored_by else f" (allowed: {_allowed_by([f.allowed_by], short=True)})" \
                if f.allowed_by and f.level is not Level.SAFE else ""
            where = f"{_md_code('#' + f.pointer)}<br>{_md(_location(f, labels))}"
            lines.append(f"| **{f.level.tag}**{status} | `{f.rule}` | {_md(_pair_title(f))} | {where} | {_md(f.message)} |")
        witnesses = [f for f in report.findings if f.has_witness]
        if witnesses:
            lines += ["", "<details><summary>Witnesses: arguments the old schema accepts and the new one rejects</summary>",
                      ""]
            for f in witnesses:
                # one line of JSON cannot close the fence; escapes keep bidi characters out of it
                lines += [f"`{f.rule}` {_md_code('#' + f.pointer)} ({_md(_pair_title(f))}):", "", "```json",
                          escape_controls(witness_json(f.witness)), "```", ""]
            lines.append("</details>")
    else:
        lines.append("No changes found.")
    lines += ["", summary(report).replace("\n", "  \n")]
    return "\n".join(lines) + "\n"


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(escape_controls(text)).replace(":", "%3A").replace(",", "%2C")


def render_github(report: DiffReport, labels: Labels) -> str:
    """Workflow commands: ``::error file=...,line=...::message`` on the manifest's file and line.

    The runner shows annotations as written: names and messages have their control and bidi
    characters escaped, and only the message's own line breaks are kept (as ``%0A``)."""
    lines: list[str] = []
    limit = report.fail_on.rank
    for f in report.findings:
        if f.ignored_by:
            continue
        command = "error" if f.counts and f.level.rank <= limit else \
            "warning" if f.level is not Level.SAFE else "notice"
        props = []
        if f.file:
            props.append(f"file={_escape_property(f.file)}")
            if f.line is not None:
                props.append(f"line={f.line}")
                if f.column is not None:
                    props.append(f"col={f.column}")
        props.append(f"title={_escape_property(f'{f.level.tag} {f.rule} ({_pair_title(f)})')}")
        message = [f"#{f.pointer}: {f.message}"]
        if f.allowed_by and f.level is not Level.SAFE:
            message[0] += f" (allowed: {f.allowed_by})"
        if f.has_witness:
            message.append(f"witness: {witness_json(f.witness)}")
        elif f.witness_note:
            message.append(f.witness_note)
        message.append(f"fingerprint: {f.fingerprint}")
        lines.append(f"::{command} {','.join(props)}::{'%0A'.join(_escape_data(escape_controls(m)) for m in message)}")
    lines.append(summary(report).replace("\n", " - "))
    return "\n".join(lines) + "\n"


def render_junit(report: DiffReport, labels: Labels) -> str:
    """One test case per finding (failure when it fails the run, skipped when acknowledged)."""
    limit = report.fail_on.rank
    suite = ET.Element("testsuite", name="contractgen diff", tests=str(max(len(report.findings), 1)),
                       failures=str(len(report.failing)),
                       skipped=str(report.ignored))
    if not report.findings:
        ET.SubElement(suite, "testcase", classname="contractgen.diff", name="no changes")
    for f in report.findings:
        # XML 1.0 cannot hold most control characters (ESC made the report unparseable): all are escaped
        case = ET.SubElement(suite, "testcase", classname=escape_controls(f"contractgen.diff.{f.tool}"),
                             name=escape_controls(f"{f.rule} #{f.pointer} ({_pair_title(f)})"),
                             file=escape_controls(f.file or ""))
        body = [f"{_location(f, labels)} #{f.pointer}: {f.message}"]
        if f.has_witness:
            body.append(f"witness: {witness_json(f.witness)}")
        if f.ignored_by:
            ET.SubElement(case, "skipped", message=escape_controls(f"acknowledged: {f.ignored_by}"))
        elif f.counts and f.level.rank <= limit:
            failure = ET.SubElement(case, "failure", message=escape_controls(f"{f.level.tag} {f.rule}: {f.message}"),
                                    type=f.level.value)
            failure.text = "\n".join(map(escape_controls, body))
        else:
            out = ET.SubElement(case, "system-out")
            body += [f"allowed: {f.allowed_by}"] if f.allowed_by else []
            out.text = "\n".join(map(escape_controls, body))
    ET.indent(suite)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suite, encoding="unicode") + "\n"


RENDERERS = {"json": render_json, "markdown": render_markdown, "github": render_github, "junit": render_junit}
