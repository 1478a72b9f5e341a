"""End to end: an OpenAPI document served by a real local HTTP server is imported, built with
`contractgen build --http`, and its generated httpx implementation is called through the guard
against that server. Runs the real CLI, real generated code, httpx and a loopback socket."""

from __future__ import annotations

import importlib
import json
import re
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import parse_qsl, urlsplit

import pytest
from conftest import ROOT, run_cli

httpx = pytest.importorskip("httpx")

DOCUMENT = ROOT / "tests" / "cases" / "import_openapi" / "spec-examples.yaml"
USERS = {"ada": {"id": 1, "username": "ada", "nickname": None, "age": 36}}


class _Api(BaseHTTPRequestHandler):
    """The API the document describes, under /api, and the document itself at /openapi.yaml."""

    seen: ClassVar[list[dict[str, Any]]] = []

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _reply(self, status: int, body: Any = None, headers: dict[str, str] | None = None) -> None:
        data = b"" if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Type", "application/json" if body is not None else "text/plain")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _record(self) -> dict[str, Any]:
        url = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        entry = {"method": self.command, "path": url.path, "query": parse_qsl(url.query),
                 "headers": {k.lower(): v for k, v in self.headers.items()},
                 "body": json.loads(self.rfile.read(length)) if length else None}
        self.seen.append(entry)
        return entry

    def do_GET(self) -> None:
        if self.path == "/openapi.yaml":
            self._reply(200, DOCUMENT.read_bytes())
            return
        request = self._record()
        name = request["path"].removeprefix("/api/users/")
        if name == "busy":
            self._reply(429, {"message": "slow down"}, {"Retry-After": "7"})
        elif name == "down":
            self._reply(503, {"message": "maintenance"})
        elif name in USERS:
            self._reply(200, USERS[name])
        else:
            self._reply(404, {"message": f"no user {name}"})

    def do_POST(self) -> None:
        request = self._record()
        if request["path"] == "/api/users":
            user = {k: v for k, v in request["body"].items() if k != "password"}
            self._reply(201, {"id": 2, **user})
        else:
            self._reply(201)


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Api)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture(scope="module")
def generated(server: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The served document imported and built with --http into a package of its own."""
    root = tmp_path_factory.mktemp("openapi-http")
    source = root / "openapi.yaml"
    source.write_bytes(httpx.get(f"{server}/openapi.yaml").content)
    imported = run_cli("import", str(source), "--out", str(root / "contracts"), cwd=root)
    assert imported.returncode == 0, imported.stderr
    built = run_cli("build", "--contracts", str(root / "contracts"), "--output", str(root / "petapi"), "--http",
                    "--no-cache", cwd=root)
    assert built.returncode == 0, built.stderr
    assert sorted(p.name for p in (root / "petapi").glob("*_http.py")) == \
        ["addpet_v2_http.py", "createuser_v2_http.py", "getuser_v2_http.py"]
    sys.path.insert(0, str(root))
    try:
        yield "petapi"
    finally:
        sys.path.remove(str(root))
        for name in [m for m in sys.modules if m == "petapi" or m.startswith("petapi.")]:
            del sys.modules[name]


def _tool(generated: str, module: str, server: str, **config: Any) -> Any:
    implement = importlib.import_module(f"{generated}.{module}_http").implement
    headers = {"Authorization": "Bearer from-config", **config.pop("headers", {})}
    return implement(base_url=f"{server}/api", headers=headers, **config)


def test_a_valid_call_reaches_the_api_with_every_parameter_and_succeeds(generated: str, server: str) -> None:
    tool = _tool(generated, "getuser_v2", server)
    before = len(_Api.seen)
    envelope = tool({"username": "ada", "token": [1, 2], "session": "s 1", "coordinates": {"lat": 1.5, "long": 2}})
    assert envelope["status"] == "ok", envelope
    assert envelope["output"] == USERS["ada"]
    [request] = _Api.seen[before:]
    assert request["path"] == "/api/users/ada"
    assert request["headers"]["token"] == "1,2"
    assert request["headers"]["cookie"] == "session=s%201"
    assert request["query"] == [("coordinates", '{"lat":1.5,"long":2}')]
    assert request["headers"]["authorization"] == "Bearer from-config"


def test_configuration_not_the_arguments_decides_host_path_and_credentials(generated: str, server: str) -> None:
    """A path argument is quoted whole (no ../ or ? can reshape the URL), and a configured header wins
    over a header argument of the same name."""
    tool = _tool(generated, "getuser_v2", server, headers={"token": "configured"})
    before = len(_Api.seen)
    envelope = tool({"username": "../../admin?x=1", "token": [9]})
    assert envelope["status"] == "error" and envelope["error"]["code"] == "NOT_FOUND", envelope
    [request] = _Api.seen[before:]
    assert request["path"] == "/api/users/..%2F..%2Fadmin%3Fx%3D1" and request["query"] == []
    assert request["headers"]["token"] == "configured"


@pytest.mark.parametrize("arguments", [
    {"username": "ada"},  # the required header token is missing
    {"username": "ada", "token": ["one"]},  # not an integer
    {"username": "ada", "token": [1], "admin": True},  # not an argument of this operation
    {"username": "ada", "token": [1], "coordinates": {"lat": 1}},  # long is required
])
def test_a_bad_argument_never_reaches_the_api(generated: str, server: str, arguments: dict[str, Any]) -> None:
    tool = _tool(generated, "getuser_v2", server)
    before = len(_Api.seen)
    envelope = tool(arguments)
    assert envelope["status"] == "error" and envelope["error"]["code"] == "INVALID_ARGUMENT", envelope
    assert _Api.seen[before:] == []


def test_429_with_retry_after_is_rate_limited_with_retry_after(generated: str, server: str) -> None:
    envelope = _tool(generated, "getuser_v2", server)({"username": "busy", "token": [1]})
    error = envelope["error"]
    assert (error["code"], error["retry_after"], error["action"]) == ("RATE_LIMITED", 7.0, "retry_later"), error


def test_503_counts_against_the_failure_budget(generated: str, server: str) -> None:
    tool = _tool(generated, "getuser_v2", server)
    assert tool({"username": "ada", "token": [1]})["status"] == "ok"  # the budget starts from nothing
    errors = [tool({"username": "down", "token": [1]})["error"] for _ in range(2)]
    assert {e["budget"]["limit"] for e in errors} == {2}  # RetryPolicy's default failure_budget
    assert [e["code"] for e in errors] == ["UNAVAILABLE"] * 2
    assert [e["budget"]["consecutive_failures"] for e in errors] == [1, 2]
    assert [e["budget"]["exhausted"] for e in errors] == [False, True]
    assert (errors[0]["action"], errors[-1]["action"]) == ("retry_later", "stop_and_tell_user")
    # a success resets it
    assert tool({"username": "ada", "token": [1]})["status"] == "ok"
    assert tool({"username": "down", "token": [1]})["error"]["budget"]["consecutive_failures"] == 1


def test_a_body_is_sent_as_json_without_read_only_properties(generated: str, server: str) -> None:
    tool = _tool(generated, "createuser_v2", server)
    before = len(_Api.seen)
    envelope = tool({"username": "grace", "password": "correct horse", "age": 85})
    assert envelope["status"] == "ok", envelope
    assert envelope["output"] == {"id": 2, "username": "grace", "age": 85}
    [request] = _Api.seen[before:]
    assert (request["method"], request["path"]) == ("POST", "/api/users")
    assert request["body"] == {"username": "grace", "password": "correct horse", "age": 85}
    # id is readOnly: the service sets it, so it is no argument
    refused = tool({"id": 5, "username": "grace", "password": "correct horse"})
    assert refused["error"]["code"] == "INVALID_ARGUMENT" and len(_Api.seen) == before + 1


def test_a_one_of_body_goes_whole_and_an_empty_response_is_an_empty_result(generated: str, server: str) -> None:
    tool = _tool(generated, "addpet_v2", server)
    before = len(_Api.seen)
    envelope = tool({"body": {"petType": "Dog", "bark": "woof"}})
    assert envelope["status"] == "ok" and envelope["output"] == {}, envelope
    assert _Api.seen[before]["body"] == {"petType": "Dog", "bark": "woof"}
    # the discriminator decides: no branch is a snake
    refused = tool({"body": {"petType": "Snake"}})
    assert refused["error"]["code"] == "INVALID_ARGUMENT" and len(_Api.seen) == before + 1


def test_the_generated_modules_type_check(generated: str) -> None:
    import subprocess

    package = Path(importlib.import_module(generated).__file__ or "").parent
    result = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(package)],
                            capture_output=True, text=True, check=False, cwd=package.parent)
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_form_body_and_list_parameters_are_written_as_openapi_styles() -> None:
    """The request for a form-bodied operation (a pure helper: what HttpImplementation sends)."""
    from contractgen.runtime.http import HttpOperation, build_request

    operation = HttpOperation.from_mapping({
        "method": "post", "path": "/pets/{id}/{tags}",
        "parameters": [{"argument": "id", "in": "path", "name": "id"},
                       {"argument": "tags", "in": "path", "name": "tags"},
                       {"argument": "sort", "in": "query", "name": "sort"},
                       {"argument": "trace", "in": "header", "name": "X-Trace"},
                       {"argument": "flag", "in": "query", "name": "flag"}],
        "body": {"properties": ["name", "status"], "media_type": "application/x-www-form-urlencoded"},
    })
    request = build_request(operation, {"id": 7, "tags": ["a b", "c"], "sort": ["name", "age"], "trace": True,
                                        "flag": False, "name": "Rex", "status": "sold"})
    assert (request.method, request.path) == ("POST", "/pets/7/a%20b%2Cc")
    assert request.params == [("sort", "name"), ("sort", "age"), ("flag", "false")]
    assert request.headers == {"X-Trace": "true"}
    assert request.form and request.body == {"name": "Rex", "status": "sold"}


def test_a_hand_edited_x_openapi_that_cannot_be_read_stops_the_build_at_its_line(tmp_path: Path) -> None:
    imported = run_cli("import", str(DOCUMENT), "--out", str(tmp_path / "contracts"), "--operation", "addPet",
                       cwd=tmp_path)
    assert imported.returncode == 0, imported.stderr
    manifest = tmp_path / "contracts" / "addPet" / "2.1.0.yaml"
    text = manifest.read_text("utf-8")
    assert "\n  path: /pets\n" in text
    manifest.write_text(text.replace("\n  path: /pets\n", "\n"), "utf-8")
    built = run_cli("build", "--contracts", str(tmp_path / "contracts"), "--output", str(tmp_path / "out"), "--http",
                    "--no-cache", cwd=tmp_path)
    assert built.returncode == 2 and "Traceback" not in built.stderr
    line = next(i for i, t in enumerate(manifest.read_text("utf-8").splitlines(), 1) if t.startswith("x-openapi:"))
    [reported] = re.findall(r"2\.1\.0\.yaml:(\d+):\d+ #/x-openapi: expected x-openapi .*'path'", built.stderr)
    assert int(reported) in (line, line + 1)  # the key, or the first line of its mapping
    assert not (tmp_path / "out").exists()
    # without --http the manifest builds: x-openapi is the HTTP implementation's alone
    plain = run_cli("build", "--contracts", str(tmp_path / "contracts"), "--output", str(tmp_path / "out"),
                    "--no-cache", cwd=tmp_path)
    assert plain.returncode == 0, plain.stderr
