"""Whose stop is it: the process owner's (a signal) or a tool's own ``SystemExit``/``KeyboardInterrupt``.

Only the process owner stops the process. Python delivers signals to the main thread only, so
anything raised in another thread is the tool's. In the main thread, an exception raised by an
installed Python signal handler (asyncio's second Ctrl-C, an owner's ``sys.exit`` on SIGTERM) is
the owner's; so is a ``KeyboardInterrupt`` while SIGINT has Python's default handler, which raises
it wherever the main thread happens to be. Anything else was raised by the tool's own code.
"""

from __future__ import annotations

import signal
import threading
from types import CodeType
from typing import Any

#: signals whose Python handlers may raise to stop the process
_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT",
                                                    "SIGALRM", "SIGUSR1", "SIGUSR2", "SIGBREAK")
                 if hasattr(signal, name))


class ToolStop(Exception):
    """A ``SystemExit`` or ``KeyboardInterrupt`` already found to be the tool's own, carried as an
    ordinary exception (the original is its ``__cause__``) once the place that could tell is left."""

    def __init__(self, stop: BaseException) -> None:
        super().__init__(f"the tool raised {type(stop).__name__} itself")
        self.__cause__ = stop


def owner_stop(exc: BaseException) -> bool:
    """Whether ``exc`` (a ``KeyboardInterrupt`` or ``SystemExit`` caught in this thread) stops the
    process on its owner's behalf and must propagate; False when the tool raised it itself."""
    if not isinstance(exc, (KeyboardInterrupt, SystemExit)):
        return False
    if threading.current_thread() is not threading.main_thread():
        return False
    try:
        handlers = [signal.getsignal(number) for number in _SIGNALS]
        codes = {code for code in map(_code_of, handlers) if code is not None}
        frames = exc.__traceback__
        while frames is not None:
            if frames.tb_frame.f_code in codes:
                return True
            frames = frames.tb_next
        return isinstance(exc, KeyboardInterrupt) and signal.getsignal(signal.SIGINT) is signal.default_int_handler
    except Exception:  # noqa: BLE001 - when it cannot tell, the stop goes through
        return True


def _code_of(handler: Any) -> CodeType | None:
    """The code object a Python signal handler runs (a function, a bound method, a partial)."""
    for _ in range(8):  # partial(partial(bound method)) and the like
        code = getattr(handler, "__code__", None)
        if isinstance(code, CodeType):
            return code
        inner = getattr(handler, "func", None) or getattr(handler, "__func__", None)
        if inner is None:
            return None
        handler = inner
    return None
