"""What the adapters share for confirmation: whether a call waits for a human, the summary the human
is shown, and one guarded call carrying the human's answer (the guard decides; see
runtime/confirmation.py)."""

from __future__ import annotations

from typing import Any

from contractgen.runtime import GuardedTool
from contractgen.runtime.confirmation import Gate, compile_gate, confirmed
from contractgen.runtime.envelope_types import Envelope

from ._guarded import call_guarded, call_guarded_sync


def gate_of(tool: GuardedTool[Any, Any]) -> Gate | None:
    """The tool's confirmation rule as the adapters read it; None when its contract has none."""
    gate = compile_gate(tool.contract)
    return gate if gate is not None and gate.needs_confirmation is not None else None


def asks(gate: Gate | None, arguments: Any) -> bool:
    """Whether the framework's approval step must be taken for this call."""
    return gate is not None and gate.asks(arguments)


async def call_answered(
    tool: GuardedTool[Any, Any], arguments: Any, approved: bool | None, **call: Any
) -> Envelope:
    """``call_guarded`` with the human's answer for exactly this call (None: no answer, so a call
    that needs one answers CONFIRMATION_REQUIRED)."""
    if approved is None:
        return await call_guarded(tool, arguments, **call)
    with confirmed(tool, arguments, approved=approved):
        return await call_guarded(tool, arguments, **call)


def call_answered_sync(tool: GuardedTool[Any, Any], arguments: Any, approved: bool | None,
                       **call: Any) -> Envelope:
    """``call_answered`` for frameworks that call tools synchronously."""
    if approved is None:
        return call_guarded_sync(tool, arguments, **call)
    with confirmed(tool, arguments, approved=approved):
        return call_guarded_sync(tool, arguments, **call)
