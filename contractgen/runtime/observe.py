"""Observability: one ``CallRecord`` per guarded call, sent to ``logging`` and an ``on_call`` hook.

Records go to the ``contractgen.runtime.calls`` logger at INFO (silent unless configured), with the
record in ``extra={"call": record}``; tracebacks of INTERNAL errors go to ``contractgen.runtime`` at
ERROR under the error's ``ref``. Nothing here is shown to the model.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
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
        except (KeyboardInterrupt, SystemExit):  # the process owner's signals stay theirs
            raise
        except BaseException:
            logger.exception("on_call hook failed for %s", record.tool)


class CallStats:
    """An ``on_call`` hook that counts calls per (tool, version, code); thread-safe.

    ``stats = CallStats(); guard(..., on_call=stats)``, then ``stats.counts`` or
    ``stats.error_rate("book_meeting")``.
    """

    def __init__(self) -> None:
        self.counts: Counter[tuple[str, str, str]] = Counter()
        self.exhausted: Counter[str] = Counter()  # calls that hit the failure budget, per tool
        self._lock = threading.Lock()

    def __call__(self, record: CallRecord) -> None:
        with self._lock:
            self.counts[(record.tool, record.version, record.code)] += 1
            if record.budget_exhausted:
                self.exhausted[record.tool] += 1

    def by_code(self, tool: str | None = None) -> Counter[str]:
        with self._lock:
            out: Counter[str] = Counter()
            for (name, _, code), n in self.counts.items():
                if tool is None or name == tool:
                    out[code] += n
            return out

    def error_rate(self, tool: str | None = None) -> float:
        codes = self.by_code(tool)
        total = sum(codes.values())
        return 0.0 if total == 0 else (total - codes["OK"]) / total
