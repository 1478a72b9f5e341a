"""retry-retryable-codes-changed says ERR exactly where the runtime's envelope flips: each case's
old and new manifests are put behind the real guard, which raises each declared error and an
undeclared error of each transient code (how the runtime's own TIMEOUT and UNAVAILABLE are worded)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from diff_support import case_report

from contractgen.manifest import load_contracts
from contractgen.runtime.codes import TRANSIENT_CODES
from contractgen.runtime.contract import Contract
from contractgen.runtime.errors import ToolError
from contractgen.runtime.guard import guard

CASES = Path(__file__).parent / "cases" / "diff"
RULE = "retry-retryable-codes-changed"


def _contract(folder: Path) -> Contract:
    result = load_contracts([folder])
    assert result.ok, result.diagnostics
    (tool,) = result.contracts.tools
    return tool.contract


def _told(contract: Contract, error: ToolError) -> tuple[bool, str]:
    """(retryable, action) of the envelope the guard sends when the implementation raises ``error``."""
    def fail(arguments: Any) -> Any:
        raise error

    sent = guard(contract, fail, errors=[type(error)])({"query": "a"})["error"]
    return sent["retryable"], sent["action"]


def _raised(contract: Contract, code: str) -> list[ToolError]:
    """The declared errors of ``code``, and an undeclared one (it says nothing about retrying)."""
    return [ToolError.for_spec(spec)() for spec in contract.errors if spec.code == code] + [ToolError(code=code)]


@pytest.mark.parametrize("case", sorted(p.name for p in CASES.glob(f"{RULE}*")))
def test_err_exactly_where_the_runtime_envelope_flips(case: str) -> None:
    old, new = _contract(CASES / case / "old"), _contract(CASES / case / "new")
    _, report, _ = case_report(CASES / case)
    levels = {f["pointer"].rsplit("/", 1)[-1]: f["level"] for f in report["findings"] if f["rule"] == RULE}
    assert levels, f"{case}: the rule reported nothing"
    for code in sorted(TRANSIENT_CODES):
        declared = [e for e in _raised(new, code) if type(e).spec is not None]
        flipped = [_told(old, a) != _told(new, b) for a, b in zip(_raised(old, code), _raised(new, code))]
        if code not in levels:
            assert not any(flipped), f"{case}: {code} flips but nothing is reported"
            continue
        # ERR when a declared error flips or the runtime sends the code itself (its TIMEOUT at the
        # deadline, its UNAVAILABLE when overloaded, worded as an undeclared error); WARN when every
        # declared error keeps its answer and only undeclared raises are told otherwise
        assert flipped[-1], f"{case}: {code} was reported but an undeclared {code} is told the same"
        sent_by_runtime = code == "UNAVAILABLE" or (code == "TIMEOUT" and new.timeout.seconds is not None)
        expected = "breaking" if any(flipped[: len(declared)]) or sent_by_runtime else "dangerous"
        assert levels[code] == expected, (case, code, levels[code], flipped)


ERROR_RULES = {"error-retryable-changed": 0, "error-action-changed": 1}  # -> index in (retryable, action)


@pytest.mark.parametrize("case", sorted(p.name for r in ERROR_RULES for p in CASES.glob(f"{r}*")))
def test_error_retry_terms_are_reported_as_the_runtime_sends_them(case: str) -> None:
    """error-retryable-changed and error-action-changed compare what the guard sends for each error
    (its retry policy applied), and report exactly the fields that differ between the versions."""
    old, new = _contract(CASES / case / "old"), _contract(CASES / case / "new")
    _, report, _ = case_report(CASES / case)
    reported = {(f["rule"], f["pointer"]) for f in report["findings"] if f["rule"] in ERROR_RULES}
    old_specs = {s.class_name: s for s in old.errors}
    expected = set()
    for spec in new.errors:
        if spec.class_name not in old_specs:
            continue
        before = _told(old, ToolError.for_spec(old_specs[spec.class_name])())
        after = _told(new, ToolError.for_spec(spec)())
        for rule, index in ERROR_RULES.items():
            if before[index] != after[index]:
                field = "retryable" if index == 0 else "action"
                expected.add((rule, f"/errors/{spec.class_name}/{field}"))
    assert reported == expected
