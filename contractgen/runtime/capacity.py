"""Bounded capacity per guarded tool, so one stuck tool exhausts only itself.

A slot is held by each worker thread running one of the tool's calls and by each abandoned async
call (one that ignored its cancellation), until that work really ends. When a tool holds all its
slots, its next call is refused at once with UNAVAILABLE, and ``stuck_tools()`` names it.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

#: Slots per tool: worker threads plus abandoned async calls still running.
PER_TOOL_LIMIT = 32


class Capacity:
    """One tool's slots; thread-safe, and cheap when nothing is held."""

    __slots__ = ("__weakref__", "abandoned", "held", "limit", "lock", "name")

    def __init__(self, name: str, limit: int | None = None) -> None:
        self.name = name
        self.limit = PER_TOOL_LIMIT if limit is None else max(1, limit)
        self.held = 0
        self.abandoned = 0  # held slots whose caller already got its answer (TIMEOUT)
        self.lock = threading.Lock()
        _ALL.add(self)

    def acquire(self) -> Slot | None:
        """A slot, or None when the tool already holds all of its slots."""
        with self.lock:
            if self.held >= self.limit:
                return None
            self.held += 1
            first = self.held == 1
        return Slot(self, first)

    def hold(self) -> Slot:
        """A slot for work that already runs (an abandoned task): taken even past the limit."""
        with self.lock:
            self.held += 1
        return Slot(self, False)


class Slot:
    """One held slot: given back when its work ends, counted as stuck once its caller gave up."""

    __slots__ = ("abandoned", "capacity", "done", "first")

    def __init__(self, capacity: Capacity, first: bool) -> None:
        self.capacity = capacity
        self.first = first  # the tool held nothing else: it may pass a full worker pool
        self.abandoned = False
        self.done = False

    def abandon(self) -> None:
        """The caller has its answer but the work goes on."""
        with self.capacity.lock:
            if not self.done and not self.abandoned:
                self.abandoned = True
                self.capacity.abandoned += 1

    def release(self, *_: Any) -> None:
        """The work ended (any arguments are ignored, so this serves as a done-callback)."""
        with self.capacity.lock:
            if self.done:
                return
            self.done = True
            self.capacity.held -= 1
            if self.abandoned:
                self.capacity.abandoned -= 1


_ALL: weakref.WeakSet[Capacity] = weakref.WeakSet()


def stuck_tools() -> dict[str, dict[str, int]]:
    """Tools with calls still running after their caller gave up: ``{name: {abandoned, held, limit}}``."""
    found: dict[str, dict[str, int]] = {}
    for capacity in list(_ALL):
        if capacity.abandoned:
            entry = found.setdefault(capacity.name, {"abandoned": 0, "held": 0, "limit": 0})
            entry["abandoned"] += capacity.abandoned
            entry["held"] += capacity.held
            entry["limit"] += capacity.limit
    return dict(sorted(found.items()))
