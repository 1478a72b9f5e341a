"""Golden cases for the guard's model-facing messages: one directory per case under
tests/cases/runtime/, holding ``case.json`` (a schema, which side of the call it guards, a value) and
``expected.json`` (the envelope the real guard returns, and the violations of the value).

Both validation backends (jsonschema-rs and jsonschema) must explain a value the same way. After an
intended change: ``python -m pytest tests/test_runtime_messages.py --update-goldens``.
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from contractgen.runtime.contract import Contract
from contractgen.runtime.guard import guard
from contractgen.runtime.schema_check import SchemaCheck
from contractgen.runtime.wording import ARGUMENTS, RESULT

CASES = Path(__file__).parent / "cases" / "runtime"
UPDATE_COMMAND = "python -m pytest tests/test_runtime_messages.py --update-goldens"
OPEN = {"type": "object"}


def _case_names() -> list[str]:
    return sorted(p.name for p in CASES.iterdir() if (p / "case.json").is_file())


def _run(case: dict[str, Any]) -> dict[str, Any]:
    schema, value, side = case["schema"], case["value"], case["side"]
    if side == "input":
        contract = Contract("case_tool", "1.0.0", "s", "d", schema, OPEN)
        envelope = dict(guard(contract, lambda arguments: {})(value))
    else:
        contract = Contract("case_tool", "1.0.0", "s", "d", OPEN, schema)
        envelope = dict(guard(contract, lambda arguments: value)({}))
    if "error" in envelope and "ref" in envelope["error"]:  # random per call
        envelope["error"] = {**envelope["error"], "ref": "<ref>"}
        envelope["error"]["message"] = envelope["error"]["message"].replace(
            envelope_ref(envelope), "<ref>")
    subject = ARGUMENTS if side == "input" else RESULT
    by_backend = [
        [v.as_dict() for v in SchemaCheck(schema, prefer_fast=fast, subject=subject).violations(value)]
        for fast in (True, False)
    ]
    assert by_backend[0] == by_backend[1], "jsonschema-rs and jsonschema explain the value differently"
    return {"envelope": envelope, "violations": by_backend[0]}


def envelope_ref(envelope: dict[str, Any]) -> str:
    message = envelope["error"]["message"]
    marker = "reference "
    return message.split(marker, 1)[1][:8] if marker in message else "<no ref>"


def test_there_are_cases() -> None:
    assert len(_case_names()) >= 8


@pytest.mark.parametrize("name", _case_names())
def test_runtime_message_case(name: str, update_goldens: bool) -> None:
    case = json.loads((CASES / name / "case.json").read_text("utf-8"))
    actual = json.dumps(_run(case), indent=2, ensure_ascii=False) + "\n"
    expected_file = CASES / name / "expected.json"
    if update_goldens:
        expected_file.write_text(actual, "utf-8")
        return
    expected = expected_file.read_text("utf-8") if expected_file.exists() else ""
    if actual != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True),
                                            f"{name}/expected.json", "actual"))
        pytest.fail(f"messages differ from the golden:\n{diff}\nto accept the new output: {UPDATE_COMMAND}",
                    pytrace=False)


def test_notices_on_every_call_path_and_only_on_open_schemas() -> None:
    """The inline path, the full path (an on_call hook forces it) and acall give the same notice;
    a closed schema refuses the key instead, and 100,000 undeclared keys stay cheap to explain."""
    import asyncio

    from contractgen.testing import envelope_problems

    schema = {"type": "object", "properties": {"owner": {"type": "string"}, "repo": {"type": "string"}}}
    contract = Contract("case_tool", "1.0.0", "s", "d", schema, OPEN)
    inline = guard(contract, lambda arguments: {})
    full = guard(contract, lambda arguments: {}, on_call=lambda record: None)
    call = {"ownr": "octo", "repo": "hello"}
    envelopes = [inline(call), full(call), asyncio.run(inline.acall(call))]
    assert all(e == envelopes[0] for e in envelopes)
    assert [n["did_you_mean"] for n in envelopes[0]["notices"]] == ["owner"]
    assert envelope_problems(envelopes[0], contract) == []
    closed = Contract("case_tool", "1.0.0", "s", "d", {**schema, "additionalProperties": False}, OPEN)
    refused = guard(closed, lambda arguments: {})(call)
    assert refused["status"] == "error" and refused["error"]["violations"][0]["did_you_mean"] == "owner"
    many = {f"k{i}": i for i in range(100_000)} | {"ownr": "octo"}
    assert "notices" not in inline(many)  # only the first 50 undeclared keys are looked at


@settings(max_examples=500, deadline=None)
@given(text=st.text(st.sampled_from(" a\t\n\r\x0b\x0c\x1c\x85\xa0\u2028\u3000é") | st.characters(), max_size=40),
       limit=st.sampled_from([5, 300]))
@example(text="trailing ", limit=300)
@example(text=" leading", limit=300)
@example(text="two  spaces", limit=300)
@example(text="a\u2028line", limit=300)
@example(text="a \x1b b\u200b", limit=300)
def test_a_message_is_one_line_of_single_spaces_whatever_it_holds(text: str, limit: int) -> None:
    """cap_text tells printable text without runs of spaces in C and leaves it as it is; any other
    text is split at whitespace of every kind and joined by single spaces, and loses the characters a
    reader cannot see (``visible``: a control, a format character), the words on either side kept."""
    from contractgen.runtime.envelope import cap_text
    from contractgen.runtime.visible import hidden_in, visible

    joined = " ".join(visible(" ".join(text.split())).split())
    capped = cap_text(text, limit)
    assert capped == (joined if len(joined) <= limit else joined[: limit - 1] + "…")
    assert hidden_in(capped) is None and "  " not in capped and capped == capped.strip()
