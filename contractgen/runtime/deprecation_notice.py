"""The deprecation notice: the first success of a deprecated tool version in a session says so.

``compile_deprecation_notice(contract)`` is None for a version that is not deprecated; otherwise it
returns a function that adds ``deprecation`` to an ok envelope the first time a session succeeds
(not on every call: the model needs telling once, and a repeated notice costs tokens every turn).
Sessions are remembered in this process, at most ``SESSIONS_CAP`` of them, least recently told
forgotten first: a forgotten session is told again, never left untold.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from .contract import Contract, Deprecation
from .envelope import cap_text

#: sessions remembered per deprecated tool version (each costs one dict entry)
SESSIONS_CAP = 10_000

Notify = Callable[[dict[str, Any], str], None]


def deprecation_notice(contract: Contract, deprecation: Deprecation) -> dict[str, Any]:
    """The ``deprecation`` object of an envelope: a message, and the facts it is made of."""
    name = f"{contract.name} {contract.version}"
    since = f" since {deprecation.since}" if deprecation.since else ""
    sunset = f" and is removed after {deprecation.sunset}" if deprecation.sunset else ""
    parts = [f"{name} is deprecated{since}{sunset}."]
    if deprecation.message:
        parts.append(deprecation.message.strip())
    if deprecation.replacement:
        steps = " following the steps in 'migration'" if deprecation.migration else ""
        parts.append(f"Move to {deprecation.replacement}{steps}; this call still succeeded.")
    notice: dict[str, Any] = {"message": cap_text(" ".join(parts))}
    if deprecation.replacement:
        notice["replacement"] = deprecation.replacement
    if deprecation.sunset:
        notice["sunset"] = deprecation.sunset
    if deprecation.migration:
        notice["migration"] = list(deprecation.migration)
    return notice


def compile_deprecation_notice(contract: Contract, sessions: int = SESSIONS_CAP) -> Notify | None:
    """The notifier for ``contract``, or None when the version is not deprecated."""
    if contract.deprecation is None:
        return None
    notice = deprecation_notice(contract, contract.deprecation)
    told: OrderedDict[str, None] = OrderedDict()
    lock = threading.Lock()

    def notify(envelope: dict[str, Any], session: str) -> None:
        if envelope.get("status") != "ok":
            return  # a failure is not the moment: the first success carries it
        with lock:
            if session in told:
                told.move_to_end(session)
                return
            told[session] = None
            if len(told) > sessions:
                told.popitem(last=False)
        envelope["deprecation"] = {
            **notice,
            **({"migration": list(notice["migration"])} if "migration" in notice else {}),
        }

    return notify


__all__ = ["SESSIONS_CAP", "compile_deprecation_notice", "deprecation_notice"]
