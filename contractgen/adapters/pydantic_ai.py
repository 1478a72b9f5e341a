"""pydantic-ai 2.x: a ``Tool`` whose JSON schema is the contract's and whose calls go through the guard.

``Tool.from_schema`` skips pydantic-ai's own argument validation, so the guard is the only gate and
its envelope (``fix_arguments`` with the field) is the tool's return value: the model reads it as a
normal tool return and pydantic-ai's retry counter is not spent on it. pydantic-ai still answers
arguments that are not valid JSON itself, with a retry prompt that does spend that counter
(``max_retries``, 2 here). The budget session is the run's ``conversation_id`` (given to
``agent.run``, recovered from the message history, else a new one per run).
"""

from __future__ import annotations

from typing import Any

try:
    from pydantic_ai import RunContext, Tool
except ImportError as exc:  # pragma: no cover - exercised only without the extra installed
    raise ImportError("contractgen.adapters.pydantic_ai needs pydantic-ai: "
                      "pip install 'contractgen[pydantic-ai]'") from exc

from contractgen.runtime import GuardedTool

from ._guarded import call_guarded, plain_schema

__all__ = ["pydantic_ai_tool"]


def pydantic_ai_tool(tool: GuardedTool[Any, Any], *, max_retries: int = 2) -> Tool[Any]:
    """The pydantic-ai ``Tool`` for a guarded tool."""

    async def call(ctx: RunContext[Any], /, **arguments: Any) -> dict[str, Any]:
        session = ctx.conversation_id or "default"
        envelope = await call_guarded(tool, arguments, session="conversation:" + str(session)[:200],
                                      call_id=ctx.tool_call_id)
        return dict(envelope)

    made: Tool[Any] = Tool.from_schema(call, name=tool.name, description=tool.description,
                                       json_schema=plain_schema(tool.input_schema), takes_ctx=True)
    made.max_retries = max_retries
    return made
