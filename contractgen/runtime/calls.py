"""The call in progress: which guarded tool runs it with which (private) arguments, shared by the
guard's stages (a ContextVar, so a call's secrets are known wherever what it wrote is turned into
text: an error message, a log line, a progress message)."""

from __future__ import annotations

import asyncio
import contextvars
import logging
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .stage_failures import FailuresStage

from .observe import STAGES, call_logger
from .scrub import NO_SECRETS, Scrubber

_NEVER_SWALLOWED = (KeyboardInterrupt, SystemExit, asyncio.CancelledError)
#: the per-call log is DEBUG: a framework that sets the root logger to INFO (the MCP SDK's
#: MCPServer does) must not turn on a log line per call in every process
_CALL_LOG_LEVEL = logging.DEBUG
#: bound once: every call asks it (a level set later still counts)
_call_log_enabled = call_logger.isEnabledFor
#: the logger's own memo of that answer, which ``logging`` clears whenever a level changes: a call
#: reads it without a call of its own, and asks ``_call_log_enabled`` on a miss (a fresh dict where
#: this Python's logging keeps no such memo: then every call asks)
_memo = vars(call_logger).get("_cache")
_call_log_memo: dict[int, bool] = _memo if isinstance(_memo, dict) else {}
#: The guarded tool and the arguments of the call in progress, set around the steps that may turn
#: what the implementation wrote (an exception, a ToolError, a progress message) into a log line, an
#: envelope or a listener's text: the secrets they hold are taken out of it there (``scrub.py``).
_CALL: contextvars.ContextVar[tuple[FailuresStage, Any]] = contextvars.ContextVar("contractgen_call")


def _stage(name: str, outcome: str) -> None:
    stages = STAGES.get()
    if stages is not None:
        stages[name] = outcome


def call_secrets() -> Scrubber:
    """What the call in progress (in this context) sent at sensitive positions, to take out of text
    the implementation writes elsewhere (a progress message); NO_SECRETS outside a call."""
    call = _CALL.get(None)
    return NO_SECRETS if call is None else call[0]._secrets()
