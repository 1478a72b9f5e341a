"""OpenAI Agents SDK (0.24): a ``FunctionTool`` whose schema is the contract's and whose invoke is the guard.

Strict mode rewrites a schema (every property required, ``additionalProperties: false``) and rejects
open maps and root unions, which would change the contract; so it is on only when the SDK's strict
form of the input schema is the schema itself. The SDK does not validate arguments (even invalid
JSON reaches the tool): invalid JSON gets INVALID_ARGUMENT, everything else goes to the guard. The
model reads the envelope as JSON text. The budget session comes from the run context
(``Runner.run(context=...)``): its ``session_id`` (attribute or key), else the run config's
``group_id``; a context that is a mutable mapping also holds the counts itself.
"""

from __future__ import annotations

import json
from collections.abc import Callable, MutableMapping
from typing import Any

try:
    from agents import FunctionTool
    from agents.exceptions import UserError
    from agents.strict_schema import ensure_strict_json_schema
    from agents.tool_context import ToolContext
except ImportError as exc:  # pragma: no cover - exercised only without the extra installed
    raise ImportError("contractgen.adapters.openai_agents needs the OpenAI Agents SDK: "
                      "pip install 'contractgen[openai-agents]'") from exc

from contractgen.runtime import GuardedTool

from ._guarded import (
    call_guarded,
    envelope_text,
    invalid_json_arguments,
    plain_schema,
    session_from,
    with_state_budget,
)

__all__ = ["function_tool", "run_session", "strict_allowed"]

SessionOf = Callable[[ToolContext[Any]], str]


def function_tool(tool: GuardedTool[Any, Any], *, strict: bool | None = None,
                  session: SessionOf | None = None) -> FunctionTool:
    """The ``FunctionTool`` for a guarded tool. ``strict=None`` turns strict mode on only where the
    contract's schema is already in strict form (``strict=True`` on another schema is a ValueError:
    it would change the contract); ``session`` overrides how a call's budget session is found
    (default: ``run_session``)."""
    guarded = with_state_budget(tool)
    schema = plain_schema(guarded.input_schema)
    allowed = strict_allowed(schema)
    if strict and not allowed:
        # strict mode would make optional arguments required or reject open maps: the contract changes
        raise ValueError(f"{guarded.name}: OpenAI strict mode would change this contract's input schema "
                         "(it is not in strict form: every property required, objects closed); "
                         "hint: leave strict=None, which uses strict mode only where it changes nothing")
    use_strict = allowed if strict is None else strict
    session_of = session or run_session

    async def invoke(ctx: ToolContext[Any], raw_arguments: str) -> str:
        try:
            arguments = json.loads(raw_arguments or "{}")
        except (ValueError, RecursionError):  # RecursionError: nesting deeper than the parser's stack
            return envelope_text(invalid_json_arguments(guarded))
        context = getattr(ctx, "context", None)
        state = context if isinstance(context, MutableMapping) else None
        agent = getattr(ctx, "agent", None)
        envelope = await call_guarded(guarded, arguments, session=session_of(ctx), state=state,
                                      call_id=ctx.tool_call_id, caller=getattr(agent, "name", None))
        return envelope_text(envelope)

    return FunctionTool(name=guarded.name, description=guarded.description, params_json_schema=schema,
                        on_invoke_tool=invoke, strict_json_schema=use_strict)


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
