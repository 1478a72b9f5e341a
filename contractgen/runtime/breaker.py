"""Circuit breakers per upstream dependency, shared by every session: the states, the store
interface, the in-memory store and the UNAVAILABLE envelope a call gets while a breaker is open.

closed -> (``failures`` consecutive retry_later failures, each within ``window`` s of the last) ->
open for ``open_for`` s -> half-open: exactly one probe call goes through; its success closes the
breaker, its failure opens it again. Calls that reach no dependency (INVALID_ARGUMENT,
VERSION_MISMATCH) count neither way. ``contractgen.runtime.stores.redis`` shares the same states
between processes.
"""

from __future__ import annotations

import math
import secrets
import threading
import time
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from .contract import Breaker, Contract
from .envelope import error_envelope

CLOSED, OPEN, HALF_OPEN = "closed", "open", "half_open"
#: transitions a ``record`` can report (``opened``: closed -> open, ``reopened``: a failed probe)
OPENED, REOPENED, RECLOSED, PROBING = "opened", "reopened", "closed", "half_open"
#: codes that never reached the dependency, so they say nothing about its health
NEUTRAL_CODES = frozenset({"INVALID_ARGUMENT", "VERSION_MISMATCH"})


@dataclass(frozen=True)
class Admission:
    """A breaker's answer before a call: go ahead (maybe as the one probe) or fail fast."""

    state: str  # the breaker's state as this call saw it
    allowed: bool
    probe: str | None = None  # the probe's token when this call is the half-open probe
    retry_after: float | None = None  # seconds until a call may go through again


@runtime_checkable
class BreakerStore(Protocol):
    """Where breaker state lives; every operation is atomic for all callers of the store."""

    def admit(self, dependency: str, breaker: Breaker, lease: float) -> Admission:
        """May a call to ``dependency`` go ahead now? A probe holds its slot ``lease`` seconds at
        most (if its process dies, another call probes after that)."""

    def record(self, dependency: str, breaker: Breaker, failed: bool | None,
               probe: str | None) -> str | None:
        """The outcome of an admitted call (None: it never reached the dependency, so a probe is
        only released); returns the transition it caused, if any."""

    def state(self, dependency: str) -> str:
        """closed, open or half_open (for dashboards and tests)."""


class InMemoryBreakerStore:
    """Breakers shared by the sessions of one process; thread- and asyncio-safe."""

    def __init__(self, clock: Any = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._failures: dict[str, tuple[int, float]] = {}  # dependency -> (count, last failure)
        self._open_until: dict[str, float] = {}  # present while open or half-open
        self._probe: dict[str, tuple[str, float]] = {}  # dependency -> (token, expires)

    def admit(self, dependency: str, breaker: Breaker, lease: float) -> Admission:
        with self._lock:
            until = self._open_until.get(dependency)
            if until is None:
                return Admission(CLOSED, True)
            now = self._clock()
            if now < until:
                return Admission(OPEN, False, retry_after=until - now)
            probe = self._probe.get(dependency)
            if probe is not None and probe[1] > now:
                return Admission(HALF_OPEN, False, retry_after=probe[1] - now)
            token = secrets.token_hex(8)
            self._probe[dependency] = (token, now + lease)
            return Admission(HALF_OPEN, True, probe=token)

    def record(self, dependency: str, breaker: Breaker, failed: bool | None,
               probe: str | None) -> str | None:
        with self._lock:
            now = self._clock()
            held = self._probe.get(dependency)
            if probe is not None and held is not None and held[0] == probe:
                del self._probe[dependency]
                if failed is None:
                    return None
                if failed:
                    self._open_until[dependency] = now + breaker.open_for
                    return REOPENED
                self._open_until.pop(dependency, None)
                self._failures.pop(dependency, None)
                return RECLOSED
            if dependency in self._open_until or failed is None:
                return None  # a late answer from before it opened changes nothing
            if not failed:
                self._failures.pop(dependency, None)
                return None
            count, last = self._failures.get(dependency, (0, now))
            count = count + 1 if now - last <= breaker.window else 1
            if count >= breaker.failures:
                self._failures.pop(dependency, None)
                self._open_until[dependency] = now + breaker.open_for
                return OPENED
            self._failures[dependency] = (count, now)
            return None

    def state(self, dependency: str) -> str:
        with self._lock:
            until = self._open_until.get(dependency)
            if until is None:
                return CLOSED
            return OPEN if self._clock() < until else HALF_OPEN


def probe_lease(contract: Contract) -> float:
    """How long a half-open probe may hold its slot: its own deadline, and never under open_for."""
    breaker = contract.dependency.breaker if contract.dependency else Breaker()
    return max(breaker.open_for, contract.timeout.seconds or 0.0)


def counts_as_failure(envelope: dict[str, Any]) -> bool | None:
    """True for a retry_later failure, False for a dependency that answered, None for neither."""
    error = envelope.get("error")
    if not isinstance(error, dict):
        return False
    if error.get("code") in NEUTRAL_CODES:
        return None
    return error.get("action") == "retry_later"


def open_envelope(contract: Contract, admission: Admission) -> dict[str, Any]:
    """UNAVAILABLE without calling: the dependency failed for everyone recently."""
    dependency = contract.dependency.name if contract.dependency else contract.name
    wait = max(admission.retry_after or 0.0, 0.0)
    message = (f"{contract.name} is not being called right now: its dependency {dependency} failed "
               f"repeatedly for all users. Wait {max(math.ceil(wait), 1)} seconds (retry_after) before calling it "
               "again unchanged; if the user cannot wait, tell them the service is down.")
    return error_envelope(contract, "UNAVAILABLE", message, retryable=True, action="retry_later",
                          retry_after=round(wait, 3))


def unreachable_envelope(contract: Contract) -> dict[str, Any]:
    """UNAVAILABLE under ``state_unreachable: refuse`` when the breaker's state cannot be read."""
    message = (f"{contract.name} cannot be called right now (its shared state is unreachable). Do "
               "not call it again for this request; tell the user it is not working right now.")
    return error_envelope(contract, "UNAVAILABLE", message, retryable=False,
                          action="stop_and_tell_user")
