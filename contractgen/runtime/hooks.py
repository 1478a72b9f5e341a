"""What runs around a guarded call when the guard has ``hooks``: the dependency's circuit breaker
and the call's telemetry span, around the guard's own steps and failure budget.

``guard(contract, impl, hooks=CallHooks(breakers=RedisBreakerStore(url), telemetry=Telemetry()))``.
Order: span starts -> breaker admits (or answers UNAVAILABLE at once) -> the guarded call ->
breaker records the outcome -> failure budget -> span ends with the final envelope.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any

from .breaker import (
    PROBING,
    Admission,
    BreakerStore,
    counts_as_failure,
    open_envelope,
    probe_lease,
    unreachable_envelope,
)
from .budget import StateUnavailable, admitting, store_window
from .interrupts import owner_stop
from .observe import STAGES, loggable, logger, observed_quietly
from .scrub import NO_SECRETS, secrets_sent

__all__ = ["CallHooks"]


class _NoSpan(contextlib.nullcontext):  # type: ignore[type-arg]
    """Stands in for a telemetry span when there is no telemetry."""

    def __init__(self) -> None:
        super().__init__(self)
        self.start = time.perf_counter()

    def done(self, envelope: dict[str, Any], arguments: Any, breaker: dict[str, str],
             stages: dict[str, str]) -> None:
        pass


class CallHooks:
    """A breaker store (shared per dependency) and a ``Telemetry``; either may be None."""

    def __init__(self, *, breakers: BreakerStore | None = None, telemetry: Any = None) -> None:
        self.breakers = breakers
        self.telemetry = telemetry

    def _span(self, tool: Any, call_id: str | None, caller: str | None) -> Any:
        """The call's span; a telemetry that cannot start one leaves the call unobserved, not failed."""
        if self.telemetry is None:
            return _NoSpan()
        span = observed_quietly(f"telemetry of {tool.name} {tool.version} (starting a span)",
                                self.telemetry.start, tool, call_id, caller)
        return _NoSpan() if span is None else span

    def call(self, tool: Any, arguments: Any, contract_version: str | None, session: str,
             call_id: str | None, caller: str | None) -> dict[str, Any]:
        with self._span(tool, call_id, caller) as span, store_window(tool.contract.timeout.seconds):
            admission, facts, envelope = self._admit(tool)
            stages: dict[str, str] = {}
            if envelope is None:
                token = STAGES.set(stages)
                try:
                    envelope = tool.run_checked(arguments, contract_version)
                finally:
                    STAGES.reset(token)
                self._settle(tool, admission, envelope, facts)
            envelope = tool._finish(envelope, session, span.start, True)
            _record(tool, span, envelope, arguments, facts, stages)
        return envelope  # type: ignore[no-any-return]

    async def acall(self, tool: Any, arguments: Any, contract_version: str | None, session: str,
                    call_id: str | None, caller: str | None) -> dict[str, Any]:
        with self._span(tool, call_id, caller) as span, store_window(tool.contract.timeout.seconds):
            admission, facts, envelope = await self._aadmit(tool)
            stages: dict[str, str] = {}
            if envelope is None:
                token = STAGES.set(stages)
                try:
                    envelope = await tool.arun_checked(arguments, contract_version)
                finally:
                    STAGES.reset(token)
                await self._asettle(tool, admission, envelope, facts)
            envelope = await tool.afinish(envelope, session, span.start, True)
            _record(tool, span, envelope, arguments, facts, stages)
        return envelope  # type: ignore[no-any-return]

    # -- the breaker ------------------------------------------------------------------------
    def _admit(self, tool: Any) -> tuple[Admission | None, dict[str, str], dict[str, Any] | None]:
        dependency = tool.contract.dependency
        if self.breakers is None or dependency is None:
            return None, {}, None
        try:
            with admitting():
                admission = self.breakers.admit(dependency.name, dependency.breaker,
                                                probe_lease(tool.contract))
        except Exception as exc:  # noqa: BLE001 - the contract's policy decides
            return self._unreachable(tool, exc)
        return self._admitted(tool, admission)

    async def _aadmit(self, tool: Any) -> tuple[Admission | None, dict[str, str], dict[str, Any] | None]:
        dependency = tool.contract.dependency
        admit = getattr(self.breakers, "aadmit", None)
        if admit is None or dependency is None:
            return self._admit(tool)
        try:
            with admitting():
                admission = await admit(dependency.name, dependency.breaker, probe_lease(tool.contract))
        except Exception as exc:  # noqa: BLE001
            return self._unreachable(tool, exc)
        return self._admitted(tool, admission)

    def _admitted(self, tool: Any, admission: Admission) -> tuple[Admission, dict[str, str], dict[str, Any] | None]:
        name = tool.contract.dependency.name
        facts = {"dependency": name, "state": admission.state}
        if admission.probe is not None:
            facts["transition"] = PROBING
            self._transition(tool, PROBING)
        if admission.allowed:
            return admission, facts, None
        return admission, facts, open_envelope(tool.contract, admission)

    def _unreachable(self, tool: Any, exc: Exception) -> tuple[None, dict[str, str], dict[str, Any] | None]:
        policy = tool.contract.state_unreachable
        name = tool.contract.dependency.name
        if isinstance(exc, StateUnavailable):
            logger.warning("breaker of %s not checked (store unreachable, policy %s): %s", name, policy, exc)
        else:
            # a store's failure holds no argument text (it sees the dependency's name only)
            logger.error("breaker store failed for %s", name, exc_info=loggable(exc, NO_SECRETS))
        facts = {"dependency": name, "state": "unreachable"}
        return None, facts, unreachable_envelope(tool.contract) if policy == "refuse" else None

    def _settle(self, tool: Any, admission: Admission | None, envelope: dict[str, Any],
                facts: dict[str, str]) -> None:
        failed = counts_as_failure(envelope)
        if admission is None or self.breakers is None or (failed is None and admission.probe is None):
            return
        dependency = tool.contract.dependency
        try:
            transition = self.breakers.record(dependency.name, dependency.breaker, failed,
                                              admission.probe)
        except Exception as exc:  # noqa: BLE001 - an outcome that cannot be recorded is only logged
            logger.warning("breaker of %s could not record an outcome", dependency.name,
                           exc_info=loggable(exc, NO_SECRETS))
            return
        self._note(tool, transition, facts)

    async def _asettle(self, tool: Any, admission: Admission | None, envelope: dict[str, Any],
                       facts: dict[str, str]) -> None:
        record = getattr(self.breakers, "arecord", None)
        failed = counts_as_failure(envelope)
        if record is None or admission is None or (failed is None and admission.probe is None):
            self._settle(tool, admission, envelope, facts)
            return
        dependency = tool.contract.dependency
        try:
            transition = await record(dependency.name, dependency.breaker, failed, admission.probe)
        except Exception as exc:  # noqa: BLE001
            logger.warning("breaker of %s could not record an outcome", dependency.name,
                           exc_info=loggable(exc, NO_SECRETS))
            return
        self._note(tool, transition, facts)

    def _note(self, tool: Any, transition: str | None, facts: dict[str, str]) -> None:
        if transition:
            facts["transition"] = transition
            self._transition(tool, transition)

    def _transition(self, tool: Any, transition: str) -> None:
        name = tool.contract.dependency.name
        logger.warning("circuit breaker of %s: %s (after a call of %s)", name, transition, tool.name)
        if self.telemetry is not None:
            observed_quietly(f"telemetry of the breaker of {name}", self.telemetry.transition, name, transition)


def _record(tool: Any, span: Any, envelope: dict[str, Any], arguments: Any, facts: dict[str, str],
            stages: dict[str, str]) -> None:
    """The span records the call; a telemetry that fails doing so fails neither the call nor its
    answer (the envelope is final), and its exception, which may quote the arguments it was given,
    is logged with the call's secrets scrubbed."""
    try:
        if envelope.get("status") == "ok":  # an ok answer's result passed its check: the guard answers no other
            stages.setdefault("output", "passed")
        span.done(envelope, arguments, facts, stages)
    except BaseException as exc:  # whatever it is, it is logged, not raised (the owner's stop aside)
        if owner_stop(exc):
            raise
        # read only when something failed: most calls never need the secrets they sent
        scrub = observed_quietly("reading a call's secrets for its telemetry", secrets_sent, arguments,
                                 tool.input_schema, getattr(tool, "_resources", None))
        logger.error("telemetry of %s %s failed to record a call", tool.name, tool.version,
                     exc_info=loggable(exc, scrub))
