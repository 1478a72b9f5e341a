"""Progress for long-running tools: the implementation reports, the host decides where it goes.

An implementation calls ``report_progress(done, total, message)`` from anywhere inside its call
(sync or async, in the guard's worker threads too: the guard copies the caller's context). A message
is the tool's own text: the secrets the call sent are taken out of it before any listener reads it. With
nobody listening it does nothing and returns False. A host sets a listener for one call with
``progress_listener(callback)``; the MCP server turns reports into ``notifications/progress`` when
the client sent a ``progressToken``, so an agent can tell work from a hang.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["ProgressListener", "progress_listener", "report_progress"]

#: ``listener(progress, total, message)``
ProgressListener = Callable[[float, "float | None", "str | None"], None]

_LISTENER: ContextVar[ProgressListener | None] = ContextVar("contractgen_progress", default=None)
MESSAGE_CAP = 200


def report_progress(progress: float, total: float | None = None, message: str | None = None) -> bool:
    """Tell the caller how far this call has got (``progress`` of ``total`` units, if known).

    Returns whether anyone listens. Never raises: progress is advice, the call's result is what counts.
    """
    listener = _LISTENER.get()
    if listener is None:
        return False
    # read through base types: a subclass's own __float__ or __str__ never runs
    from .jsonvalue import thaw

    done, whole, message = _number(thaw(progress)), None if total is None else _number(thaw(total)), thaw(message)
    if done is None or (total is not None and whole is None):
        return False  # NaN, infinite, no number, or an integer past any float (10**400 raised)
    text = None
    if message is not None:
        from .calls import call_secrets  # loaded whenever a guarded call runs
        from .internals import without_credentials
        from .visible import visible

        said = message if type(message) is str else repr(message) if type(message) in (int, float) else None
        # the tool's own text may quote what the call sent, or a credential of its own (a DSN's
        # password, a key): both go before the cap cuts one
        text = None if said is None else without_credentials(
            call_secrets().text(" ".join(visible(said[: 64 * MESSAGE_CAP]).split())))[:MESSAGE_CAP]
    try:
        listener(done, whole, text)
    except BaseException as exc:  # a broken listener must not fail the tool
        from .interrupts import owner_stop
        from .observe import loggable, logger
        from .scrub import Scrubber

        if owner_stop(exc):
            raise

        # what it raised may quote the message, which is the tool's own text (and may hold what the
        # call sent): the log never repeats it
        logger.warning("progress listener failed", exc_info=loggable(exc, Scrubber([text] if text else [])))
        return False
    return True


#: the listener of this context, or None
listening = _LISTENER.get


@contextmanager
def progress_listener(listener: ProgressListener | None) -> Iterator[None]:
    """Send this context's ``report_progress`` calls to ``listener`` (None: to nobody)."""
    token = _LISTENER.set(listener)
    try:
        yield
    finally:
        _LISTENER.reset(token)


def _number(value: object) -> float | None:
    """A finite float for an exact int or float, else None (a bool is no number here)."""
    if type(value) is not int and type(value) is not float:
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None
