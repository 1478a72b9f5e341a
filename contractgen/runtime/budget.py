"""The failure budget: consecutive ``retry_later`` failures per tool per session, in a pluggable store.

A store only needs three atomic operations. ``InMemoryBudgetStore`` is the default; any
``MutableMapping`` (an agent framework's session state, a dict shared by workers) can back one
through ``MappingBudgetStore``. Both take a lock around each read-modify-write, so they are exact
under threads and under asyncio (no operation awaits while holding it). A store shared by processes
(``contractgen.runtime.stores.redis``) raises ``StateUnavailable`` when it cannot be reached; the
contract's ``state_unreachable`` then decides what the model is told (``note_unreachable``).
"""

from __future__ import annotations

import contextvars
import math
import re
import threading
import time
from collections.abc import Iterator, MutableMapping
from contextlib import contextmanager
from typing import Any, Protocol, runtime_checkable

from .observe import loggable, logger

KEY_PREFIX = "contractgen.budget"


def budget_key(tool: str, session: str) -> str:
    return f"{KEY_PREFIX}:{session}:{tool}"


class StateUnavailable(RuntimeError):
    """Shared state (a Redis server, say) could not be read or written for this call."""


#: the share of a call's deadline its breaker admission may take, and at most this many seconds;
#: it is also what the steps after the call (breaker record, budget) may take past the deadline
STORE_SHARE = 0.1
STORE_MARGIN_CAP = 0.25


class StoreWindow:
    """How long a call's shared-state operations may still take, so that they live inside its
    deadline: the admission at most the margin (``STORE_SHARE`` of the deadline), everything after
    the call together what is left of the deadline or the margin, whichever is longer. Once one
    operation found the store unreachable, the call's later ones fail at once (a stalled server
    would make each wait again). Without a deadline only that last rule applies."""

    __slots__ = ("margin", "settle_until", "unreachable", "until")

    def __init__(self, deadline: float | None) -> None:
        finite = deadline is not None and math.isfinite(deadline)
        self.margin = min(STORE_SHARE * deadline, STORE_MARGIN_CAP) if finite else None  # type: ignore[operator]
        self.until = time.monotonic() + deadline if finite else None  # type: ignore[operator]
        self.settle_until: float | None = None
        self.unreachable: str | None = None

    def admission_left(self) -> float | None:
        """Seconds the breaker's admission may take (None: the store's own timeout)."""
        return self.margin

    def settle_left(self) -> float | None:
        """Seconds the operations after the call may still take, together (None: no bound)."""
        if self.until is None or self.margin is None:
            return None
        now = time.monotonic()
        if self.settle_until is None:
            self.settle_until = max(self.until, now + self.margin)
        return self.settle_until - now


_WINDOW: contextvars.ContextVar[tuple[StoreWindow, bool] | None] = contextvars.ContextVar(
    "contractgen_store_window", default=None)


@contextmanager
def store_window(deadline: float | None) -> Iterator[StoreWindow]:
    """The window of the call this context runs (``hooks.CallHooks`` opens one around each call)."""
    window = StoreWindow(deadline)
    token = _WINDOW.set((window, False))
    try:
        yield window
    finally:
        _WINDOW.reset(token)


@contextmanager
def admitting() -> Iterator[None]:
    """Marks the breaker's admission: it gets the margin, not the rest of the deadline."""
    current = _WINDOW.get()
    if current is None:
        yield
        return
    token = _WINDOW.set((current[0], True))
    try:
        yield
    finally:
        _WINDOW.reset(token)


def deadline_left(deadline: float | None) -> float | None:
    """What is left of a call's ``deadline`` once its window's admission (the breaker, read from a
    shared store) has taken its share: the implementation gets the rest, so admission, the call and
    what follows it stay within the deadline plus one margin. ``deadline`` itself outside a window."""
    current = _WINDOW.get()
    if deadline is None or current is None or current[0].until is None:
        return deadline
    return max(min(deadline, current[0].until - time.monotonic()), 0.0)


def store_time_left() -> tuple[StoreWindow | None, float | None]:
    """The call's window and the seconds a store operation may take now (None: its own timeout).
    Raises StateUnavailable when an earlier operation of the call found the store unreachable, or
    when no time is left."""
    current = _WINDOW.get()
    if current is None:
        return None, None
    window, admission = current
    if window.unreachable is not None:
        raise StateUnavailable(f"{window.unreachable} (not asked again within this call)")
    left = window.admission_left() if admission else window.settle_left()
    if left is not None and left <= 0:
        raise StateUnavailable("no time left within the call's deadline")
    return window, left


def stored_count(key: str, value: Any) -> int:
    """A count as a store holds it (None when there is none): an int, a whole float, or its digits as
    text or bytes (Redis). Anything else, written there by something else, is StateUnavailable naming
    the key (the guard then follows the contract's ``state_unreachable``), never a bare ValueError or
    a count made up."""
    if value is None:
        return 0
    text = value.decode("ascii", "replace") if isinstance(value, (bytes, bytearray)) else value
    if type(text) is int and abs(text) < 10 ** 20:  # (not a bool: its type is bool)
        return text
    if type(text) is float and text.is_integer() and abs(text) < 1e15:  # a store that keeps numbers as floats
        return int(text)
    if isinstance(text, str) and _COUNT_TEXT.fullmatch(text):
        return int(text)
    raise StateUnavailable(f"the budget count at {clip_repr(key, 120)} is not a whole number: {clip_repr(value)}")


_COUNT_TEXT = re.compile(r"-?[0-9]{1,19}")


def clip_repr(value: Any, limit: int = 40) -> str:
    """``repr(value)`` cut to ``limit`` characters (a stored value can be anything, of any size)."""
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a repr that raises says nothing about the count
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[:limit - 3] + "..."


@runtime_checkable
class BudgetStore(Protocol):
    """Counts consecutive transient failures under a key (one key per tool per session)."""

    def record_failure(self, key: str) -> int:
        """Add one failure and return the new consecutive count, atomically."""

    def reset(self, key: str) -> None:
        """A success: the count goes back to zero."""

    def failures(self, key: str) -> int:
        """The current consecutive count."""


#: Sessions an in-memory store keeps counts for; past it the longest-held count is dropped. A
#: client names its own sessions (MCP ``_meta["contractgen/session"]``), and one failing call per
#: new name grew the store without end (a million names, a few hundred MB). Dropping a count lets
#: that session start again at zero, which a client naming a new session can do anyway.
SESSIONS_KEPT = 100_000


class InMemoryBudgetStore:
    """Process-local counts (at most ``SESSIONS_KEPT`` keys); thread- and asyncio-safe."""

    def __init__(self) -> None:
        self._counts: dict[str, int] = {}
        self._lock = threading.Lock()

    def record_failure(self, key: str) -> int:
        with self._lock:
            count = self._counts.pop(key, 0) + 1  # (re)inserted last: the most recently counted
            if len(self._counts) >= SESSIONS_KEPT:
                del self._counts[next(iter(self._counts))]
            self._counts[key] = count
            return count

    def reset(self, key: str) -> None:
        if key in self._counts:  # the common case (nothing to reset) takes no lock
            with self._lock:
                self._counts.pop(key, None)

    def failures(self, key: str) -> int:
        return self._counts.get(key, 0)


#: Locks shared by every store over the same mapping (picked by the mapping's identity): two guarded
#: tools given one dict each made a store with a lock of its own, and their read-modify-writes of one
#: session's count interleaved (984 of 1,000 concurrent failures counted). Striped, so that no
#: mapping is held on to; two mappings on one stripe only wait for each other.
_MAPPING_LOCKS = tuple(threading.Lock() for _ in range(64))


def mapping_lock(mapping: Any) -> Any:
    """The lock every ``MappingBudgetStore`` over ``mapping`` takes (while the mapping lives)."""
    return _MAPPING_LOCKS[(id(mapping) >> 4) % len(_MAPPING_LOCKS)]


class MappingBudgetStore:
    """Counts kept in any mutable mapping, e.g. an agent framework's session state. Every store over
    one mapping in this process takes the same lock (``mapping_lock``), so tools sharing a dict
    count exactly; pass ``lock`` when the mapping is shared some other way (then pass the same one
    to every store over it)."""

    def __init__(self, mapping: MutableMapping[str, Any], lock: Any = None) -> None:
        self.mapping = mapping
        self._lock = lock or mapping_lock(mapping)

    def record_failure(self, key: str) -> int:
        with self._lock:
            count = stored_count(key, self.mapping.get(key)) + 1
            self.mapping[key] = count
            return count

    def reset(self, key: str) -> None:
        with self._lock:
            if key in self.mapping:
                del self.mapping[key]

    def failures(self, key: str) -> int:
        return stored_count(key, self.mapping.get(key))


def as_budget_store(state: Any) -> BudgetStore:
    """A store from what ``guard(state=...)`` accepts: a store, a mutable mapping or None."""
    if state is None:
        return InMemoryBudgetStore()
    if isinstance(state, (InMemoryBudgetStore, MappingBudgetStore)):
        return state
    if isinstance(state, MutableMapping):
        return MappingBudgetStore(state)
    if isinstance(state, BudgetStore):
        return state
    raise TypeError("state must be a BudgetStore, a mutable mapping or None")


def note_unreachable(envelope: dict[str, Any], name: str, limit: int | None, policy: str,
                     exc: BaseException) -> None:
    """A call the store could not count: log it, and say so in an error envelope.

    ``allow`` (fail open) keeps the error's own action: the model may retry, uncounted.
    ``refuse`` (fail closed) treats a retry_later failure as the budget spent: it tells the model
    to stop, since nothing could stop a retry loop otherwise.
    """
    if isinstance(exc, StateUnavailable):
        logger.warning("failure budget of %s not counted (store unreachable, policy %s): %s",
                       name, policy, exc)
    else:
        # a store's failure holds no argument text (it sees the tool's name and the session only)
        logger.error("failure budget store failed for %s", name, exc_info=loggable(exc))
    error = envelope.get("error")
    if not isinstance(error, dict) or limit is None or error.get("action") != "retry_later":
        return
    refuse = policy == "refuse"
    error["budget"] = {"store": "unreachable", "policy": policy, "limit": limit, "exhausted": refuse}
    if refuse:
        error["retryable"] = False
        error["action"] = "stop_and_tell_user"
        error.pop("retry_after", None)
        error["message"] = (f"{name} failed ({error.get('code')}) and its failure count cannot be "
                            "checked right now. Do not call it again for this request; tell the "
                            "user it is not working right now.")


#: ``GuardedTool._finish`` counts with the sync store itself (no asyncio client counted first)
COUNT_HERE: Any = object()


async def count_async(store: BudgetStore, key: str, envelope: dict[str, Any],
                      limit: int | None) -> Any:
    """Count a call with the store's asyncio client when it has one (``arecord_failure``).

    Returns the new count, None (nothing to count), the exception the store raised (the guard
    applies ``state_unreachable`` to it), or ``COUNT_HERE`` for a store without asyncio methods.
    """
    record = getattr(store, "arecord_failure", None)
    reset = getattr(store, "areset", None)
    if record is None or reset is None:
        return COUNT_HERE
    try:
        if envelope.get("status") == "ok":
            await reset(key)
            return None
        if limit is not None and envelope["error"].get("action") == "retry_later":
            return await record(key)
        return None
    except Exception as exc:  # noqa: BLE001 - handed to the guard's unreachable policy
        return exc
