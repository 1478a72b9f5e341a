"""`check` judges a format as the guard does, on every machine.

The guard asserts formats with jsonschema-rs (``formats=True``); jsonschema, which `check` and
`diff` read with, asserts ``date-time``, ``time``, ``hostname`` or the URI formats only where
optional packages happen to be installed, and takes any text holding an @ for an ``email``. So an
example call could pass `check` and be refused by the guard it documents (the bundled book_meeting
2.0.0 did exactly that). Here the reference validator's verdict on every format the guard asserts is
compared with the guard's own, whatever jsonschema's registry holds.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import jsonschema
import pytest
from build_support import imported_package, make_project
from conftest import run_cli
from hypothesis import example, given, settings
from hypothesis import strategies as st

from contractgen.runtime import reference_validator
from contractgen.runtime.reference_validator import GUARD_FORMATS
from contractgen.runtime.schema_check import SchemaCheck

#: texts on the edges of the formats, where jsonschema's optional checkers (or their absence) and
#: jsonschema-rs part ways
EDGES = (
    "", "2026-12-01T15:00:00", "2026-12-01T15:00:00Z", "2026-12-01t15:00:00+01:00", "2016-12-31T23:59:60Z",
    "2026-02-30", "2026-12-01", "15:00:00", "15:00:00+01:00", "24:00:00Z", "P1D", "PT", "P1W2D", "PT1.5S",
    "ana@example.com", "ana@", "a@b", "a@localhost", "用户@例子.广告", "josé@example.com", "a b@example.com",
    "example.com", "-bad-.com", "例子.广告", "a" * 64 + ".com", "bücher.example", "127.0.0.1", "256.1.1.1",
    "01.1.1.1", "::1", "1::2::3", "https://example.com/a b", "https://example.com/ä", "/x", "x", "http://[::1]/",
    "urn:isbn:0451450523", "{+path}/x", "{unclosed", "/a~2", "/a~1b", "0/a", "1#", "-1/a",
    "123e4567-e89b-12d3-a456-426614174000", "123e4567e89b12d3a456426614174000",
)


def _guard_accepts(fmt: str, text: str) -> bool:
    return SchemaCheck({"type": "string", "format": fmt}, formats=True).is_valid(text)


def _check_accepts(fmt: str, text: str) -> bool:
    return bool(reference_validator.validator({"type": "string", "format": fmt}).is_valid(text))


@pytest.mark.parametrize("fmt", GUARD_FORMATS)
def test_every_edge_text_is_judged_as_the_guard_judges_it(fmt: str) -> None:
    assert [t for t in EDGES if _check_accepts(fmt, t) != _guard_accepts(fmt, t)] == []


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(GUARD_FORMATS), st.text(st.characters(codec="utf-8"), max_size=24)
       | st.from_regex(r"[0-9TZ:.+-]{4,26}", fullmatch=True) | st.emails())
@example("date-time", "2026-12-01T15:00:00")
def test_any_text_is_judged_as_the_guard_judges_it(fmt: str, text: str) -> None:
    assert _check_accepts(fmt, text) == _guard_accepts(fmt, text)


@pytest.fixture
def lax_registry(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """jsonschema's global format registry with a checker that takes anything for every format (as
    a lax optional package would install), and the reference checker built again over it."""
    for checkers in (jsonschema.Draft202012Validator.FORMAT_CHECKER.checkers, jsonschema.FormatChecker.checkers):
        for fmt in GUARD_FORMATS:
            monkeypatch.setitem(checkers, fmt, (lambda _text: True, ()))
    reference_validator.format_checker.cache_clear()
    reference_validator.validator_class.cache_clear()
    yield
    monkeypatch.undo()
    reference_validator.format_checker.cache_clear()
    reference_validator.validator_class.cache_clear()


@pytest.mark.usefixtures("lax_registry")
def test_the_verdict_does_not_depend_on_what_jsonschema_has_installed() -> None:
    refused = ("2026-12-01T15:00:00", "15:00:00", "PT", "a@b c", "-bad-.com", "https://example.com/a b")
    for fmt, text in zip(("date-time", "time", "duration", "email", "hostname", "uri"), refused, strict=True):
        assert not _guard_accepts(fmt, text)
        assert not _check_accepts(fmt, text), (fmt, text)


MANIFEST = """\
name: meet
version: 1.0.0
summary: Books a meeting.
description: Books a meeting at the given start in the user's calendar.
input:
  type: object
  additionalProperties: false
  required: [start]
  properties:
    start: {type: string, format: date-time, description: Start of the meeting., examples: ["START"]}
output:
  type: object
  required: [id]
  properties:
    id: {type: string}
examples:
  - summary: One meeting
    arguments: {start: "START"}
"""


def _project(tmp_path: Path, start: str) -> Path:
    root = make_project(tmp_path / "project")
    (root / "contracts" / "meet").mkdir()
    (root / "contracts" / "meet" / "1.0.0.yaml").write_text(MANIFEST.replace("START", start), "utf-8")
    return root


def test_check_refuses_a_date_time_without_offset_with_the_fix(tmp_path: Path) -> None:
    result = run_cli("check", cwd=_project(tmp_path, "2026-12-01T15:00:00"))
    assert result.returncode == 2, result.stdout + result.stderr
    out = result.stdout + result.stderr
    assert "contracts/meet/1.0.0.yaml:10:" in out and "#/input/properties/start/examples/0" in out
    assert "#/examples/0/arguments/start" in out
    assert "expected a date-time string (got '2026-12-01T15:00:00')" in out
    assert "hint: a date-time is RFC 3339: a date, a time and a time-zone offset" in out
    assert "the guard asserts formats, so it refuses this value" in out
    assert "Traceback" not in out


def test_a_value_the_format_admits_and_the_model_type_cannot_hold_keeps_its_hint(tmp_path: Path) -> None:
    result = run_cli("check", cwd=_project(tmp_path, "2016-12-31T23:59:60Z"))  # a leap second
    out = result.stdout + result.stderr
    assert result.returncode == 2 and "reads date-time text into a Python type that cannot hold" in out, out
    assert "formats are asserted" not in out


def test_an_example_check_accepts_is_one_the_built_guard_accepts_with_formats(tmp_path: Path) -> None:
    root = _project(tmp_path, "2026-12-01T15:00:00+01:00")
    result = run_cli("build", cwd=root)
    assert result.returncode == 0, result.stdout + result.stderr
    with imported_package(root) as generated:
        module = generated.meet_v1
        tool = module.meet.implement(lambda args: {"id": args.start.isoformat()}, formats=True)
        for call in module.CONTRACT.examples:
            assert tool(dict(call.arguments))["status"] == "ok"
        refused = tool({"start": "2026-12-01T15:00:00"})
        assert refused["status"] == "error" and refused["error"]["field"] == "/start"
