"""The multi-worker recipe (examples/mcp_multiworker.py) under concurrent clients, on loopback only.

Two uvicorn workers share a real Redis server. 8 clients at once, each reconnecting every few calls
(so connections spread over the workers): 80 failing calls in one conversation count 1..80
exactly across the workers, 40 successful calls in other conversations all answer, and no request
is lost. Bounded: 120 calls, a 60 s cap on everything.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from typing import Any

import anyio
import pytest

pytest.importorskip("redis")
pytest.importorskip("uvicorn")

from conftest import ROOT
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

CLIENTS, FAILING_PER_CLIENT, OK_PER_CLIENT, RECONNECT_EVERY = 8, 10, 5, 5


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _start(port: int, redis_url: str) -> subprocess.Popen[str]:
    env = {**os.environ, "CONTRACTGEN_REDIS_URL": redis_url}
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "--factory", "examples.mcp_multiworker:create_app",
         "--workers", "2", "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while True:  # wait until it listens; not a timing assertion
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return process
        except OSError:
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            assert time.monotonic() < deadline, "the workers did not start"
            time.sleep(0.1)


def test_workers_share_one_budget_under_concurrent_clients(redis_db: str) -> None:
    import redis

    port = _free_port()
    process = _start(port, redis_db)
    url = f"http://127.0.0.1:{port}/mcp"
    results: list[tuple[str, Any]] = []

    async def client(number: int) -> None:
        calls = [("fail", None)] * FAILING_PER_CLIENT + [("ok", None)] * OK_PER_CLIENT
        for start in range(0, len(calls), RECONNECT_EVERY):
            async with streamable_http_client(url) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                for kind, _ in calls[start:start + RECONNECT_EVERY]:
                    if kind == "fail":  # base XXX: the example's provider fails (UNAVAILABLE)
                        result = await session.call_tool(
                            "get_exchange_rate", {"base": "XXX", "quote": "USD"},
                            meta={"contractgen/session": "shared-conversation"})  # type: ignore[typeddict-unknown-key]
                    else:
                        result = await session.call_tool(
                            "search_documents", {"query": "travel policy"},
                            meta={"contractgen/session": f"reader-{number}"})  # type: ignore[typeddict-unknown-key]
                    results.append((kind, result))

    async def main() -> None:
        with anyio.fail_after(60):
            async with anyio.create_task_group() as group:
                for number in range(CLIENTS):
                    group.start_soon(client, number)

    try:
        started = time.perf_counter()
        anyio.run(main)
        print(f"{len(results)} calls from {CLIENTS} clients in {time.perf_counter() - started:.1f} s")
        raw = redis.Redis.from_url(redis_db)
        mine = f"contractgen-{os.getpid()}"  # this test process's own stores, from other tests
        workers = {c["name"] for c in raw.client_list()
                   if str(c.get("name", "")).startswith("contractgen-") and c["name"] != mine}
        budget_keys = [k.decode() for k in raw.keys("cg:contractgen.budget:*")]
        stored = raw.get("cg:contractgen.budget:client:shared-conversation:get_exchange_rate")
        breaker_open = raw.pttl("cg:breaker:{rates-provider}:open")
        raw.close()
    finally:
        process.terminate()
        process.wait(timeout=30)
    assert len(results) == CLIENTS * (FAILING_PER_CLIENT + OK_PER_CLIENT)  # no request lost
    failing = [r.structured_content["error"] for kind, r in results if kind == "fail"]
    assert all(r.is_error for kind, r in results if kind == "fail")
    assert sorted(e["budget"]["consecutive_failures"] for e in failing) == list(range(1, CLIENTS * FAILING_PER_CLIENT + 1))
    assert all(e["code"] == "UNAVAILABLE" for e in failing)
    first = next(e for e in failing if e["budget"]["consecutive_failures"] == 1)
    assert first["action"] == "retry_later"
    assert all(e["action"] == "stop_and_tell_user" for e in failing if e["budget"]["consecutive_failures"] >= 2)
    assert breaker_open > 0  # the rates provider failed for everyone: its breaker is open
    assert int(stored) == CLIENTS * FAILING_PER_CLIENT
    oks = [r for kind, r in results if kind == "ok"]
    assert all(not r.is_error and r.structured_content["results"] for r in oks)
    assert "cg:contractgen.budget:client:shared-conversation:get_exchange_rate" in budget_keys
    assert len(workers) == 2, workers  # both worker processes served calls
