"""Escalation through the framework, opt-in per tool or per code: which error envelopes escalate, and
telling a human about each (a WARNING in the ``contractgen.adapters`` log with the envelope's ref, and
the application's ``on_escalate``). What the framework then does is each adapter's: ADK escalates
(and may transfer to an agent), the OpenAI Agents SDK ends the run (``stop_on_escalation``)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from contractgen.runtime import GuardedTool
from contractgen.runtime.codes import CODES
from contractgen.runtime.envelope import new_ref
from contractgen.runtime.observe import loggable

__all__ = ["Escalated", "Escalation", "escalated", "escalation_of"]

logger = logging.getLogger("contractgen.adapters")


@dataclass(frozen=True)
class Escalated:
    """One escalation, as ``on_escalate`` receives it: the ref links it to the envelope and the log."""

    tool: str
    version: str
    code: str
    message: str
    ref: str
    session: str


@dataclass(frozen=True)
class Escalation:
    """Which errors a tool escalates through the framework: those whose action is ``escalate``, of
    ``codes`` only when given; ``on_escalate`` is told of each (beside the WARNING log);
    ``transfer_to`` names the ADK agent the conversation goes to (a human desk, a supervisor)."""

    codes: frozenset[str] | None = None
    on_escalate: Callable[[Escalated], Any] | None = None
    transfer_to: str | None = None

    def __post_init__(self) -> None:
        if self.codes is not None:
            codes = frozenset(self.codes)
            unknown = sorted(codes - set(CODES))
            if unknown:
                raise ValueError(
                    f"escalation codes: expected codes of the closed set (got {', '.join(unknown)}); "
                    f"hint: one of {', '.join(CODES)}"
                )
            object.__setattr__(self, "codes", codes)


def escalation_of(
    option: bool | Iterable[str] | Escalation | None,
    on_escalate: Callable[[Escalated], Any] | None = None,
) -> Escalation | None:
    """An adapter's ``escalate=`` option as an Escalation: ``True`` (every escalate error), a set of
    codes, an Escalation, or ``None``/``False`` (off; ``on_escalate`` alone turns it on)."""
    if isinstance(option, Escalation):
        return (
            option
            if on_escalate is None
            else Escalation(option.codes, on_escalate, option.transfer_to)
        )
    if option is None or option is False:
        return None if on_escalate is None else Escalation(on_escalate=on_escalate)
    if option is True:
        return Escalation(on_escalate=on_escalate)
    if isinstance(option, str):
        option = (option,)
    return Escalation(frozenset(option), on_escalate)


def escalated(
    escalation: Escalation | None,
    tool: GuardedTool[Any, Any],
    envelope: Mapping[str, Any],
    session: str,
) -> dict[str, Any] | None:
    """The envelope, with a ref, when it escalates under ``escalation``, after a human was told (the
    log, then ``on_escalate``, whose failure is logged and changes nothing); None when it does not."""
    error = envelope.get("error") if envelope.get("status") == "error" else None
    if escalation is None or not isinstance(error, Mapping) or error.get("action") != "escalate":
        return None
    if escalation.codes is not None and error.get("code") not in escalation.codes:
        return None
    ref = error.get("ref") or new_ref()
    raised = {**envelope, "error": {**error, "ref": ref}}
    event = Escalated(
        tool.name, tool.version, str(error.get("code")), str(error.get("message")), ref, session
    )
    logger.warning(
        "%s %s escalated %s (ref=%s, session %s): %s",
        event.tool,
        event.version,
        event.code,
        ref,
        session,
        event.message,
    )
    if escalation.on_escalate is not None:
        try:
            escalation.on_escalate(event)
        except Exception as exc:  # telling a human must not change the call's answer
            logger.error(
                "on_escalate failed for %s (ref=%s)", tool.name, ref, exc_info=loggable(exc)
            )
    return raised
