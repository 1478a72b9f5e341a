"""The failure budget: consecutive ``retry_later`` failures per tool per session, in a pluggable store.

A store only needs three atomic operations. ``InMemoryBudgetStore`` is the default; any
``MutableMapping`` (an agent framework's session state, a dict shared by workers) can back one
through ``MappingBudgetStore``. Both take a lock around each read-modify-write, so they are exact
under threads and under asyncio (no operation awaits while holding it).
"""

from __future__ import annotations

import threading
from collections.abc import MutableMapping
from typing import Any, Protocol, runtime_checkable

KEY_PREFIX = "contractgen.budget"


def budget_key(tool: str, session: str) -> str:
    return f"{KEY_PREFIX}:{session}:{tool}"


@runtime_checkable
class BudgetStore(Protocol):
    """Counts consecutive transient failures under a key (one key per tool per session)."""

    def record_failure(self, key: str) -> int:
        """Add one failure and return the new consecutive count, atomically."""

    def reset(self, key: str) -> None:
        """A success: the count goes back to zero."""

    def failures(self, key: str) -> int:
        """The current consecutive count."""


class InMemoryBudgetStore:
    """Process-local counts; thread- and asyncio-safe."""

    def __init__(self) -> None:
        self._counts: dict[str, int] = {}
        self._lock = threading.Lock()

    def record_failure(self, key: str) -> int:
        with self._lock:
            count = self._counts.get(key, 0) + 1
            self._counts[key] = count
            return count

    def reset(self, key: str) -> None:
        if key in self._counts:  # the common case (nothing to reset) takes no lock
            with self._lock:
                self._counts.pop(key, None)

    def failures(self, key: str) -> int:
        return self._counts.get(key, 0)


class MappingBudgetStore:
    """Counts kept in any mutable mapping, e.g. an agent framework's session state."""

    def __init__(self, mapping: MutableMapping[str, Any], lock: Any = None) -> None:
        self.mapping = mapping
        self._lock = lock or threading.Lock()

    def record_failure(self, key: str) -> int:
        with self._lock:
            count = int(self.mapping.get(key, 0) or 0) + 1
            self.mapping[key] = count
            return count

    def reset(self, key: str) -> None:
        with self._lock:
            if key in self.mapping:
                del self.mapping[key]

    def failures(self, key: str) -> int:
        return int(self.mapping.get(key, 0) or 0)


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
