"""What every adapter shares (``contractgen/adapters/_guarded.py``): the caller label the spans record,
and where a call's budget counts when one guarded call makes another."""

from __future__ import annotations

import asyncio
from typing import Any

from adapter_support import FIXED_CALL, RATE, rates_tool

from contractgen.adapters._guarded import call_guarded, caller_label, with_state_budget
from generated import get_exchange_rate_v1 as rates


class Impostor(str):
    """A string that hashes and compares as 'mallory' whatever its text."""

    def __hash__(self) -> int:
        return hash("mallory")

    def __eq__(self, other: object) -> bool:
        return other == "mallory"


def test_caller_label_names_each_known_part_once_and_forges_none() -> None:
    assert (
        caller_label(user="alice", agent="fx", session="conv-1")
        == "user=alice agent=fx session=conv-1"
    )
    assert (
        caller_label(user="alice", agent="fx", session="conv-1")
        == "user=alice agent=fx session=conv-1"
    )
    assert caller_label(agent="fx", session="conv 9") == "agent=fx session=conv_9"
    assert caller_label(user="a=b c", agent=7, session="") == "user=a_b_c"
    assert caller_label(user=None, agent=["fx"], session=None) is None


def test_caller_label_is_made_from_a_string_subclass_text() -> None:
    # labels are made once per caller: an impostor is never served the label of the one it mimics
    assert caller_label(user="mallory", session="s") == "user=mallory session=s"
    assert caller_label(user=Impostor("alice"), session="s") == "user=alice session=s"
    assert caller_label(user=Impostor("a=b"), session="s") == "user=a_b session=s"


def test_a_call_binding_no_state_inside_a_bound_call_counts_in_its_own_store() -> None:
    # the inner call binds no state: its failure counts in its tool's own store, not in the state
    # the outer call (an ADK or OpenAI run) bound, so the next direct failure exhausts its budget
    inner = with_state_budget(rates_tool("down"))

    async def outer_lookup(args: rates.GetExchangeRateV1Input) -> dict[str, Any]:
        envelope = await call_guarded(inner, dict(FIXED_CALL), session="s")
        assert envelope["error"]["action"] == "retry_later", envelope
        return RATE

    outer = with_state_budget(rates.get_exchange_rate.implement(outer_lookup))
    state: dict[str, Any] = {}
    envelope = asyncio.run(call_guarded(outer, dict(FIXED_CALL), session="s", state=state))
    assert envelope["status"] == "ok", envelope
    assert not any(state.values()), state
    second = asyncio.run(call_guarded(inner, dict(FIXED_CALL), session="s"))
    assert second["error"]["action"] == "stop_and_tell_user", second
    assert second["error"]["budget"]["consecutive_failures"] == 2


def test_calls_bound_to_a_state_count_there() -> None:
    tool = with_state_budget(rates_tool("down"))
    state: dict[str, Any] = {}
    first = asyncio.run(call_guarded(tool, dict(FIXED_CALL), session="s", state=state))
    assert first["error"]["action"] == "retry_later", first
    assert list(state.values()) == [1]
    elsewhere = asyncio.run(call_guarded(tool, dict(FIXED_CALL), session="s"))
    assert elsewhere["error"]["action"] == "retry_later", elsewhere  # the state's count is not here
    again = asyncio.run(call_guarded(tool, dict(FIXED_CALL), session="s", state=state))
    assert again["error"]["action"] == "stop_and_tell_user", again
    assert list(state.values()) == [2]
