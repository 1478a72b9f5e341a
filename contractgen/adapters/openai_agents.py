"""OpenAI Agents SDK (0.24): a ``FunctionTool`` whose schema is the contract's and whose invoke is the guard.

Strict mode rewrites a schema (every property required, ``additionalProperties: false``) and rejects
open maps and root unions, which would change the contract; so it is on only when the SDK's strict
form of the input schema is the schema itself. The SDK does not validate arguments (even invalid
JSON reaches the tool): invalid JSON gets INVALID_ARGUMENT, everything else goes to the guard. The
model reads the envelope as JSON text. The budget session comes from the run context
(``Runner.run(context=...)``): its ``session_id`` (attribute or key), else the run config's
``group_id``; a context that is a mutable mapping also holds the counts itself. The caller the
spans record is the context's ``user_id``, the agent's name and that session. The SDK's trace of
the call (its function span) records the arguments redacted, as the guard's own telemetry does.
"""

from __future__ import annotations

import json
import logging
from collections import OrderedDict
from collections.abc import Callable, Iterable, MutableMapping
from typing import Any

from ..runtime.install_hint import install_hint

try:
    from agents import FunctionTool, FunctionToolResult, ToolsToFinalOutputResult
    from agents.exceptions import UserError
    from agents.run_config import ToolErrorFormatterArgs
    from agents.strict_schema import ensure_strict_json_schema
    from agents.tool_context import ToolContext
    from agents.tracing import get_current_span
except ImportError as exc:  # pragma: no cover - exercised only without the extra installed
    raise ImportError("contractgen.adapters.openai_agents needs the OpenAI Agents SDK: "
                      f"{install_hint('openai-agents')}") from exc

from contractgen.runtime import GuardedTool
from contractgen.runtime.observe import loggable
from contractgen.runtime.scrub import arguments_shown

from ._confirm import asks, call_answered, gate_of
from ._escalation import Escalated, Escalation, escalated, escalation_of
from ._guarded import (
    caller_label,
    envelope_text,
    invalid_json_arguments,
    plain_schema,
    session_from,
    tool_failure,
    with_state_budget,
)

__all__ = ["Escalated", "Escalation", "confirmation_denied", "contract_failure", "function_tool", "run_session",
           "stop_on_escalation", "strict_allowed"]

SessionOf = Callable[[ToolContext[Any]], str]

logger = logging.getLogger("contractgen.adapters")


def function_tool(tool: GuardedTool[Any, Any], *, strict: bool | None = None,
                  session: SessionOf | None = None,
                  escalate: bool | Iterable[str] | Escalation | None = None,
                  on_escalate: Callable[[Escalated], Any] | None = None) -> FunctionTool:
    """The ``FunctionTool`` for a guarded tool. ``strict=None`` turns strict mode on only where the
    contract's schema is already in strict form (``strict=True`` on another schema is a ValueError:
    it would change the contract); ``session`` overrides how a call's budget session is found
    (default: ``run_session``). ``escalate`` (True, or the codes) with ``on_escalate``: an error
    whose action is escalate tells a human, and ends the run where the agent's ``tool_use_behavior``
    is ``stop_on_escalation``."""
    guarded = with_state_budget(tool)
    escalation = escalation_of(escalate, on_escalate)
    schema = plain_schema(guarded.input_schema)
    allowed = strict_allowed(schema)
    if strict and not allowed:
        # strict mode would make optional arguments required or reject open maps: the contract changes
        raise ValueError(f"{guarded.name}: OpenAI strict mode would change this contract's input schema "
                         "(it is not in strict form: every property required, objects closed); "
                         "hint: leave strict=None, which uses strict mode only where it changes nothing")
    use_strict = allowed if strict is None else strict
    session_of = session or run_session
    gate = gate_of(guarded)

    async def needs_approval(ctx: Any, params: dict[str, Any], call_id: str) -> bool:
        """The SDK's approval step for exactly the calls the guard would hold for a human."""
        if not asks(gate, params):
            return False
        _ASKED[call_id] = (guarded, params, _session_of(session_of, ctx, guarded.name))
        while len(_ASKED) > _ASKED_CAP:
            _ASKED.popitem(last=False)
        return True

    async def invoke(ctx: ToolContext[Any], raw_arguments: str) -> str:
        try:
            arguments = json.loads(raw_arguments or "{}")
        except (ValueError, RecursionError):  # RecursionError: nesting deeper than the parser's stack
            _traced_as(raw_arguments, "[not a JSON object]")
            return envelope_text(invalid_json_arguments(guarded))
        _traced_as(raw_arguments, arguments_shown(guarded, arguments, TRACE_CAP))
        context = getattr(ctx, "context", None)
        state = context if isinstance(context, MutableMapping) else None
        session = _session_of(session_of, ctx, guarded.name)
        agent = getattr(getattr(ctx, "agent", None), "name", None)
        caller = caller_label(user=session_from(context, "user_id"), agent=agent,
                              session=None if session == "default" else session.split(":", 1)[-1])
        # the SDK runs a call that needed approval only once the host approved it (RunState.approve)
        approved = ctx.is_tool_approved(guarded.name, ctx.tool_call_id) if asks(gate, arguments) else None
        envelope = await call_answered(guarded, arguments, approved, session=session, state=state,
                                       call_id=ctx.tool_call_id, caller=caller)
        return envelope_text(escalated(escalation, guarded, envelope, session) or envelope)

    invoke.escalation = escalation  # type: ignore[attr-defined] # read by stop_on_escalation
    return FunctionTool(name=guarded.name, description=guarded.description, params_json_schema=schema,
                        on_invoke_tool=invoke, strict_json_schema=use_strict,
                        needs_approval=needs_approval if gate is not None else False)


#: the calls this process asked the SDK to approve, by call id: (tool, arguments, budget session)
_ASKED: OrderedDict[str, tuple[GuardedTool[Any, Any], dict[str, Any], str]] = OrderedDict()
_ASKED_CAP = 4096


async def confirmation_denied(args: ToolErrorFormatterArgs[Any]) -> str | None:
    """``RunConfig(tool_error_formatter=confirmation_denied)``: a call the host rejected
    (``RunState.reject``) reaches the model as the guard's CONFIRMATION_DENIED envelope instead of
    the SDK's plain text; other errors keep the SDK's message (None)."""
    asked = _ASKED.pop(args.call_id, None) if args.kind == "approval_rejected" else None
    if asked is None:
        return None
    tool, arguments, session = asked
    return envelope_text(await call_answered(tool, arguments, False, session=session, call_id=args.call_id))


def stop_on_escalation(context: Any, results: list[FunctionToolResult]) -> ToolsToFinalOutputResult:
    """``Agent(tool_use_behavior=stop_on_escalation)``: the run ends when a tool made with ``escalate``
    answers an error it escalates; the final output is that envelope's JSON text (its ref is in the
    log a human was pointed to), not a reply the model improvised. Otherwise the model runs again."""
    for result in results:
        escalation = getattr(getattr(result.tool, "on_invoke_tool", None), "escalation", None)
        if not isinstance(escalation, Escalation) or not isinstance(result.output, str):
            continue
        try:
            envelope = json.loads(result.output)
        except ValueError:
            continue
        error = envelope.get("error") if isinstance(envelope, dict) else None
        if isinstance(error, dict) and error.get("action") == "escalate" \
                and (escalation.codes is None or error.get("code") in escalation.codes):
            return ToolsToFinalOutputResult(is_final_output=True, final_output=result.output)
    return ToolsToFinalOutputResult(is_final_output=False)


def _session_of(session_of: SessionOf, ctx: ToolContext[Any], name: str) -> str:
    """The call's budget session; ``default`` when the application's function raises or gives no text
    (it must not end the run)."""
    try:
        session = session_of(ctx)
    except Exception as exc:
        logger.warning("the session function of %s raised; budget session 'default'", name,
                       exc_info=loggable(exc))
        return "default"
    return session if isinstance(session, str) and session else "default"


#: characters of the arguments a trace's function span records
TRACE_CAP = 2000


def _traced_as(raw_arguments: str, shown: str) -> None:
    """The SDK's function span records the raw arguments (``trace_include_sensitive_data``, on by
    default, exported to the OpenAI traces dashboard): they are replaced by the redacted ones the
    guard's own telemetry records. The span is current while the tool runs."""
    try:
        span = get_current_span()
        data = getattr(span, "span_data", None)
        if getattr(data, "type", None) == "function" and getattr(data, "input", None) == raw_arguments:
            data.input = shown  # type: ignore[union-attr]
    except Exception:  # noqa: BLE001, S110 - tracing is the SDK's; a failure there must not fail the call
        pass


def strict_allowed(schema: dict[str, Any]) -> bool:
    """Whether the SDK's strict form of ``schema`` is ``schema`` itself (strict changes nothing)."""
    try:
        return ensure_strict_json_schema(plain_schema(schema)) == schema
    except (UserError, TypeError, ValueError):
        return False


def run_session(ctx: ToolContext[Any]) -> str:
    """The budget session of a call: the run context's ``session_id``, else the run's ``group_id``."""
    named = session_from(getattr(ctx, "context", None), "session_id")
    if named is not None:
        return "session:" + named
    group = getattr(getattr(ctx, "run_config", None), "group_id", None)
    if isinstance(group, str) and group:
        return "group:" + group[:200]
    return "default"


def contract_failure(ctx: Any, error: Exception) -> str:
    """A ``failure_error_function`` for tools nobody wrapped (``@function_tool(failure_error_function=
    contract_failure)``): INTERNAL with a reference, as JSON, instead of the SDK's "Please try again"
    (which invites retries no budget bounds); the traceback goes to the log under the reference."""
    name = getattr(ctx, "tool_name", None) or "tool"
    raw = getattr(ctx, "tool_arguments", None)
    try:
        arguments = json.loads(raw) if isinstance(raw, str) else None
    except (ValueError, RecursionError):
        arguments = None
    return envelope_text(tool_failure(name, None, arguments, error))
