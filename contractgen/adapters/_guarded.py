"""What every adapter shares: one guarded call that never raises, session keys, the envelope as text,
and a failure budget that can live in a framework's own per-session state for the length of a call.
"""

from __future__ import annotations

import asyncio
import contextvars
import copy
import functools
import json
import logging
import threading
import weakref
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Any, Protocol, cast

from contractgen.runtime import GuardedTool, error_envelope
from contractgen.runtime.budget import BudgetStore, InMemoryBudgetStore
from contractgen.runtime.envelope_types import Envelope, ErrorEnvelope
from contractgen.runtime.jsonvalue import thaw
from contractgen.runtime.observe import loggable
from contractgen.runtime.scrub import secrets_sent
from contractgen.runtime.visible import visible_schema

logger = logging.getLogger("contractgen.adapters")



class StateLike(Protocol):
    """What a framework's state must offer to hold budget counts (ADK's ``State`` has no ``del``)."""

    def get(self, key: str, /) -> Any: ...

    def __setitem__(self, key: str, value: Any) -> None: ...


#: the framework state a call counts its budget in (ADK's session state, an OpenAI run context)
_CALL_STATE: contextvars.ContextVar[StateLike | None] = contextvars.ContextVar(
    "contractgen_adapter_state", default=None)
# one lock for every framework state: a read-modify-write never awaits, so it is short
_STATE_LOCK = threading.Lock()
#: the states bound to the calls of one turn, by the session state they share (ADK's ``State._value``).
#: ADK gives each concurrent call of a turn its own ``State`` whose writes also go to a per-call delta,
#: and merges the deltas in call order once all are done: the last call's delta wins, so a count
#: written by a call that finished before one placed earlier in the turn was lost (2 of 3 failures
#: persisted). Every count is written to each sibling's delta as well, so whichever delta wins holds
#: the latest. A turn is a run of calls that overlap: it ends when none of them is in flight, and its
#: states are then left alone (their deltas are merged or, for a lone call, are its stored event).
_TURNS: dict[int, _Turn] = {}


class _Turn:
    __slots__ = ("in_flight", "states")

    def __init__(self) -> None:
        self.in_flight = 0
        self.states: weakref.WeakSet[Any] = weakref.WeakSet()
_NEVER_SWALLOWED = (KeyboardInterrupt, SystemExit, asyncio.CancelledError)


class StateBudgetStore:
    """Counts in the framework state bound to the current call, else in the tool's own store.

    Framework states need not support deletion (ADK's ``State`` does not), so a reset writes 0.
    """

    def __init__(self, fallback: BudgetStore) -> None:
        self.fallback = fallback

    def record_failure(self, key: str) -> int:
        state = _CALL_STATE.get()
        if state is None:
            return self.fallback.record_failure(key)
        with _STATE_LOCK:
            count = int(state.get(key) or 0) + 1
            _write(state, key, count)
            return count

    def reset(self, key: str) -> None:
        state = _CALL_STATE.get()
        if state is None:
            self.fallback.reset(key)
            return
        with _STATE_LOCK:
            if state.get(key):
                _write(state, key, 0)

    def failures(self, key: str) -> int:
        state = _CALL_STATE.get()
        if state is None:
            return self.fallback.failures(key)
        return int(state.get(key) or 0)


def with_state_budget(tool: GuardedTool[Any, Any]) -> GuardedTool[Any, Any]:
    """The same guarded tool, counting its budget in the state a call binds (see ``call_guarded``).

    Only a tool on the default in-memory store changes: a store chosen on purpose (Redis, a shared
    mapping) keeps the counts. Calls that bind no state keep counting in the tool's own store.
    """
    if type(tool.budget) is not InMemoryBudgetStore:
        return tool
    return tool.with_implementation(tool.implementation, state=StateBudgetStore(tool.budget))


def _write(state: StateLike, key: str, value: int) -> None:
    """``state[key] = value``, and the same in every state bound to a call of the same turn."""
    state[key] = value
    turn = _TURNS.get(id(getattr(state, "_value", None)))
    for sibling in list(turn.states) if turn is not None and state in turn.states else ():
        if sibling is not state:
            sibling[key] = value


def _enter_turn(state: StateLike | None) -> _Turn | None:
    shared = getattr(state, "_value", None)
    if shared is None:
        return None
    with _STATE_LOCK:
        turn = _TURNS.get(id(shared))
        if turn is None or turn.in_flight == 0:  # none in flight: a new turn (the old one is merged)
            for ended in [k for k, t in _TURNS.items() if t.in_flight == 0]:
                del _TURNS[ended]
            turn = _TURNS[id(shared)] = _Turn()
        turn.in_flight += 1
        turn.states.add(state)
    return turn


_NOTHING_BOUND = nullcontext()


def _bound(state: StateLike | None) -> AbstractContextManager[None]:
    """``state`` bound to the call (``call_guarded``); nothing to do, and nothing paid, when there is
    none to bind and none bound around the call (every framework that keeps no budget state)."""
    if state is None and _CALL_STATE.get() is None:
        return _NOTHING_BOUND
    return _binding(state)


@contextmanager
def _binding(state: StateLike | None) -> Iterator[None]:
    turn = _enter_turn(state)
    token = _CALL_STATE.set(state)
    try:
        yield
    finally:
        _CALL_STATE.reset(token)
        if turn is not None:
            with _STATE_LOCK:
                turn.in_flight -= 1


async def call_guarded(tool: GuardedTool[Any, Any], arguments: Any, *, session: str,
                       state: StateLike | None = None, contract_version: str | None = None,
                       call_id: str | None = None, caller: str | None = None) -> Envelope:
    """The envelope of one call; never raises (cancellation and interpreter exit aside).

    ``call_id`` (the framework's tool-call id) and ``caller`` (the agent) go to the guard's telemetry.
    """
    try:
        with _bound(state):
            return await tool.acall(arguments, contract_version=contract_version, session=session,
                                    call_id=call_id, caller=caller)
    except _NEVER_SWALLOWED:
        raise
    except BaseException as exc:  # noqa: BLE001 - the framework's handler would leak or end the run
        return adapter_failure(tool, exc, arguments)


def call_guarded_sync(tool: GuardedTool[Any, Any], arguments: Any, *, session: str,
                      state: StateLike | None = None, call_id: str | None = None,
                      caller: str | None = None) -> Envelope:
    """``call_guarded`` for frameworks that call tools synchronously."""
    try:
        with _bound(state):
            return tool(arguments, session=session, call_id=call_id, caller=caller)
    except _NEVER_SWALLOWED:
        raise
    except BaseException as exc:  # noqa: BLE001
        return adapter_failure(tool, exc, arguments)


def adapter_failure(tool: GuardedTool[Any, Any], exc: BaseException, arguments: Any) -> Envelope:
    """INTERNAL, with the traceback in the log only, for a failure around the guard. What failed
    there (a hook, a telemetry exporter) may quote the arguments: the log gets the traceback with
    the call's secrets scrubbed, as the guard's own INTERNAL does."""
    envelope = error_envelope(tool.contract, "INTERNAL", f"{tool.name} failed unexpectedly (internal "
                              "error). Do not retry; tell the user the tool failed.")
    scrub = secrets_sent(arguments, tool.input_schema, getattr(tool, "_resources", None))
    logger.error("adapter failure around %s %s", tool.name, tool.version, exc_info=loggable(exc, scrub))
    return cast(ErrorEnvelope, envelope)


def tool_failure(name: str, schema: Any, arguments: Any, exc: BaseException) -> dict[str, Any]:
    """INTERNAL with a reference for an exception from a tool no guard wraps (the frameworks' error
    hooks): nothing of the exception reaches the model; its traceback goes to the log under the
    reference, with what the call sent at sensitive positions of ``schema`` scrubbed."""
    from contractgen.runtime.envelope import new_ref
    from contractgen.runtime.wrap import contract_from_definition

    parameters = schema if isinstance(schema, Mapping) else {"type": "object"}
    contract = contract_from_definition({"name": str(name), "parameters": parameters})
    ref = new_ref()
    scrub = secrets_sent(arguments, contract.input_schema)
    logger.error("tool %s raised (ref=%s)", name, ref, exc_info=loggable(exc, scrub))
    return error_envelope(contract, "INTERNAL", f"{name} failed unexpectedly (internal error, ref {ref}). "
                          "Do not retry; tell the user the tool failed.", ref=ref)


def invalid_json_arguments(tool: GuardedTool[Any, Any]) -> Envelope:
    """INVALID_ARGUMENT for arguments that are not one JSON object (they never reach the guard)."""
    envelope = error_envelope(tool.contract, "INVALID_ARGUMENT", "Invalid arguments: they are not a "
                              "valid JSON object. Send the arguments as one JSON object and call again.",
                              constraint="type", expected="a JSON object")
    return cast(ErrorEnvelope, envelope)


def envelope_text(envelope: Mapping[str, Any]) -> str:
    """The envelope as the JSON text a model reads."""
    return json.dumps(envelope, ensure_ascii=False)


def plain_schema(schema: Any) -> dict[str, Any]:
    """A private, mutable copy of a contract schema (frameworks may rewrite what they are given), its
    prose as a reader sees it (a hand-built contract's is not checked as a manifest's is)."""
    plain: dict[str, Any] = visible_schema(copy.deepcopy(thaw(schema)))
    return plain


def caller_label(*, user: Any = None, agent: Any = None, session: Any = None) -> str | None:
    """Who made a call, as the guard's ``caller`` (and the spans' ``contractgen.caller``) records it:
    ``user=alice agent=fx session=conv-1``, each part only when the framework knows it."""
    return _caller_label(_text(user), _text(agent), _text(session))


def _text(value: Any) -> str:
    # the exact text of a part ('' when it is not a string): what the labels below are cached by
    return str.__str__(value) if isinstance(value, str) else ""


@functools.lru_cache(maxsize=1024)  # the calls of one conversation share their label: made once
def _caller_label(user: str, agent: str, session: str) -> str | None:
    parts = [f"{name}={_label(value)}" for name, value in (("user", user), ("agent", agent),
                                                              ("session", session)) if value]
    return " ".join(parts) or None


def _label(value: str) -> str:
    # a value never splits into two parts nor forges another: no blanks, no '='
    return "_".join(value[:200].replace("=", "_").split()) or "_"


def session_from(source: Any, *names: str) -> str | None:
    """The first non-empty string under one of ``names`` in a mapping or an object, or None (also
    when reading raises: the application's own object, such as a run context, may hold anything)."""
    if source is None:  # no deps, no configurable: nothing to read
        return None
    for name in names:
        try:
            value = source.get(name) if isinstance(source, Mapping) else getattr(source, name, None)
        except Exception as exc:  # a property that raises names no session
            logger.warning("reading %r of %s raised; ignored", name, type(source).__name__,
                           exc_info=loggable(exc))
            continue
        if isinstance(value, str) and value:
            return str.__str__(value)[:200]
    return None
