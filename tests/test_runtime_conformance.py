"""The guard's validation agrees with the official JSON-Schema-Test-Suite (draft 2020-12, required tests).

Each test schema becomes a contract's input schema; the test's instance is sent through a real
guarded call; "valid" must give status ok and "invalid" must give INVALID_ARGUMENT. Remote refs
(http://localhost:1234/...) are served from the suite's remotes/ folder as resources, never fetched.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from contractgen.runtime import Contract, RetryPolicy, Timeout, guard
from contractgen.runtime.schema_check import SchemaCheck

SUITE = (Path(__file__).resolve().parents[1] / ".." / "shared" / "corpus" / "json_schema_test_suite").resolve()
REMOTE_BASE = "http://localhost:1234/"
#: Known gaps of the pure-Python fallback (no jsonschema-rs): `jsonschema` applies validation keywords
#: even when a metaschema omits that vocabulary. (Its patterns are read as jsonschema-rs reads them,
#: runtime/patterns.py, so the `\p{..}` cases Python's `re` failed now pass.)
PYTHON_BACKEND_GAPS = {
    ("vocabulary.json", "schema that uses custom metaschema with with no validation vocabulary"),
}


def _cases() -> list[Any]:
    folder = SUITE / "tests" / "draft2020-12"
    if not folder.is_dir():
        return []
    out = []
    for path in sorted(folder.glob("*.json")):
        for group in json.loads(path.read_text("utf-8")):
            out.append(pytest.param(path.name, group, id=f"{path.stem}:{group['description'][:60]}"))
    return out


def _remotes() -> dict[str, Any]:
    root = SUITE / "remotes"
    return {REMOTE_BASE + p.relative_to(root).as_posix(): json.loads(p.read_text("utf-8"))
            for p in root.rglob("*.json")}


@pytest.fixture(scope="module")
def remotes() -> dict[str, Any]:
    if not SUITE.is_dir():
        pytest.skip(f"JSON-Schema-Test-Suite not found at {SUITE}")
    return _remotes()


def _echo(arguments: Any) -> dict[str, Any]:
    return {}


CASES = _cases()


@pytest.mark.parametrize("filename,group", CASES or [pytest.param(None, None, marks=pytest.mark.skip(
    reason="JSON-Schema-Test-Suite not found"))])
def test_guard_agrees_with_the_suite(filename: str, group: dict[str, Any], remotes: dict[str, Any]) -> None:
    contract = Contract(name="suite", version="1.0.0", summary="s", description="d",
                        input_schema=group["schema"], output_schema={},
                        timeout=Timeout(seconds=None), retry=RetryPolicy(failure_budget=None))
    # format.json is 2020-12's default reading, format as an annotation: the guard's formats=False.
    # The guard asserts formats by default; optional/format/*.json is judged that way (formats=True).
    tool = guard(contract, _echo, resources=remotes, formats=filename != "format.json")
    for test in group["tests"]:
        envelope = tool(test["data"])
        if test["valid"]:
            assert envelope["status"] == "ok", (test["description"], envelope)
        else:
            assert envelope["status"] == "error", test["description"]
            assert envelope["error"]["code"] == "INVALID_ARGUMENT", (test["description"], envelope)


def test_python_fallback_backend_gaps_are_exactly_the_known_ones(remotes: dict[str, Any]) -> None:
    """Without jsonschema-rs the reference `jsonschema` package decides; list where it differs."""
    disagreements = set()
    total = 0
    for param in CASES:
        filename, group = param.values
        check = SchemaCheck(group["schema"], resources=remotes, prefer_fast=False)
        for test in group["tests"]:
            total += 1
            try:
                answer = check.is_valid(test["data"])
            except Exception:  # noqa: BLE001
                answer = None
            if answer != test["valid"]:
                disagreements.add((filename, group["description"]))
    assert total > 1000
    assert disagreements == PYTHON_BACKEND_GAPS
