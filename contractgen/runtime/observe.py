"""Observability: one ``CallRecord`` per guarded call, sent to ``logging`` and an ``on_call`` hook.

Records go to the ``contractgen.runtime.calls`` logger at INFO (silent unless configured), with the
record in ``extra={"call": record}``; tracebacks of INTERNAL errors go to ``contractgen.runtime`` at
ERROR under the error's ``ref``. Nothing here is shown to the model.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

logger = logging.getLogger("contractgen.runtime")
call_logger = logging.getLogger("contractgen.runtime.calls")


@dataclass(frozen=True)
class CallRecord:
    """What one call did: enough to count calls, errors per tool and per code, and latency."""

    tool: str
    version: str
    code: str  # "OK" or an error code from the closed set
    duration: float  # seconds, wall clock inside the guard
    session: str = "default"
    ref: str | None = None
    budget_failures: int | None = None  # consecutive retry_later failures after this call
    budget_limit: int | None = None
    budget_exhausted: bool = False

    @property
    def ok(self) -> bool:
        return self.code == "OK"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def emit(record: CallRecord, hook: Callable[[CallRecord], None] | None) -> None:
    level = logging.INFO
    if call_logger.isEnabledFor(level):
        call_logger.log(level, "%s %s %s %.6fs%s", record.tool, record.version, record.code,
                        record.duration, f" ref={record.ref}" if record.ref else "",
                        extra={"call": record})
    if hook is not None:
        try:
            hook(record)
        except Exception:  # an observer must never break the call it observes
            logger.exception("on_call hook failed for %s", record.tool)
