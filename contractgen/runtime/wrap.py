"""Guarding tools you do not own: an existing function, an HTTP client call, another MCP server's tool.

``wrap_tool`` puts a foreign callable behind the same guard, with an exception mapper (by default
the transport mapper) that turns library exceptions into typed errors. ``contract_from_definition``
builds a contract from a tool definition you already have (MCP, OpenAI or Anthropic shape), so the
wrapped tool keeps its name, description and schema.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, MutableMapping, Sequence
from typing import Any

from .budget import BudgetStore
from .contract import Annotations, Contract, RetryPolicy, Timeout
from .errors import ToolError
from .guard import GuardedTool
from .observe import CallRecord
from .stage_failures import Mapper
from .transport import map_transport_error
from .visible import visible_schema


def _plain(definition: Any) -> dict[str, Any]:
    if hasattr(definition, "model_dump"):  # mcp.types.Tool and other pydantic models
        return dict(definition.model_dump(by_alias=True, exclude_none=True))
    return dict(definition)


def contract_from_definition(definition: Any, *, version: str = "0.0.0",
                             timeout: float | None = 30.0, failure_budget: int | None = 2,
                             **fields: Any) -> Contract:
    """A Contract from an MCP tool (``inputSchema``), an OpenAI function (``parameters``, optionally
    under ``function``) or an Anthropic tool (``input_schema``). A missing output schema accepts
    any JSON result."""
    data = _plain(definition)
    if isinstance(data.get("function"), Mapping):
        data = dict(data["function"])
    # the definition's prose reaches the model as a reader sees it (``visible``): another server's
    # description may spell instructions in characters no reviewer sees
    data = visible_schema(data)
    schema = data.get("inputSchema") or data.get("input_schema") or data.get("parameters") or {
        "type": "object"}
    output = data.get("outputSchema") or data.get("output_schema") or {}
    description = str(data.get("description") or "")
    hints = data.get("annotations") or {}
    annotations = Annotations(read_only=hints.get("readOnlyHint"), destructive=hints.get("destructiveHint"),
                              idempotent=hints.get("idempotentHint"), open_world=hints.get("openWorldHint"))
    values: dict[str, Any] = {
        "name": str(data["name"]), "version": version, "title": data.get("title"),
        "summary": description.split(". ")[0][:200], "description": description,
        "input_schema": schema, "output_schema": output, "annotations": annotations,
        "timeout": Timeout(seconds=timeout), "retry": RetryPolicy(failure_budget=failure_budget)}
    values.update(fields)
    return Contract(**values)


def wrap_tool(contract: Contract, fn: Callable[..., Any], *, mapper: Mapper | None = map_transport_error,
              input_model: type | None = None, output_model: type | None = None,
              errors: Sequence[type[ToolError]] = (),
              state: BudgetStore | MutableMapping[str, Any] | None = None,
              on_call: Callable[[CallRecord], None] | None = None, description: str = "",
              invalid_output_code: str = "UNAVAILABLE", **options: Any) -> GuardedTool[Any, Any]:
    """Guard a tool you do not own. Exceptions are mapped by ``mapper`` (walking the cause chain);
    a result that breaks the output schema is UNAVAILABLE by default (the fault is upstream and
    often passing; the failure budget bounds the retries)."""
    return GuardedTool(contract, fn, input_model=input_model, output_model=output_model,
                       errors=errors, state=state, on_call=on_call,
                       description=description or contract.description or (fn.__doc__ or ""),
                       mapper=mapper, invalid_output_code=invalid_output_code, **options)
