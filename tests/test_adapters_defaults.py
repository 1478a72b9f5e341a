"""Each framework left to its defaults (the application names no conversation: no pydantic-ai
``conversation_id``, no OpenAI run context, no LangChain ``configurable``; ADK's runner session;
FastMCP's default client and protocol, no ``_meta``): in its own loop with a scripted model, the
failure budget still reaches ``stop_and_tell_user``, and the spans record the caller the framework
knows and the outcome of input and output validation truthfully (failed / passed / not run)."""

from __future__ import annotations

from typing import Any

import pytest
from adapter_loops import FRAMEWORKS
from adapter_support import FIXED_CALL, Traced

BAD_CALL = {"base": "euro", "quote": "USD"}  # /base must be three capital letters

#: the caller each framework knows with nothing configured by the application
CALLERS = {
    "pydantic_ai": "session={conversation}",  # the conversation id pydantic-ai makes for the run
    "openai_agents": "agent=fx",
    "adk": "user=u agent=fx session=conv-1",
    "langchain": None,
    "fastmcp": "agent={client}",  # the host as FastMCP's stock client names itself (clientInfo)
}


def _fastmcp_client_name() -> str:
    """The clientInfo name FastMCP's stock client declares, as a server sees it (FastMCP 4.1 left
    the MCP SDK's "mcp"; 4.2 says "fastmcp")."""
    import anyio
    from fastmcp import Client, FastMCP
    from fastmcp.server.dependencies import get_context

    probe = FastMCP("probe")
    seen: list[str] = []

    @probe.tool
    def who() -> str:
        session = get_context().request_context.session  # type: ignore[union-attr]
        seen.append(session.client_params.client_info.name)  # type: ignore[union-attr]
        return "ok"

    async def main() -> None:
        async with Client(probe) as client:
            await client.call_tool("who", {})

    anyio.run(main)
    return seen[0]


def model(read: list[dict[str, Any]]) -> dict[str, Any] | None:
    """A bad argument first; then the fixed call, again on retry_later; stop on anything else."""
    if not read:
        return dict(BAD_CALL)
    error = read[-1].get("error") or {}
    return dict(FIXED_CALL) if error.get("action") in ("fix_arguments", "retry_later") else None


@pytest.mark.parametrize("framework", sorted(FRAMEWORKS))
def test_the_budget_caller_and_validation_on_the_frameworks_defaults(framework: str) -> None:
    traced = Traced("down")
    read = FRAMEWORKS[framework](traced.tool, model, app_session=False)
    errors = [envelope["error"] for envelope in read]
    assert [(e["code"], e["action"]) for e in errors] == [
        ("INVALID_ARGUMENT", "fix_arguments"),
        ("UNAVAILABLE", "retry_later"),
        ("UNAVAILABLE", "stop_and_tell_user"),
    ]
    assert errors[2]["budget"] == {"consecutive_failures": 2, "limit": 2, "exhausted": True}
    validation = list(
        zip(
            traced.attribute("contractgen.validation.input"),
            traced.attribute("contractgen.validation.output"),
            strict=True,
        )
    )
    assert validation == [("failed", "not_run"), ("passed", "not_run"), ("passed", "not_run")]
    callers = traced.attribute("contractgen.caller")
    expected = CALLERS[framework]
    if expected is not None and "{client}" in expected:
        expected = expected.format(client=_fastmcp_client_name())
    if (
        expected is not None and "{conversation}" in expected
    ):  # a UUID7 made for the run: one for all
        assert callers[0].startswith("session=") and len(callers[0]) == len("session=") + 36
        expected = callers[0]
    assert callers == [expected] * 3
