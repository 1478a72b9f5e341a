"""contractgen.testing: proves our bundled contracts, and catches every kind of broken envelope."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from contractgen.manifest import load_contracts
from contractgen.runtime import Contract, RetryPolicy, Timeout, ToolError, ToolStub, guard
from contractgen.testing import assert_valid_envelope, check_contract, envelope_problems

ROOT = Path(__file__).resolve().parents[1]


def bundled() -> list[Contract]:
    result = load_contracts([ROOT / "contracts"])
    assert result.ok, result.diagnostics
    return [t.contract for t in result.contracts.tools]


@pytest.mark.parametrize("contract", bundled(), ids=lambda c: f"{c.name}-{c.version}")
def test_bundled_contracts_pass_check_contract(contract: Contract) -> None:
    stub = ToolStub(contract, errors=[ToolError.for_spec(s) for s in contract.errors])
    report = check_contract(stub)
    assert report.ok
    names = set(report.checks)
    assert {f"declared error {e.class_name}" for e in contract.errors} <= names
    assert "unexpected exception" in names and any(n.startswith("failure budget") for n in names)
    assert any(n.startswith("missing required") for n in names)
    assert any(n.endswith("with partial results") for n in names) == contract.partial_results


GOOD_ERROR = {"status": "error", "tool": "t", "version": "1.0.0",
              "error": {"code": "NOT_FOUND", "category": "business", "message": "No such note.",
                        "action": "stop_and_tell_user", "retryable": False}}


@pytest.mark.parametrize("mutate,expected", [
    (lambda e: e["error"].pop("action"), "no 'action'"),
    (lambda e: e["error"].update(code="TEAPOT"), "closed set"),
    (lambda e: e["error"].update(category="transient"), "does not belong"),
    (lambda e: e["error"].update(message="x" * 301), "cap 300"),
    (lambda e: e["error"].update(message="Traceback (most recent call last):"), "stack trace"),
    (lambda e: e["error"].update(message="failed: jdbc:mysql://x"), "connection string"),
    (lambda e: e["error"].update(message="raised KeyError in handler"), "exception class"),
    (lambda e: e["error"].update(message="db01.prod.internal is down"), "private address"),
    (lambda e: e["error"].update(message="10.0.0.12 refused"), "private address"),
    (lambda e: e["error"].update(message="cannot read /srv/app/keys.json"), "file path"),
    (lambda e: e["error"].update(message="login with password=hunter2 failed"), "credential"),
    (lambda e: e["error"].update(message="charge.py:42 failed"), "stack-trace line"),
    (lambda e: e["error"].update(retryable=True), "stop_and_tell_user with retryable true"),
    (lambda e: e["error"].update(field="date"), "JSON pointer"),
    (lambda e: e["error"].update(upstream={"text": "x"}), "untrusted"),
    (lambda e: e["error"].update(stack="..."), "unexpected error key"),
    (lambda e: e["error"].update(violations=[{"field": "/a"}] * 400), "cap 4000"),
    (lambda e: e.update(status="failed"), "'status'"),
])
def test_envelope_checks_catch_each_defect(mutate: Any, expected: str) -> None:
    assert envelope_problems(GOOD_ERROR) == []
    broken = copy.deepcopy(GOOD_ERROR)
    mutate(broken)
    problems = envelope_problems(broken)
    assert any(expected in p for p in problems), problems
    with pytest.raises(AssertionError):
        assert_valid_envelope(broken)


@pytest.mark.parametrize("message", [
    "The service https://status.bank.example says it is under maintenance until 14:30 UTC.",
    "See status.stripe.com for the outage, then call again.",
    "Version 1.2.3.4 of the ledger is read-only; try again in 5 minutes.",
    "Error: the amount is negative.",
])
def test_the_oracle_passes_what_the_guard_lets_through(message: str) -> None:
    """A public URL or host, a version number and the word "Error" reach the model as written
    (docs/runtime.md): the oracle agrees with the guard, or a user's suite fails on a good envelope."""
    def failing(_: Any) -> Any:
        raise ToolError(message, code="UNAVAILABLE")

    contract = Contract(name="t", version="1.0.0", summary="s", description="d",
                        input_schema={"type": "object"}, output_schema={"type": "object"})
    envelope = guard(contract, failing)({})
    assert envelope["error"]["message"] == message
    assert envelope_problems(envelope, contract) == []


def test_the_oracle_passes_schema_values_the_guard_quotes_but_not_a_validators_leak() -> None:
    """A bad call's messages quote the schema (an enum of paths, a pattern, an address the author
    chose), which the model already reads: no leak. A model validator's text naming an exception
    and a path is one."""
    contract = Contract(name="t", version="1.0.0", summary="s", description="d", output_schema={"type": "object"},
                        input_schema={"type": "object", "properties": {
                            "log": {"enum": ["/var/log/app.log", "/var/log/sys.log"]},
                            "host": {"const": "10.0.0.1"}, "dir": {"type": "string", "pattern": "^/srv/[a-z]+$"}}})
    tool = guard(contract, lambda a: {})
    for arguments in ({"log": "x"}, {"host": "x"}, {"dir": "x"}):
        envelope = tool(arguments)
        assert envelope["error"]["code"] == "INVALID_ARGUMENT"
        assert envelope_problems(envelope, contract) == [], envelope
    leaky = copy.deepcopy(GOOD_ERROR)
    leaky["error"].update(code="INVALID_ARGUMENT", category="validation", action="fix_arguments", retryable=True,
                          field="/a", violations=[{"field": "/a", "constraint": "x",
                                                   "message": "Value error, KeyError reading /srv/app/conf.py"}])
    problems = envelope_problems(leaky)
    assert any("exception class" in p for p in problems) and any("file path" in p for p in problems), problems


def test_ok_envelope_checked_against_the_contract() -> None:
    contract = Contract(name="t", version="1.0.0", summary="s", description="d",
                        input_schema={"type": "object"},
                        output_schema={"type": "object", "required": ["n"]}, timeout=Timeout(None))
    good = {"status": "ok", "tool": "t", "version": "1.0.0", "output": {"n": 1}, "empty": False}
    assert envelope_problems(good, contract) == []
    assert any("output schema" in p for p in envelope_problems({**good, "output": {}}, contract))
    assert any("'version'" in p for p in envelope_problems({**good, "version": "2.0.0"}, contract))
    assert any("empty_meaning" in p for p in envelope_problems({**good, "empty": True}, contract))
    notice = {"field": "/ownr", "message": "did you mean 'owner'?", "did_you_mean": "owner"}
    assert envelope_problems({**good, "notices": [notice]}, contract) == []
    for bad in ([], [{**notice, "extra": 1}], [{"field": "/ownr"}], "ownr"):
        assert any("'notices'" in p for p in envelope_problems({**good, "notices": bad}, contract))


class LeakyTool:
    """A hand-rolled "guard" with the classic defects, to prove check_contract fails on them."""

    def __init__(self, contract: Contract) -> None:
        self.contract = contract
        self.errors = ()

    def with_implementation(self, implementation: Any, **_: Any) -> Any:
        def call(arguments: Any, **__: Any) -> dict[str, Any]:
            try:
                implementation(arguments)
            except Exception as exc:  # noqa: BLE001
                return {"status": "error", "tool": self.contract.name, "version": self.contract.version,
                        "error": {"code": "INTERNAL", "category": "internal", "message": str(exc),
                                  "action": "retry_later", "retryable": True}}
            return {"status": "ok", "tool": self.contract.name, "version": self.contract.version,
                    "output": {}, "empty": False}
        return call


def test_check_contract_fails_a_leaky_tool() -> None:
    contract = next(c for c in bundled() if c.version == "2.0.0")
    with pytest.raises(AssertionError) as caught:
        check_contract(LeakyTool(contract))  # type: ignore[arg-type]
    text = str(caught.value)
    assert "unexpected exception" in text and "stack trace" in text
    assert "missing required 'title'" in text and "expected INVALID_ARGUMENT" in text
    report = check_contract(LeakyTool(contract), raise_on_failure=False)  # type: ignore[arg-type]
    assert not report.ok and "declared error SlotTaken" in report.failures


def test_check_contract_catches_a_budget_that_never_stops() -> None:
    contract = Contract(name="t", version="1.0.0", summary="s", description="d",
                        input_schema={"type": "object"}, output_schema={"type": "object"},
                        timeout=Timeout(None), retry=RetryPolicy(failure_budget=2))
    tool = guard(contract, lambda a: {})
    assert check_contract(tool, arguments={}).ok

    class NoBudget(type(tool)):  # type: ignore[misc]
        def _finish(self, envelope: Any, *_: Any) -> Any:
            return envelope
    broken = NoBudget(contract, lambda a: {})
    report = check_contract(broken, arguments={}, raise_on_failure=False)
    assert "failure budget stops after 2" in report.failures


def test_check_contract_needs_arguments() -> None:
    contract = Contract(name="t", version="1.0.0", summary="s", description="d",
                        input_schema={"type": "object"}, output_schema={}, timeout=Timeout(None))
    report = check_contract(guard(contract, lambda a: {}), raise_on_failure=False)
    assert "valid arguments" in report.failures


def test_check_contract_on_every_generated_stub(monkeypatch: pytest.MonkeyPatch) -> None:
    """The committed generated/ package (from the build step), proved with the real runtime."""
    if not (ROOT / "generated" / "__init__.py").is_file():
        pytest.skip("no generated/ package in this checkout")
    import importlib

    monkeypatch.syspath_prepend(str(ROOT))
    generated = importlib.import_module("generated")
    assert generated.STUBS
    for name, stub in generated.STUBS.items():
        report = check_contract(stub)
        assert report.ok, name


def test_caller_chosen_names_are_not_mistaken_for_leaks() -> None:
    contract = Contract(name="t", version="1.0.0", summary="s", description="d",
                        input_schema={"type": "object", "additionalProperties": False,
                                      "properties": {"a": {"type": "object", "additionalProperties": False}}},
                        output_schema={}, timeout=Timeout(None))
    tool = guard(contract, lambda a: {})
    for arguments in ({"KeyError": 1}, {"db01.prod.internal": 1}, {"a": {"Traceback": 1}},
                      {"x" * 80 + "ValueError": 1}):
        assert_valid_envelope(tool(arguments), contract)
    assert_valid_envelope(tool({}, contract_version="KeyError"), contract)
    # the same words written by the runtime or the author are still caught
    leaky = copy.deepcopy(GOOD_ERROR)
    leaky["error"].update(code="INVALID_ARGUMENT", category="validation", action="fix_arguments",
                          retryable=True, field="/a", message="KeyError in 'a'")
    assert any("exception class" in p for p in envelope_problems(leaky))
