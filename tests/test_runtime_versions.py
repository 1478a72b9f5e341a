"""VERSION_MISMATCH: old argument names and declared versions get migration steps, not INVALID_ARGUMENT."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from contractgen.manifest import load_contracts
from contractgen.runtime import Contract, Migration, Timeout, guard
from contractgen.testing import assert_valid_envelope

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def book_v2() -> Contract:
    result = load_contracts([ROOT / "contracts" / "book_meeting"])
    assert result.ok, result.diagnostics
    return next(t.contract for t in result.contracts.tools if t.contract.version == "2.0.0")


V2_ARGS = {"title": "Review", "start_date": "2026-12-01T15:00:00", "time_zone": "Europe/Paris",
           "duration_minutes": 60}


def booked(args: Any) -> dict[str, Any]:
    return {"meeting_id": "m-1", "starts_at": args["start_date"] + "+01:00", "status": "confirmed"}


def test_old_argument_name_gives_exact_steps(book_v2: Contract) -> None:
    v1_call = {"title": "Review", "date": "2026-12-01T15:00:00+01:00", "duration_minutes": 60,
               "attendees": ["ana@example.com"]}
    envelope = guard(book_v2, booked)(v1_call)
    assert_valid_envelope(envelope, book_v2)
    error = envelope["error"]
    assert error["code"] == "VERSION_MISMATCH" and error["action"] == "fix_arguments"
    assert error["expected_version"] == "2.0.0" and error["received_version"] == ">=1,<2"
    assert error["field"] == "/date"
    assert error["migration"][0] == "rename 'date' to 'start_date'"
    assert any(step.startswith("'attendees' changed meaning: Each attendee is now an object")
               for step in error["migration"])
    assert error["migration"][-1].startswith("note: Version 2 needs time_zone")
    assert "rename 'date' to 'start_date'" in error["message"]


def test_declared_versions(book_v2: Contract) -> None:
    tool = guard(book_v2, booked)
    assert tool(V2_ARGS, contract_version="2.0.0")["status"] == "ok"
    old = tool(V2_ARGS, contract_version="1.2.0")["error"]
    assert old["code"] == "VERSION_MISMATCH" and old["received_version"] == "1.2.0"
    assert "rename 'date' to 'start_date'" in old["migration"]
    newer = tool(V2_ARGS, contract_version="2.1.0")["error"]
    assert newer["code"] == "VERSION_MISMATCH" and "older version 2.0.0" in newer["message"]
    assert tool(V2_ARGS, contract_version="3.0")["error"]["code"] == "VERSION_MISMATCH"
    assert tool(V2_ARGS, contract_version="not-a-version")["error"]["code"] == "VERSION_MISMATCH"


def test_compatible_older_minor_is_fine() -> None:
    contract = Contract(name="t", version="1.4.0", summary="s", description="d",
                        input_schema={"type": "object"}, output_schema={}, timeout=Timeout(None))
    tool = guard(contract, lambda a: {})
    for declared in ("1.0.0", "1.4", "1.4.0", "1.2.7"):
        assert tool({}, contract_version=declared)["status"] == "ok", declared


def test_removed_parameter_carries_its_hint() -> None:
    contract = Contract(
        name="t", version="3.0.0", summary="s", description="d",
        input_schema={"type": "object", "additionalProperties": False,
                      "properties": {"query": {"type": "string"}}},
        output_schema={}, timeout=Timeout(None),
        migrations=(Migration(">=2,<3", removed=(("fuzzy", "matching is always fuzzy now; drop it"),)),))
    error = guard(contract, lambda a: {})({"query": "x", "fuzzy": True})["error"]
    assert error["code"] == "VERSION_MISMATCH"
    assert error["migration"] == ["remove 'fuzzy': matching is always fuzzy now; drop it"]
    assert error["field"] == "/fuzzy"


def test_unrelated_unknown_key_stays_invalid_argument(book_v2: Contract) -> None:
    error = guard(book_v2, booked)({**V2_ARGS, "colour": "red"})["error"]
    assert error["code"] == "INVALID_ARGUMENT" and error["field"] == "/colour"
