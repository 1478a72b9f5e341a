"""Google ADK 2.x: a ``BaseTool`` whose declaration is the contract's and whose calls go through the guard.

It overrides only ``_get_declaration`` and ``run_async``; ADK's defaults for the other hooks
(``process_llm_request`` advertises the declaration and registers the tool by name,
``check_require_confirmation``) stay in place and delegate to them. The failure budget is counted
in the session state ADK passes to tools (``tool_context.state``), so it is persisted with the
session by the runner's session service (unless the tool was given a store of its own); the count
is updated without awaiting, so ADK's concurrent same-turn calls cannot lose an update. The model
receives the envelope as the function response; the tool never raises into ADK (an exception
there ends the invocation).
"""

from __future__ import annotations

from typing import Any

try:
    from google.adk.tools.base_tool import BaseTool
    from google.adk.tools.tool_context import ToolContext
    from google.genai import types
except ImportError as exc:  # pragma: no cover - exercised only without the extra installed
    raise ImportError("contractgen.adapters.adk needs Google ADK: pip install 'contractgen[adk]'") from exc

from contractgen.runtime import GuardedTool

from ._guarded import call_guarded, caller_label, plain_schema, with_state_budget

__all__ = ["GuardedAdkTool"]


class GuardedAdkTool(BaseTool):
    """An ADK tool for a guarded tool: ``GuardedAdkTool(book_meeting)``."""

    def __init__(self, tool: GuardedTool[Any, Any]) -> None:
        super().__init__(name=tool.name, description=tool.description)
        self.guarded = with_state_budget(tool)

    def __deepcopy__(self, memo: dict[int, Any]) -> GuardedAdkTool:
        # an LlmRequest holds its tools; a deep copy of it (callbacks, test doubles) shares them,
        # as it would a plain function tool, instead of failing on the guard's locks
        return self

    def _get_declaration(self) -> types.FunctionDeclaration:
        return types.FunctionDeclaration(name=self.name, description=self.description,
                                         parameters_json_schema=plain_schema(self.guarded.input_schema))

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        session = tool_context.session.id if tool_context.session is not None else "default"
        caller = caller_label(user=tool_context.user_id, agent=tool_context.agent_name, session=session)
        return await call_guarded(self.guarded, args, session=session, state=tool_context.state,
                                  call_id=tool_context.function_call_id, caller=caller)
