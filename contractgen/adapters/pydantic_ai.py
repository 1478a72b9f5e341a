"""pydantic-ai 2.x: a ``Tool`` whose JSON schema is the contract's and whose calls go through the guard.

``Tool.from_schema`` skips pydantic-ai's own argument validation, so the guard is the only gate and
its envelope (``fix_arguments`` with the field) is the tool's return value: the model reads it as a
normal tool return and pydantic-ai's retry counter is not spent on it. Arguments that are not valid
JSON pydantic-ai would answer itself, with a retry prompt quoting the raw text (a password sent in a
truncated call went back to the model and into the message history): the tool's argument validator
here only parses, and anything that is not one JSON object gets INVALID_ARGUMENT without the text.
The budget session is the run's ``conversation_id`` (given to ``agent.run``, recovered from the message
history, else a new one per run); the caller the spans record is the deps' ``user_id`` (attribute or
key), the agent's ``name`` and that conversation.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..runtime.install_hint import install_hint

try:
    from pydantic_ai import RunContext, Tool, ToolDenied
    from pydantic_ai.exceptions import (
        ApprovalRequired,
        CallDeferred,
        ModelRetry,
        SkipToolExecution,
        SkipToolValidation,
        ToolFailed,
    )
    from pydantic_ai.messages import ToolCallPart
    from pydantic_ai.toolsets import WrapperToolset
except ImportError as exc:  # pragma: no cover - exercised only without the extra installed
    raise ImportError("contractgen.adapters.pydantic_ai needs pydantic-ai: "
                      f"{install_hint('pydantic-ai')}") from exc

from contractgen.runtime import GuardedTool
from contractgen.runtime.confirmation import confirmed

from ._confirm import asks, call_answered, gate_of
from ._escalation import Escalated, Escalation, escalated, escalation_of
from ._guarded import (
    call_guarded,
    call_guarded_sync,
    caller_label,
    envelope_text,
    invalid_json_arguments,
    plain_schema,
    session_from,
    tool_failure,
)

__all__ = ["ContractBackstop", "Escalated", "Escalation", "confirmation_denied", "pydantic_ai_tool"]


def pydantic_ai_tool(tool: GuardedTool[Any, Any], *, max_retries: int = 2,
                     escalate: bool | Iterable[str] | Escalation | None = None,
                     on_escalate: Callable[[Escalated], Any] | None = None) -> Tool[Any]:
    """The pydantic-ai ``Tool`` for a guarded tool. A call the contract holds for a human's
    confirmation is deferred (``ApprovalRequired``: the run ends with ``DeferredToolRequests``, the
    agent needs ``output_type=[..., DeferredToolRequests]``) until the host approves it.
    ``escalate`` (True, or the codes) with ``on_escalate``: an error whose action is escalate tells a
    human and defers the call (``CallDeferred``): the run ends with ``DeferredToolRequests`` (the
    agent's ``output_type`` must allow it), whose ``metadata[call_id]["envelope"]`` is the envelope,
    for the person to resolve."""
    escalation = escalation_of(escalate, on_escalate)
    gate = gate_of(tool)

    async def call(ctx: RunContext[Any], /, **arguments: Any) -> dict[str, Any]:
        if arguments.get(_NOT_AN_OBJECT) is _NOT_AN_OBJECT:
            return dict(invalid_json_arguments(tool))
        conversation = str(ctx.conversation_id or "default")[:200]
        session = "conversation:" + conversation
        agent = getattr(getattr(ctx, "agent", None), "name", None)
        caller = caller_label(user=session_from(ctx.deps, "user_id"), agent=agent, session=conversation)
        if not asks(gate, arguments):
            envelope = await call_guarded(tool, arguments, session=session, call_id=ctx.tool_call_id,
                                          caller=caller)
        elif ctx.tool_call_approved:  # pydantic-ai's deferred approval: the host said yes
            envelope = await call_answered(tool, arguments, True, session=session, call_id=ctx.tool_call_id,
                                           caller=caller)
        else:
            raise ApprovalRequired(metadata={"summary": gate.summary(arguments) if gate else ""})
        raised = None if escalation is None else escalated(escalation, tool, envelope, session)
        if raised is not None:
            raise CallDeferred(metadata={"envelope": raised})
        return dict(envelope)

    made: Tool[Any] = Tool.from_schema(call, name=tool.name, description=tool.description,
                                       json_schema=plain_schema(tool.input_schema), takes_ctx=True)
    made.max_retries = max_retries
    made.function_schema.validator = _ParsedOnly()  # type: ignore[assignment]
    return made


def confirmation_denied(tool: GuardedTool[Any, Any], call: ToolCallPart) -> ToolDenied:
    """The host's "no" for a deferred call, as the model reads it: the guard's CONFIRMATION_DENIED
    envelope (``DeferredToolResults(approvals={call.tool_call_id: confirmation_denied(tool, call)})``)."""
    arguments = call.args_as_dict()
    with confirmed(tool, arguments, approved=False):
        envelope = call_guarded_sync(tool, arguments, session="default", call_id=call.tool_call_id)
    return ToolDenied(envelope_text(envelope))


#: the key and value standing for arguments that are not one JSON object (no model can send the value)
_NOT_AN_OBJECT: Any = type("NotAnObject", (str,), {})("contractgen: not a JSON object")


class _ParsedOnly:
    """The tool's argument validator: parses, never refuses. pydantic-ai turns a refusal into a retry
    prompt quoting what the model sent; the guard is the only gate, and it never echoes a secret."""

    def validate_json(self, data: str | bytes | bytearray, **_: Any) -> Any:
        try:
            value = json.loads(data or "{}")
        except (ValueError, RecursionError):  # RecursionError: nesting deeper than the parser's stack
            return {_NOT_AN_OBJECT: _NOT_AN_OBJECT}
        return self.validate_python(value)

    def validate_python(self, value: Any, **_: Any) -> Any:
        return dict(value) if isinstance(value, Mapping) else {_NOT_AN_OBJECT: _NOT_AN_OBJECT}


#: what tools raise to steer pydantic-ai itself (retry, defer, ask approval, fail on purpose)
_STEERING = (ModelRetry, ToolFailed, CallDeferred, ApprovalRequired, SkipToolValidation, SkipToolExecution)


@dataclass
class ContractBackstop(WrapperToolset[Any]):
    """``Agent(model, toolsets=[ContractBackstop(toolset)])``: an exception from any tool of
    ``toolset`` (tools nobody wrapped) becomes INTERNAL with a reference, returned to the model as
    the tool's result, instead of ending the run; pydantic-ai's own steering exceptions pass."""

    async def call_tool(self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: Any) -> Any:
        try:
            return await super().call_tool(name, tool_args, ctx, tool)
        except _STEERING:
            raise
        except Exception as exc:  # noqa: BLE001 - the backstop's whole purpose
            return tool_failure(name, getattr(tool.tool_def, "parameters_json_schema", None), tool_args, exc)
