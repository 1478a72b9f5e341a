"""The example tools over streamable HTTP, served by several worker processes that share Redis state.

    redis-server --port 6379 --save '' --appendonly no &
    CONTRACTGEN_REDIS_URL=redis://127.0.0.1:6379/0 \\
        uvicorn --factory examples.mcp_multiworker:create_app --workers 4 --host 127.0.0.1 --port 8000

Each worker builds the same tools as ``examples/mcp_server.py``, with their failure budgets and
circuit breakers in Redis (``share_state``), so a session whose calls land on different workers has
one budget, and get_exchange_rate's ``rates-provider`` breaker opens for everyone at once. The
transport is stateless (any worker can answer any request): a client names its conversation in
``_meta["contractgen/session"]``; without it, each request is its own budget session.
docs/deploy.md explains the choices; ``tests/test_deploy_multiworker.py`` runs this under load.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling example

from mcp_server import TOOLS

from contractgen.runtime.mcp_server import build_server
from contractgen.runtime.stores.redis import RedisState, share_state
from generated import AGENT_INSTRUCTIONS


def create_app() -> Any:
    """The ASGI app one worker serves (uvicorn calls it once per worker process)."""
    url = os.environ.get("CONTRACTGEN_REDIS_URL", "redis://127.0.0.1:6379/0")
    telemetry = None
    if os.environ.get("CONTRACTGEN_OTEL") == "1":  # spans and metrics via the global providers
        from contractgen.runtime.telemetry import Telemetry

        telemetry = Telemetry()
    state = RedisState(url, max_connections=20)
    tools = share_state(TOOLS, state, telemetry=telemetry)
    server = build_server(tools, name="contractgen-example", version="0.1.0",
                          instructions=AGENT_INSTRUCTIONS)
    app = server.streamable_http_app(stateless_http=True)
    serve = app.router.lifespan_context  # the SDK's session manager runs inside it

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[Any]:
        async with serve(app) as served:
            yield served
        await state.aclose()  # this worker's connections, while its event loop still runs
        state.close()

    app.router.lifespan_context = lifespan
    return app
