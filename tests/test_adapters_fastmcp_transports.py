"""FastMCP adapter on FastMCP's own defaults: the failure budget reaches stop_and_tell_user with a
stock client and no ``_meta`` over stateless HTTP (authenticated, or naming its session in a header)
and over stdio; an unauthenticated stateless request that names nothing is warned about once; the
caller reaches the spans; ``server.call_tool`` outside a request answers an envelope; progress
reaches a real client; versions are served side by side and a pin is never answered by another."""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import sys
from typing import Any

import anyio
import pytest
from adapter_support import ServedOverHttp, Traced, assert_down_scenario, next_arguments, rates_tool
from conftest import ROOT
from fastmcp import Client, FastMCP
from fastmcp.client.transports import PythonStdioTransport, StreamableHttpTransport
from fastmcp.server.auth.providers.jwt import StaticTokenVerifier
from mcp.types import Implementation

from contractgen.adapters.fastmcp import HEADER_SESSION, add_guarded_tools
from contractgen.runtime import guard
from contractgen.runtime.progress import report_progress
from generated import book_meeting_v1, book_meeting_v2, get_exchange_rate_v1

TOKENS = {"tok-alice": {"client_id": "alice", "scopes": []}, "tok-bob": {"client_id": "bob", "scopes": []}}


async def down_loop(client: Client) -> list[dict[str, Any]]:
    """A host feeding the scripted model what the client returns, until the model stops."""
    received: list[dict[str, Any]] = []
    while (arguments := next_arguments("down", received)) is not None:
        result = await client.call_tool_mcp("get_exchange_rate", arguments)  # no _meta
        received.append(json.loads(result.content[0].text))
    return received


def failures(received: list[dict[str, Any]]) -> list[int]:
    return [e["error"]["budget"]["consecutive_failures"] for e in received]


def test_stateless_http_with_auth_keeps_the_budget_per_authenticated_client() -> None:
    traced = Traced("down")
    server = FastMCP("fx", auth=StaticTokenVerifier(tokens=TOKENS))
    add_guarded_tools(server, traced.tool)

    async def main(url: str) -> tuple[Any, Any]:
        host = Implementation(name="fx-host", version="1.0")  # what the host calls itself (clientInfo)
        async with Client(url, auth="tok-alice", client_info=host) as alice, \
                Client(url, auth="tok-bob", client_info=host) as bob:
            return await down_loop(alice), await down_loop(bob)

    with ServedOverHttp(server) as served:
        by_alice, by_bob = anyio.run(main, served.url)
    assert_down_scenario(by_alice, calls_made=len(by_alice))
    assert_down_scenario(by_bob, calls_made=len(by_bob))  # bob's budget is his own
    assert traced.attribute("contractgen.caller") == (["user=alice agent=fx-host"] * 2
                                                      + ["user=bob agent=fx-host"] * 2)


def test_under_auth_a_named_session_belongs_to_its_user() -> None:
    server = FastMCP("fx", auth=StaticTokenVerifier(tokens=TOKENS))
    add_guarded_tools(server, rates_tool("down"))

    async def main(url: str) -> list[int]:
        counts = []
        for token in ("tok-alice", "tok-bob", "tok-alice"):  # both name the same conversation id
            async with Client(StreamableHttpTransport(url, headers={HEADER_SESSION: "conv-1"}), auth=token) as client:
                result = await client.call_tool_mcp("get_exchange_rate", {"base": "EUR", "quote": "USD"})
                counts += failures([json.loads(result.content[0].text)])
        return counts

    with ServedOverHttp(server) as served:
        assert anyio.run(main, served.url) == [1, 1, 2]  # bob's calls neither spend nor reset alice's


def test_stateless_http_without_auth_a_header_names_the_session() -> None:
    server = FastMCP("fx")
    add_guarded_tools(server, rates_tool("down"))

    async def main(url: str) -> list[dict[str, Any]]:
        async with Client(StreamableHttpTransport(url, headers={HEADER_SESSION: "conv-1"})) as client:
            return await down_loop(client)

    with ServedOverHttp(server) as served:
        received = anyio.run(main, served.url)
    assert_down_scenario(received, calls_made=len(received))


def adapter_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "contractgen.adapters"]


def test_stateless_http_naming_nothing_is_warned_about_once_at_start_up(caplog: pytest.LogCaptureFixture) -> None:
    server = FastMCP("fx")
    add_guarded_tools(server, rates_tool("down"))

    async def main(url: str) -> list[int]:
        async with Client(url) as client:
            received = []
            for _ in range(3):
                result = await client.call_tool_mcp("get_exchange_rate", {"base": "EUR", "quote": "USD"})
                received.append(json.loads(result.content[0].text))
            return failures(received)

    with caplog.at_level(logging.WARNING, logger="contractgen.adapters"), ServedOverHttp(server) as served:
        at_start_up = adapter_warnings(caplog)  # FastMCP's default HTTP app is up; no request yet
        counts = anyio.run(main, served.url)
    assert counts == [1, 1, 1]  # nothing identifies the client from one request to the next
    assert len(at_start_up) == 1 and "failure budget that lasts one request" in at_start_up[0]
    assert HEADER_SESSION in at_start_up[0] and "auth=" in at_start_up[0] and "'fx'" in at_start_up[0]
    assert adapter_warnings(caplog) == at_start_up  # the calls add none


def test_server_run_over_http_warns_before_serving(caplog: pytest.LogCaptureFixture) -> None:
    """``server.run(transport="http")`` (``run_http_async``, what ``fastmcp run`` calls) builds its
    app with ``http_app`` too: the warning is there once the port answers."""
    import socket

    server = FastMCP("fx")
    add_guarded_tools(server, rates_tool("down"))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]

    async def main() -> list[str]:
        async with anyio.create_task_group() as group:
            group.start_soon(lambda: server.run_http_async(show_banner=False, host="127.0.0.1", port=port,
                                                           log_level="critical"))
            with anyio.fail_after(30):
                while True:
                    try:
                        await (await anyio.connect_tcp("127.0.0.1", port)).aclose()
                        break
                    except OSError:
                        await anyio.sleep(0.02)
            warned = adapter_warnings(caplog)
            group.cancel_scope.cancel()
        return warned

    with caplog.at_level(logging.WARNING, logger="contractgen.adapters"):
        warned = anyio.run(main)
    assert len(warned) == 1 and "'fx' is served over HTTP without authentication" in warned[0]


def test_no_start_up_warning_where_the_budget_is_kept(caplog: pytest.LogCaptureFixture) -> None:
    """With auth the budget follows the client; in memory (and on stdio) it follows the process;
    over SSE (a legacy transport) it follows the MCP session."""
    authenticated, in_memory, sse = FastMCP("a", auth=StaticTokenVerifier(tokens=TOKENS)), FastMCP("m"), FastMCP("s")
    for server in (authenticated, in_memory, sse):
        add_guarded_tools(server, rates_tool("down"))

    async def main() -> list[int]:
        async with Client(in_memory) as client:
            results = [await client.call_tool_mcp("get_exchange_rate", {"base": "EUR", "quote": "USD"})
                       for _ in range(2)]
        return failures([json.loads(r.content[0].text) for r in results])

    with caplog.at_level(logging.WARNING, logger="contractgen.adapters"):
        with ServedOverHttp(authenticated):
            pass
        sse.http_app(transport="sse")
        assert anyio.run(main) == [1, 2]
    assert adapter_warnings(caplog) == []


STDIO_SERVER = """
from fastmcp import FastMCP
from adapter_support import rates_tool
from contractgen.adapters.fastmcp import add_guarded_tools
server = FastMCP("fx")
add_guarded_tools(server, rates_tool("down"))
server.run(show_banner=False)
"""


def test_stdio_with_a_stock_client_keeps_the_budget(tmp_path: Any) -> None:
    script = tmp_path / "serve.py"
    script.write_text(STDIO_SERVER, "utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests")])}
    transport = PythonStdioTransport(script, python_cmd=sys.executable, env=env, cwd=str(ROOT))

    async def main() -> list[dict[str, Any]]:
        async with Client(transport) as client:
            return await down_loop(client)

    received = anyio.run(main)
    assert_down_scenario(received, calls_made=len(received))


def test_in_memory_with_the_default_client_keeps_the_budget() -> None:
    server = FastMCP("fx")
    add_guarded_tools(server, rates_tool("down"))

    async def main() -> list[dict[str, Any]]:
        async with Client(server) as client:  # FastMCP's default protocol: stateless
            return await down_loop(client)

    received = anyio.run(main)
    assert_down_scenario(received, calls_made=len(received))


def test_server_call_tool_outside_a_request_answers_an_envelope() -> None:
    server = FastMCP("fx")
    add_guarded_tools(server, [rates_tool("down"), book_meeting_v2.book_meeting.implement(lambda args: 1 / 0)])

    async def main() -> tuple[Any, Any]:
        down = await server.call_tool("get_exchange_rate", {"base": "EUR", "quote": "USD"})
        broken = await server.call_tool("book_meeting", {"title": "x", "start_date": "2026-12-01T15:00:00",
                                                         "time_zone": "Europe/Paris", "duration_minutes": 30})
        return down, broken

    down, broken = anyio.run(main)
    error = down.structured_content["error"]
    assert (error["code"], error["action"], error["budget"]["consecutive_failures"]) == (
        "UNAVAILABLE", "retry_later", 1)
    assert broken.structured_content["error"]["code"] == "INTERNAL"
    assert "ZeroDivision" not in json.dumps(broken.structured_content)


def test_progress_reaches_a_real_client() -> None:
    async def lookup(args: get_exchange_rate_v1.GetExchangeRateV1Input) -> dict[str, Any]:
        for done in (1, 2, 2, 3):  # the repeated 2 is dropped: MCP progress must increase
            report_progress(done, 3, f"step {done}")
        return {"base": "EUR", "quote": "USD", "rate": 1.08, "date": "2026-11-27"}

    server = FastMCP("fx")
    add_guarded_tools(server, get_exchange_rate_v1.get_exchange_rate.implement(lookup))
    heard: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        heard.append((progress, total, message))

    async def main() -> Any:
        async with Client(server) as client:
            return await client.call_tool("get_exchange_rate", {"base": "EUR", "quote": "USD"},
                                          progress_handler=on_progress)

    result = anyio.run(main)
    assert result.structured_content["rate"] == 1.08
    assert heard == [(1.0, 3.0, "step 1"), (2.0, 3.0, "step 2"), (3.0, 3.0, "step 3")]


def book(version: str) -> Any:
    module = book_meeting_v1 if version.startswith("1.") else book_meeting_v2

    def implementation(args: Any) -> dict[str, Any]:
        if version.startswith("1."):
            return {"meeting_id": "v" + version, "starts_at": args.date.isoformat()}
        return {"meeting_id": "v" + version, "starts_at": args.start_date + "+01:00", "status": "confirmed"}

    return module.book_meeting.implement(implementation)


V1_CALL = {"title": "Review", "date": "2026-12-01T15:00:00+01:00", "duration_minutes": 30}
V2_CALL = {"title": "Review", "start_date": "2026-12-01T15:00:00", "time_zone": "Europe/Paris",
           "duration_minutes": 30}


def test_versions_side_by_side_a_pin_is_routed_to_its_version() -> None:
    server = FastMCP("fx")
    add_guarded_tools(server, [book("1.2.0"), book("2.0.0")])

    async def pinned(client: Client, call: dict[str, Any], version: str | None) -> Any:
        meta = None if version is None else {"fastmcp": {"version": version}}
        return await client.call_tool_mcp("book_meeting", call, meta=meta)

    async def main() -> dict[str, Any]:
        async with Client(server) as client:
            listed = [t for t in await client.list_tools() if t.name == "book_meeting"]
            answers = {version: await pinned(client, call, version) for version, call in (
                ("2.0.0", V2_CALL), (None, V2_CALL), ("1.0.0", V1_CALL), ("2.0.1", V2_CALL), ("3.0.0", V2_CALL))}
        # FastMCP's own pin, in process (it ran 2.0.0 for a 1.2.0 pin before tools carried versions)
        answers["direct 1.2.0"] = await server.call_tool("book_meeting", V1_CALL, version=_spec("1.2.0"))
        answers["direct 2.0.0"] = await server.call_tool("book_meeting", V2_CALL, version=_spec("2.0.0"))
        answers["listed"] = listed
        return answers

    answers = anyio.run(main)
    assert len(answers["listed"]) == 1 and answers["listed"][0].meta["fastmcp"]["versions"] == ["2.0.0", "1.2.0"]
    assert answers["2.0.0"].structured_content["meeting_id"] == "v2.0.0"
    assert answers[None].structured_content["meeting_id"] == "v2.0.0"  # the newest, as FastMCP decides
    assert answers["direct 1.2.0"].structured_content == {"meeting_id": "v1.2.0", "starts_at": "2026-12-01T15:00:00+01:00"}
    assert answers["direct 2.0.0"].structured_content["meeting_id"] == "v2.0.0"
    # a pin no served version is: never another version's result
    old = answers["1.0.0"].structured_content["error"]
    assert answers["1.0.0"].is_error and old["code"] == "VERSION_MISMATCH" and old["received_version"] == "1.0.0"
    assert old["expected_version"] == "1.2.0" and "1.2.0, 2.0.0" in old["message"]
    near = answers["2.0.1"].structured_content["error"]
    assert near["code"] == "VERSION_MISMATCH" and "not served" in near["message"]
    newer = answers["3.0.0"].structured_content["error"]
    assert newer["code"] == "VERSION_MISMATCH" and newer["expected_version"] == "2.0.0"


@pytest.mark.parametrize("structured", ["output", "envelope"])
@pytest.mark.parametrize("order", ["old first", "new first"])
def test_a_pin_to_each_version_over_the_wire_passes_the_stock_clients_output_check(
        structured: Any, order: str) -> None:
    """MCP clients check every successful result against the output schema listed under the tool's
    name, and FastMCP lists the newest version: the newest declares every served version's output
    (anyOf), so a pinned call to an older version is not refused by the client. Both stock clients
    (FastMCP's, the MCP SDK's over HTTP), whichever version was registered first."""
    from mcp import Client as SdkClient

    server = FastMCP("fx")
    for version in (["1.2.0", "2.0.0"] if order == "old first" else ["2.0.0", "1.2.0"]):
        add_guarded_tools(server, book(version), structured=structured)

    async def calls(client: Any, call: Any) -> list[Any]:
        async with client:
            listed = [t for t in (await client.list_tools() if isinstance(client, Client)
                                  else (await client.list_tools()).tools) if t.name == "book_meeting"]
            pins = [(V1_CALL, {"fastmcp": {"version": "1.2.0"}}), (V2_CALL, {"fastmcp": {"version": "2.0.0"}}),
                    (V2_CALL, None)]
            return [listed, *[await call(client, arguments, meta) for arguments, meta in pins]]

    def sdk_call(client: Any, arguments: Any, meta: Any) -> Any:
        return client.call_tool("book_meeting", arguments, meta=meta)

    def fastmcp_call(client: Any, arguments: Any, meta: Any) -> Any:
        return client.call_tool_mcp("book_meeting", arguments, meta=meta)

    with ServedOverHttp(server) as served:
        over_http = anyio.run(calls, SdkClient(served.url), sdk_call)
    in_memory = anyio.run(calls, Client(server), fastmcp_call)
    for listed, v1, v2, unpinned in (over_http, in_memory):
        outputs = [r.structured_content if structured == "output" else r.structured_content["output"]
                   for r in (v1, v2, unpinned)]
        assert [r.is_error for r in (v1, v2, unpinned)] == [False, False, False]
        assert [o["meeting_id"] for o in outputs] == ["v1.2.0", "v2.0.0", "v2.0.0"]
        assert "status" not in outputs[0] and outputs[1]["status"] == "confirmed"
        members = listed[0].output_schema["anyOf"]  # 2.0.0's output, then 1.2.0's
        if structured == "envelope":
            members = [member["properties"]["output"] for member in members]
        assert [member["required"] for member in members] == [
            ["meeting_id", "starts_at", "status"], ["meeting_id", "starts_at"]]


def test_one_version_or_one_output_keeps_the_contracts_output_schema() -> None:
    lone, same = FastMCP("lone"), FastMCP("same")
    add_guarded_tools(lone, book("2.0.0"))
    minor = guard(dataclasses.replace(book_meeting_v2.CONTRACT, version="2.1.0"), book("2.0.0").implementation)
    add_guarded_tools(same, [book("2.0.0"), minor])  # a minor release: the same output schema

    async def listed(server: FastMCP) -> Any:
        async with Client(server) as client:
            return next(t for t in await client.list_tools() if t.name == "book_meeting").output_schema

    assert anyio.run(listed, lone) == anyio.run(listed, same) == dict(book_meeting_v2.MCP_TOOL["outputSchema"])


def test_an_old_major_pin_gets_the_migration_steps() -> None:
    server = FastMCP("fx")
    add_guarded_tools(server, book("2.0.0"))

    async def main() -> Any:
        async with Client(server) as client:
            return await client.call_tool_mcp("book_meeting", V1_CALL, meta={"fastmcp": {"version": "1.2.0"}})

    error = anyio.run(main).structured_content["error"]
    assert error["code"] == "VERSION_MISMATCH" and error["action"] == "fix_arguments"
    from contractgen.runtime.versions import migration_steps

    assert error["migration"] == migration_steps(book_meeting_v2.CONTRACT.migrations[0])
    assert error["migration"][0] == "rename 'date' to 'start_date'"
    assert (error["received_version"], error["expected_version"]) == ("1.2.0", "2.0.0")


def test_one_version_registered_twice_is_refused() -> None:
    server = FastMCP("fx")
    add_guarded_tools(server, book("2.0.0"))
    with pytest.raises(ValueError, match="book_meeting 2.0.0 is registered twice"):
        add_guarded_tools(server, book("2.0.0"))


def _spec(version: str) -> Any:
    from fastmcp.utilities.versions import VersionSpec

    return VersionSpec(eq=version)
