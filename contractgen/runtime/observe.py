"""Observability: one ``CallRecord`` per guarded call, sent to ``logging`` and an ``on_call`` hook.

Records go to the ``contractgen.runtime.calls`` logger at INFO (silent unless configured), with the
record in ``extra={"call": record}``; tracebacks of INTERNAL errors go to ``contractgen.runtime`` at
ERROR under the error's ``ref``. Nothing here is shown to the model.
"""

from __future__ import annotations

import builtins
import contextlib
import contextvars
import logging
import sys
import threading
import traceback
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass
from types import TracebackType
from typing import Any

from .interrupts import owner_stop

logger = logging.getLogger("contractgen.runtime")
call_logger = logging.getLogger("contractgen.runtime.calls")
#: What a call's validation stages found, for its trace: the hooks put a dict here around a call, and
#: the input and output checks write "passed" or "failed" into it (a stage left out did not run). A
#: dict rather than values: a worker thread runs in a copy of the context and writes the same dict.
STAGES: contextvars.ContextVar[dict[str, str] | None] = contextvars.ContextVar("contractgen_stages", default=None)


def _handled_safely(log: logging.Logger) -> None:
    """A filter or handler that raises (a log shipper that is down) never reaches the guard: the
    record is dropped and said so on stderr, as logging does for a handler whose ``emit`` fails.
    ``Logger.handle`` runs the logger's filters and every handler up the hierarchy."""
    handle = log.handle

    def handle_safely(record: logging.LogRecord) -> None:
        try:
            handle(record)
        except BaseException as exc:  # an observer never decides a call
            if owner_stop(exc):
                raise
            _said_on_stderr(f"a log filter or handler of {log.name} raised {type(exc).__qualname__}; "
                            "a record was dropped")

    log.handle = handle_safely  # type: ignore[method-assign]


def _said_on_stderr(text: str) -> None:
    if logging.raiseExceptions:  # logging's own switch for reporting handler failures
        with contextlib.suppress(Exception):  # a broken stderr: the report cannot fail in turn
            sys.stderr.write(f"--- contractgen: {text}\n")


_handled_safely(logger)
_handled_safely(call_logger)


def observed_quietly(what: str, observe: Callable[..., Any], *args: Any, scrub: Any = None) -> Any:
    """``observe(*args)``, an observer's step (telemetry, metrics, a report): what it raises is
    logged under ``what`` (with ``scrub`` applied to its text) and None returned, since observing a
    call never changes its outcome. Only the process owner's stop goes through."""
    try:
        return observe(*args)
    except BaseException as exc:
        if owner_stop(exc):
            raise
        logger.error("%s failed", what, exc_info=loggable(exc, scrub))
        return None
#: exceptions of one chain (causes, contexts, group members) looked at when one is logged; a longer
#: chain is logged by its first exception's type alone, since what was not looked at is not scrubbed
_CHAIN_LIMIT = 256
#: members of an exception group the log shows (traceback's max_group_width)
_GROUP_WIDTH = 15


class ValidationErrorInputHidden(Exception):
    """A pydantic ``ValidationError`` as it is logged: its errors without the input values its own
    text quotes (those are a tool's arguments or results, secrets included)."""


class UnreadableException(Exception):
    """An exception as it is logged when its traceback or chain raises when read."""


def loggable(exc: BaseException, scrub: Any = None) -> tuple[type[BaseException], BaseException, TracebackType | None]:
    """``exc_info`` for logging ``exc``: every pydantic ``ValidationError`` in its chain is shown by
    its errors without their input values, and every exception in it (causes, contexts, group
    members) whose text or notes hold a secret the call sent (``scrub``, a ``scrub.Scrubber``) by a
    stand-in of the same name with that text scrubbed. A ``ValidationError`` built from arguments
    quotes them without the tool meaning to; a tool's own message may quote them too. The chain's
    links are repointed at the stand-ins (the exception has been handled; only the log reads it).
    An exception whose ``__traceback__`` or links raise when read is logged by its type alone."""
    try:
        info = _loggable(exc, scrub)
        # what the log handler will read: the whole chain's tracebacks (it would fail there, later)
        traceback.TracebackException(*info, lookup_lines=False)
        return info
    except Exception as failure:  # noqa: BLE001 - a hostile exception still gets its line in the log
        try:
            name = type(exc).__qualname__
        except Exception:  # noqa: BLE001
            name = "an exception"
        why = "its chain is too long to log" if isinstance(failure, _ChainTooLong) else \
            "its traceback could not be read"
        stand_in = UnreadableException(f"{name} ({why})")
        return UnreadableException, stand_in, None


def _loggable(exc: BaseException, scrub: Any) -> tuple[type[BaseException], BaseException, TracebackType | None]:
    shown = _stand_in(exc, scrub)
    todo: list[BaseException] = [shown]
    seen: set[int] = set()
    while todo and len(seen) < _CHAIN_LIMIT:
        current = todo.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        for link in ("__cause__", "__context__"):
            linked = getattr(current, link)
            if linked is not None:
                replaced = _stand_in(linked, scrub)
                if replaced is not linked:
                    setattr(current, link, replaced)
                todo.append(replaced)
        if _is_group(current):  # the log shows each member with its own chain (the first 15 of them)
            todo.extend(current.exceptions[:_GROUP_WIDTH])  # type: ignore[attr-defined]
    if any(id(left) not in seen for left in todo):
        raise _ChainTooLong
    return type(shown), shown, shown.__traceback__


class _ChainTooLong(Exception):
    """Raised inside ``loggable`` for a chain longer than _CHAIN_LIMIT."""


def _stand_in(exc: BaseException, scrub: Any = None) -> BaseException:
    """What the log shows for ``exc``: itself, or a stand-in without input values, the call's
    secrets (``scrub``) or credentials of any call (a key in a URL an HTTP client quotes)."""
    from .internals import without_credentials  # (internals logs through this module)
    from .visible import visible

    def clean(text: str) -> str:  # read as a reader sees it first: see stage_failures._from_tool_error
        return without_credentials(scrub.text(visible(text)) if scrub else text)

    return _scrubbed(_without_input(exc), clean)


#: (ExceptionGroup, BaseExceptionGroup) where Python has them (3.11 and later)
_GROUPS: tuple[Any, Any] = (getattr(builtins, "ExceptionGroup", None), getattr(builtins, "BaseExceptionGroup", None))


def _is_group(exc: BaseException) -> bool:
    return _GROUPS[1] is not None and isinstance(exc, _GROUPS[1])


class _Scrubbed(Exception):
    """Base of the stand-ins logged for exceptions whose text held a secret the call sent, or a
    credential."""


def _scrubbed(exc: BaseException, clean: Callable[[str], str]) -> BaseException:
    """``exc``, or a stand-in named like it whose text, notes and group members are ``clean``."""
    try:
        text = str(exc)
    except Exception:  # noqa: BLE001 - the log handler says it could not be read; nothing to scrub
        return exc
    notes = getattr(exc, "__notes__", None)
    notes = list(notes) if isinstance(notes, (list, tuple)) else []
    if isinstance(exc, SyntaxError):  # the log prints its source line and file name beside its text
        notes += [f"{name}: {value}" for name, value in (("source", exc.text), ("file", exc.filename))
                  if isinstance(value, str) and clean(value) != value]
    clean_text = clean(text)
    clean_notes = [clean(n) if isinstance(n, str) else n for n in notes]
    members = list(exc.exceptions) if _is_group(exc) else None  # type: ignore[attr-defined]
    clean_members = [_scrubbed(_without_input(m), clean) for m in members] if members is not None else None
    if clean_text == text and clean_notes == notes and clean_members == members:
        return exc
    names = {"__module__": type(exc).__module__, "__qualname__": type(exc).__qualname__}
    if clean_members is not None:
        base = _GROUPS[0] if all(isinstance(m, Exception) for m in clean_members) else _GROUPS[1]
        stand_in: BaseException = type(type(exc).__name__, (base,), names)(
            clean(str(exc.message)), clean_members)  # type: ignore[attr-defined]
    else:
        stand_in = type(type(exc).__name__, (_Scrubbed,), names)(clean_text)
    if clean_notes:
        stand_in.__notes__ = clean_notes
    stand_in.__traceback__ = exc.__traceback__
    stand_in.__cause__, stand_in.__context__ = exc.__cause__, exc.__context__
    stand_in.__suppress_context__ = exc.__suppress_context__
    return stand_in


def _without_input(exc: BaseException) -> BaseException:
    # no ValidationError exists unless pydantic-core was imported: importing the runtime stays light
    core = sys.modules.get("pydantic_core")
    if core is None or not isinstance(exc, core.ValidationError):
        return exc
    try:
        errors = exc.errors(include_url=False, include_context=False, include_input=False)
        count = exc.error_count()
        lines = [f"{count} validation error{'s' if count != 1 else ''} for {exc.title} (input values hidden)"]
        lines += [f"{'.'.join(map(str, e['loc'])) or '(root)'}: {e['msg']} [type={e['type']}]" for e in errors]
        text = "\n".join(lines)
    except Exception:  # noqa: BLE001 - an error that cannot list its errors is still hidden
        text = f"{type(exc).__name__} (input values hidden)"
    stand_in = ValidationErrorInputHidden(text)
    stand_in.__traceback__ = exc.__traceback__
    stand_in.__cause__, stand_in.__context__ = exc.__cause__, exc.__context__
    stand_in.__suppress_context__ = exc.__suppress_context__
    return stand_in


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
    level = logging.DEBUG  # one line per call: on only where asked for (see guard._INFO)
    if call_logger.isEnabledFor(level):
        call_logger.log(level, "%s %s %s %.6fs%s", record.tool, record.version, record.code,
                        record.duration, f" ref={record.ref}" if record.ref else "",
                        extra={"call": record})
    if hook is not None:
        try:
            hook(record)
        except (KeyboardInterrupt, SystemExit):  # the process owner's signals stay theirs
            raise
        except BaseException as exc:  # the record holds no argument text; loggable hides what its chain may
            logger.error("on_call hook failed for %s", record.tool, exc_info=loggable(exc))


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
