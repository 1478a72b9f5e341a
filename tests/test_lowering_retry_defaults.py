"""Retry defaults follow idempotency: a timed-out call of a non-idempotent tool is not retried."""

from __future__ import annotations

import time
from pathlib import Path

from conftest import run_cli

from contractgen.manifest import load_contracts
from contractgen.runtime import guard

MANIFEST = """\
name: place_order
version: 1.0.0
summary: Place an order.
description: Places an order for the user.
input: {type: object, properties: {sku: {type: string, description: Item.}}, required: [sku]}
output: {type: object, properties: {order_id: {type: string}}, required: [order_id]}
timeout: {seconds: 0.05}
annotations: {idempotent: %s}
"""


def _contract(tmp_path: Path, idempotent: str):
    path = tmp_path / "place_order" / "1.0.0.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(MANIFEST % idempotent)
    result = load_contracts([tmp_path])
    assert result.ok, result.diagnostics
    (tool,) = result.contracts.tools
    return tool.contract


def test_timeout_of_a_non_idempotent_tool_says_stop(tmp_path: Path) -> None:
    contract = _contract(tmp_path, "false")
    assert "TIMEOUT" not in contract.retry.retryable_codes
    slow = guard(contract, lambda args: time.sleep(0.5) or {"order_id": "o-1"})
    error = slow({"sku": "A1"})["error"]
    assert error["code"] == "TIMEOUT"
    assert error["retryable"] is False
    assert error["action"] == "stop_and_tell_user"


def test_timeout_of_an_idempotent_tool_says_retry(tmp_path: Path) -> None:
    contract = _contract(tmp_path, "true")
    assert "TIMEOUT" in contract.retry.retryable_codes
    slow = guard(contract, lambda args: time.sleep(0.5) or {"order_id": "o-1"})
    error = slow({"sku": "A1"})["error"]
    assert (error["code"], error["retryable"], error["action"]) == ("TIMEOUT", True, "retry_later")


def test_listing_timeout_for_a_non_idempotent_tool_warns(tmp_path: Path) -> None:
    path = tmp_path / "place_order" / "1.0.0.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(MANIFEST % "false" + "retry: {retryable_codes: [UNAVAILABLE, TIMEOUT]}\n")
    result = run_cli("check", "--strict", str(tmp_path))
    assert result.returncode == 1, result.stderr
    assert "#/retry/retryable_codes/1: warning: a timed-out call of a non-idempotent tool" in result.stderr
