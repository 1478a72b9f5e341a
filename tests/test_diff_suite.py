"""The diff against the official JSON-Schema-Test-Suite (draft 2020-12) from the shared corpus.

Every pair of schemas from one suite file becomes an old and a new input property. Three promises
are checked on ~2,000 pairs: the diff never crashes, every witness it reports is accepted by the old
schema and rejected by the new one, and (under --strict) whenever the suite's own test data shows a
value the old schema accepts and the new one rejects, the diff reports a breaking or dangerous
input finding: no silent narrowing.
"""

from __future__ import annotations

import itertools
import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from contractgen.diff import Context, DiffSettings, Level, run_diff
from contractgen.diff.structure import ToolPair
from contractgen.ir import ToolVersion
from contractgen.runtime import reference_validator
from contractgen.runtime.contract import Contract

#: features outside what a tool manifest can hold (remote or dynamic references, ids, anchors)
UNSUPPORTED = ('"$id"', '"$dynamicRef"', '"$anchor"', '"$recursive', "http", "urn:", '"#"', '"#/properties',
               '"#/items', '"#/prefix', "~")


def _wrap(schema: dict[str, Any]) -> dict[str, Any]:
    schema = {k: v for k, v in schema.items() if k != "$schema"}
    defs = schema.pop("$defs", None)
    wrapped: dict[str, Any] = {"type": "object", "properties": {"x": schema}, "required": ["x"]}
    if defs:
        wrapped["$defs"] = defs
    return wrapped


def _tool(schema: dict[str, Any], version: str) -> ToolVersion:
    contract = Contract(name="t", version=version, summary="s", description="d", input_schema=_wrap(schema),
                        output_schema={"type": "object"})
    return ToolVersion(contract, f"{version}.yaml", {})


def _pairs(suite: Path) -> list[tuple[str, dict[str, Any], dict[str, Any], list[Any]]]:
    out = []
    for path in sorted((suite / "tests" / "draft2020-12").glob("*.json")):
        groups = [g for g in json.loads(path.read_text("utf-8")) if isinstance(g["schema"], dict)]
        for group in groups:
            group["schema"] = {k: v for k, v in group["schema"].items() if k != "$schema"}
        groups = [g for g in groups if not any(u in json.dumps(g["schema"]) for u in UNSUPPORTED)]
        for a, b in itertools.permutations(groups[:25], 2):
            data = [t["data"] for t in a["tests"] + b["tests"]]
            out.append((f"{path.stem}: {a['description']} -> {b['description']}", a["schema"], b["schema"], data))
    return out


def _validator(schema: dict[str, Any]) -> Any:
    """The reference judge, with the guard's regex semantics."""
    return reference_validator.validator(_wrap(schema))


def _decides(validator: Any, value: Any) -> bool | None:
    try:
        return validator.is_valid({"x": value})
    except Exception:  # noqa: BLE001 - e.g. a regex Python's re cannot compile
        return None


@pytest.mark.parametrize("strict", [False, True], ids=["default", "strict"])
def test_suite_pairs_never_crash_and_witnesses_hold(corpus: Path, strict: bool) -> None:
    pairs = _pairs(corpus / "json_schema_test_suite")
    assert len(pairs) > 1000
    silent: list[str] = []
    for label, old, new, data in pairs:
        report = run_diff([ToolPair(_tool(old, "1.0.0"), _tool(new, "2.0.0"))], [], DiffSettings(),
                          Context(date(2026, 1, 1), strict=strict))
        old_validator, new_validator = _validator(old), _validator(new)
        for finding in report.findings:
            if finding.has_witness:
                assert old_validator.is_valid(finding.witness), (label, finding)
                assert not new_validator.is_valid(finding.witness), (label, finding)
        if not strict:
            continue  # the default reading may stay quiet on a narrowing only --strict reports
        narrowed = [d for d in data if _decides(old_validator, d) is True and _decides(new_validator, d) is False]
        flagged = [f for f in report.findings if f.level is not Level.SAFE and f.pointer.startswith("/input")]
        if narrowed and not flagged:
            silent.append(f"{label}: {narrowed[0]!r}")
    assert silent == [], "\n".join(silent[:20])


def _reordered_and_redescribed(value: Any) -> Any:
    """The same schema with every mapping's keys reversed and descriptions/titles rewritten."""
    if isinstance(value, dict):
        out = {k: _reordered_and_redescribed(v) for k, v in reversed(list(value.items()))}
        for key in ("description", "title"):
            if isinstance(out.get(key), str):
                out[key] = out[key] + " (reworded)"
        out.setdefault("description", "added description") if "type" in value else None
        return out
    if isinstance(value, list):
        return [_reordered_and_redescribed(v) for v in value]
    return value


def test_suite_schemas_reordered_or_moved_to_defs_are_not_changes(corpus: Path) -> None:
    seen = 0
    schemas = {json.dumps(old, sort_keys=True): old for _, old, _, _ in _pairs(corpus / "json_schema_test_suite")}
    for schema in schemas.values():
        if "$ref" in json.dumps(schema) or "enum" in json.dumps(schema) or "const" in json.dumps(schema):
            continue  # keep reference targets and literal values exactly as written
        old = _tool(schema, "1.0.0")
        reordered = _tool(_reordered_and_redescribed(schema), "1.0.1")
        moved_contract = Contract(name="t", version="1.0.2", summary="s", description="d",
                                  input_schema={"type": "object", "properties": {"x": {"$ref": "#/$defs/moved"}},
                                                "required": ["x"], "$defs": {"moved": schema}},
                                  output_schema={"type": "object"})
        moved = ToolVersion(moved_contract, "1.0.2.yaml", {})
        for new in (reordered, moved):
            report = run_diff([ToolPair(old, new)], [], DiffSettings(), Context(date(2026, 1, 1), strict=True))
            assert report.findings == (), (schema, [f.message for f in report.findings])
        seen += 1
    assert seen > 50
