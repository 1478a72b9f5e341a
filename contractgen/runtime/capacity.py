"""Bounded capacity per guarded tool, so one stuck tool exhausts only itself.

A slot is held by each worker thread running one of the tool's calls and by each abandoned async
call (one that ignored its cancellation), until that work really ends. When a tool holds all its
slots, its next call is refused at once with UNAVAILABLE, and ``stuck_tools()`` names it.
"""

from __future__ import annotations

import weakref
from typing import Any

#: Slots per tool: worker threads plus abandoned async calls still running.
PER_TOOL_LIMIT = 32


class Capacity:
    """One tool's slots. Thread-safe without a lock: the slots held and those abandoned are two
    sets, and each step below is one set operation (atomic under the GIL, and locked per set where
    there is none). The limit is read before a slot is added, so threads entering at the same
    instant may each pass it by one; work that never ends still stops at the limit."""

    __slots__ = ("__weakref__", "limit", "name", "running", "stuck")

    def __init__(self, name: str, limit: int | None = None) -> None:
        self.name = name
        self.limit = PER_TOOL_LIMIT if limit is None else max(1, limit)
        self.running: set[Slot] = set()
        self.stuck: set[Slot] = set()  # held slots whose caller already got its answer (TIMEOUT)
        _ALL.add(self)

    @property
    def held(self) -> int:
        return len(self.running)

    @property
    def abandoned(self) -> int:
        return len(self.stuck)

    def acquire(self) -> Slot | None:
        """A slot, or None when the tool already holds all of its slots."""
        running = self.running
        if len(running) >= self.limit:
            return None
        slot = Slot(self, not running)
        running.add(slot)
        return slot

    def hold(self) -> Slot:
        """A slot for work that already runs (an abandoned task): taken even past the limit."""
        slot = Slot(self, False)
        self.running.add(slot)
        return slot


class Slot:
    """One held slot: given back when its work ends, counted as stuck once its caller gave up."""

    __slots__ = ("capacity", "first")

    def __init__(self, capacity: Capacity, first: bool) -> None:
        self.capacity = capacity
        self.first = first  # the tool held nothing else: it may pass a full worker pool

    @property
    def abandoned(self) -> bool:
        return self in self.capacity.stuck

    def abandon(self) -> None:
        """The caller has its answer but the work goes on. Counted first, then undone if the work
        ended meanwhile (``release`` leaves the held slots before the stuck ones), so a race leaves
        no count."""
        stuck = self.capacity.stuck
        stuck.add(self)
        if self not in self.capacity.running:
            stuck.discard(self)

    def release(self, *_: Any) -> None:
        """The work ended (any arguments are ignored, so this serves as a done-callback); a second
        release changes nothing."""
        self.capacity.running.discard(self)
        self.capacity.stuck.discard(self)


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
