"""Progress for long-running tools: report_progress from sync (worker thread) and async
implementations becomes MCP progress notifications when the client sent a progressToken."""

from __future__ import annotations

import asyncio
from typing import Any

import anyio
import pytest
from mcp_support import connected

from contractgen.runtime import Contract, Timeout, guard
from contractgen.runtime.mcp_server import build_server
from contractgen.runtime.progress import progress_listener, report_progress


def contract(name: str) -> Contract:
    return Contract(name=name, version="1.0.0", summary="s", description="d",
                    input_schema={"type": "object"}, output_schema={"type": "object"},
                    timeout=Timeout(seconds=60, long_running=True))


def sync_job(_: Any) -> dict[str, Any]:
    for step in range(1, 4):
        report_progress(step, 3, f"step {step} of 3")
    report_progress(2, 3, "going backwards is not progress")  # dropped: MCP wants increasing values
    return {"done": True}


async def async_job(_: Any) -> dict[str, Any]:
    for step in range(1, 3):
        await asyncio.sleep(0)
        report_progress(step * 50, 100)
    return {"done": True}


def test_nobody_listening_is_a_cheap_no_op() -> None:
    assert report_progress(1, 2) is False
    seen: list[tuple[float, float | None, str | None]] = []
    with progress_listener(lambda *report: seen.append(report)):
        assert report_progress(1, 2, "a\nb") is True
        assert report_progress(float("nan")) is False
    assert seen == [(1.0, 2.0, "a b")]
    assert report_progress(1, 2) is False


def test_progress_reaches_the_guard_worker_thread() -> None:
    seen: list[Any] = []
    tool = guard(contract("sync_job"), sync_job)  # a deadline: runs on a worker thread
    with progress_listener(lambda *report: seen.append(report)):
        assert tool({})["status"] == "ok"
    assert [r[0] for r in seen] == [1.0, 2.0, 3.0, 2.0]  # the listener sees all; MCP drops the last


def test_mcp_progress_notifications_only_when_asked() -> None:
    server = build_server([guard(contract("sync_job"), sync_job), guard(contract("async_job"), async_job)])
    received: dict[str, list[tuple[float, float | None, str | None]]] = {"sync_job": [], "async_job": []}

    async def main() -> None:
        async with connected(server) as session:
            for name, reports in received.items():
                async def on_progress(progress: float, total: float | None, message: str | None,
                                      reports: list[Any] = reports) -> None:
                    reports.append((progress, total, message))
                result = await session.call_tool(name, {}, progress_callback=on_progress)
                assert result.is_error is False
            plain = await session.call_tool("sync_job", {})  # no progressToken: no notifications
            assert plain.is_error is False

    anyio.run(main)
    assert received["sync_job"] == [(1, 3, "step 1 of 3"), (2, 3, "step 2 of 3"), (3, 3, "step 3 of 3")]
    assert received["async_job"] == [(50, 100, None), (100, 100, None)]


def test_long_running_is_stated_in_the_exports_and_the_served_definition() -> None:
    from mcp import types

    import generated
    from contractgen.runtime.mcp import META_LONG_RUNNING
    from contractgen.runtime.mcp_server import tool_definition

    search = generated.search_documents_v1
    assert search.CONTRACT.timeout.long_running is True
    assert search.MCP_TOOL["_meta"] == {META_LONG_RUNNING: True}
    types.Tool.model_validate(search.MCP_TOOL)  # still a valid MCP Tool
    assert "long-running" in search.DESCRIPTION
    assert "_meta" not in generated.get_exchange_rate_v1.MCP_TOOL  # long_running: false
    served = tool_definition(guard(contract("sync_job"), sync_job))
    assert served.meta is not None and served.meta[META_LONG_RUNNING] is True


def test_a_progress_message_never_carries_a_secret_the_call_sent() -> None:
    """A progress message is the tool's own text, sent to the client as it runs: a secret argument it
    quotes (any case) is taken out, the rest of the message stays."""
    secret = "tok-QZXW-4471-secret"
    login = Contract(name="login", version="1.0.0", summary="s", description="d",
                     input_schema={"type": "object", "properties": {"token": {"$ref": "#key"}},
                                   "$defs": {"k": {"$anchor": "key", "type": "string", "writeOnly": True}}},
                     output_schema={"type": "object"}, timeout=Timeout(seconds=60, long_running=True))

    def job(args: dict[str, Any]) -> dict[str, Any]:
        report_progress(1, 2, f"checking {args['token']} with the bank")
        report_progress(2, 2, f"{args['token'].upper()} accepted")
        return {"done": True}

    server = build_server([guard(login, job)])
    reports: list[Any] = []

    async def main() -> None:
        async with connected(server) as session:
            async def on_progress(progress: float, total: float | None, message: str | None) -> None:
                reports.append(message)
            result = await session.call_tool("login", {"token": secret}, progress_callback=on_progress)
            assert result.is_error is False

    anyio.run(main)
    assert reports == ["checking [redacted] with the bank", "[redacted] accepted"]


def test_a_progress_message_never_carries_a_credential() -> None:
    """A credential the tool quotes of its own (a DSN's password, a key of a known format) is cut
    as in the log; the host stays, so the user still sees what the tool is doing."""
    heard: list[Any] = []

    def job(_: Any) -> dict[str, Any]:
        report_progress(1, 2, "connecting to postgres://ledger:pw-55x@db01/prod")
        report_progress(2, 2, "calling the bank with sk_live_51HxAbCdEfGhIjKlMnOp")
        return {"done": True}

    with progress_listener(lambda done, total, message: heard.append(message)):
        assert guard(contract("connect"), job)({})["status"] == "ok"
    assert heard == ["connecting to postgres://***@db01/prod", "calling the bank with sk_live_***"]


class _StrRaises:
    def __str__(self) -> str:
        raise ValueError("its own __str__ ran")


class _FloatRaises(float):
    def __float__(self) -> float:
        raise ValueError("its own __float__ ran")


@pytest.mark.parametrize("args", [(10 ** 400, None, None), (1, 10 ** 400, None), (1, 2, _StrRaises()),
                                  (_FloatRaises(1.0), None, "half"), (float("nan"), None, None), (True, None, None)],
                         ids=["huge progress", "huge total", "message str raises", "float subclass", "nan", "bool"])
def test_report_progress_never_raises_whatever_it_is_given(args: tuple[Any, ...]) -> None:
    """``report_progress`` promises never to raise (progress is advice): an integer past any float
    (OverflowError) or a message whose __str__ raised went into the tool, whose call then failed
    (INTERNAL); a float subclass's own __float__ ran. Numbers and texts are read through their base
    types now: what is no finite number is not reported, what is no text is no message."""
    heard: list[Any] = []

    def implementation(_: Any) -> Any:
        report_progress(*args)
        return {}
    tool = guard(Contract(name="t", version="1.0.0", summary="s", description="d", input_schema={"type": "object"},
                          output_schema={"type": "object"}, timeout=Timeout(None)), implementation)
    with progress_listener(lambda *heard_now: heard.append(heard_now)):
        envelope = tool({})
    assert envelope["status"] == "ok", envelope
    for progress, total, message in heard:
        assert type(progress) is float and (total is None or type(total) is float)
        assert message is None or type(message) is str
