"""Every raw request to the stdio MCP server gets an answer: a JSON-RPC error or an envelope,
whatever its shape (arguments nested 1,000 or 100,000 levels deep, ``params`` as a list, a string
or a number, invalid JSON). A client that got no reply waited forever, while the server still
answered ``tools/list``."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

SERVER = """
from contractgen.runtime import Contract, RetryPolicy, guard
from contractgen.runtime.mcp_server import serve_stdio

serve_stdio([guard(Contract(name="echo", version="1.0.0", summary="s", description="d",
                            input_schema={"type": "object"}, output_schema={"type": "object"},
                            retry=RetryPolicy(failure_budget=None)), lambda arguments: {"n": len(arguments)})])
"""
#: seconds a reply may take (a healthy answer takes milliseconds; a missing one never comes)
WAIT = 10


def nested(depth: int) -> str:
    return '{"a":' * depth + "{}" + "}" * depth


RAW = {
    "deep-1000": '{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"echo","arguments":'
    + nested(1000)
    + "}}",
    "deep-100000": '{"jsonrpc":"2.0","id":"x-12","method":"tools/call","params":{"name":"echo","arguments":'
    + nested(100_000)
    + "}}",
    "deep-150": '{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"echo","arguments":'
    + nested(150)
    + "}}",
    "params-list": '{"jsonrpc":"2.0","id":14,"method":"tools/call","params":["echo",{}]}',
    "params-string": '{"jsonrpc":"2.0","id":15,"method":"tools/call","params":"echo"}',
    "arguments-list": '{"jsonrpc":"2.0","id":16,"method":"tools/call","params":{"name":"echo","arguments":[1]}}',
    "name-number": '{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":5,"arguments":{}}}',
    "id-after-deep-params": '{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":'
    + nested(1000)
    + '},"id":18}',
    "not-json": '{"jsonrpc":"2.0","id":19,"method":"tools/call","params":{"name":"echo",',
}


class Server:
    """The real stdio server in a subprocess, spoken to in raw JSON lines."""

    def __init__(self, tmp_path: Path) -> None:
        script = tmp_path / "server.py"
        script.write_text(SERVER, "utf-8")
        self.process = subprocess.Popen(
            [sys.executable, str(script)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.send(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"},
                },
            }
        )
        assert self.answer()["id"] == 0
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)

    def send(self, message: Any) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(
            (message if isinstance(message, str) else json.dumps(message)) + "\n"
        )
        self.process.stdin.flush()

    def answer(self) -> dict[str, Any]:
        try:
            return json.loads(self.lines.get(timeout=WAIT))  # type: ignore[no-any-return]
        except queue.Empty:
            raise AssertionError(f"no answer within {WAIT}s") from None

    def close(self) -> None:
        self.process.kill()
        self.process.wait()


@pytest.fixture
def server(tmp_path: Path) -> Any:
    running = Server(tmp_path)
    yield running
    running.close()


@pytest.mark.parametrize("name", list(RAW))
def test_every_raw_request_is_answered(server: Server, name: str) -> None:
    line = RAW[name]
    sent_id = json.loads(
        line.split('"id":', 1)[1].split(",")[0].rstrip("}")
    )  # (found in broken JSON too)
    server.send(line)
    answer = server.answer()
    assert answer.get("id") == sent_id, answer
    if "error" in answer:
        error = answer["error"]
        assert isinstance(error["code"], int) and -32768 <= error["code"] <= -32000, error
        assert error["message"] and len(error["message"]) < 1000 and "\n" not in error["message"], (
            error
        )
    else:
        envelope = json.loads(answer["result"]["content"][0]["text"])
        assert envelope["status"] in ("ok", "error"), envelope
    # the connection is still usable: the next request is answered as usual
    server.send(
        {
            "jsonrpc": "2.0",
            "id": 99,
            "method": "tools/call",
            "params": {"name": "echo", "arguments": {"k": 1}},
        }
    )
    after = server.answer()
    assert after["id"] == 99 and after["result"]["structuredContent"] == {"n": 1}, after


def test_the_answers_say_what_was_wrong(server: Server) -> None:
    server.send(RAW["params-list"])
    listed = server.answer()["error"]
    assert (
        listed["code"] == -32602 and "object" in listed["message"] and "list" in listed["message"]
    )
    server.send(RAW["deep-1000"])
    deep = server.answer()["error"]
    assert deep["code"] == -32600 and "nest" in deep["message"]
    server.send(RAW["not-json"])
    assert server.answer()["error"]["code"] == -32700
    server.send("[[[[")  # no id to be found: JSON-RPC's null
    assert server.answer() == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32700, "message": "Parse error: the message is not valid JSON"},
    }


def test_a_malformed_notification_or_response_gets_no_reply(server: Server) -> None:
    """JSON-RPC answers requests only: a notification or a response without a valid shape is dropped,
    and the next request's answer is the next line."""
    server.send('{"jsonrpc":"2.0","method":"notifications/cancelled","params":[1]}')
    server.send('{"jsonrpc":"2.0","id":5,"result":[1], "error": 3}')
    server.send({"jsonrpc": "2.0", "id": 6, "method": "tools/list"})
    assert server.answer()["id"] == 6
