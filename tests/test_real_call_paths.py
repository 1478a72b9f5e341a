"""The contract on the paths real tools take: real network failures, results with bad formats,
several problems at once, a process whose root logger is at INFO, a defaulted optional under mypy.

Every exception here is raised by the real library against a real loopback socket (a port nothing
listens on, or a listener that never answers), except the few no loopback socket can produce (a
name that does not resolve, an unreachable network), which are the library's own exception types.
"""

from __future__ import annotations

import asyncio
import errno
import json
import logging
import socket
import sqlite3
import ssl
import string
import subprocess
import sys
import textwrap
import threading
import urllib.request
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import botocore.session
import httpx
import psycopg
import psycopg2
import pytest
import redis
import requests
import urllib3
from botocore.config import Config
from build_support import build, make_project

from contractgen.runtime import (
    Contract,
    RetryPolicy,
    ToolError,
    guard,
    map_transport_error,
    transport,
    wrap_tool,
)
from generated.get_exchange_rate_v1 import get_exchange_rate

ARGS = {"base": "EUR", "quote": "USD"}
SECRET_HOST = "127.0.0.1"


@pytest.fixture(scope="module")
def closed_port() -> int:
    """A loopback port nothing listens on: connecting is refused at once."""
    with socket.socket() as probe:
        probe.bind((SECRET_HOST, 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def silent_port() -> Iterator[int]:
    """A loopback listener that accepts connections and never answers: reads time out."""
    server = socket.socket()
    server.bind((SECRET_HOST, 0))
    server.listen(64)
    try:
        yield int(server.getsockname()[1])
    finally:
        server.close()


#: what the broken server answers, by the request's path (a TLS hello gets a plain-text answer)
_BROKEN = {
    b"/truncated": b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"rate\"",
    b"/chunked": b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                 b"ff\r\n{\"rate\"",
    b"/garbage": b"SSH-2.0-OpenSSH_9.6\r\n",
}


@pytest.fixture(scope="module")
def broken_port() -> Iterator[int]:
    """A loopback server that breaks each answer the way real upstreams do: a body cut short of its
    Content-Length, a chunked body cut mid-chunk, a reply that is not HTTP, plain text to a TLS hello."""
    server = socket.socket()
    server.bind((SECRET_HOST, 0))
    server.listen(64)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                return
            with conn:
                try:
                    request = conn.recv(65536)
                    if request[:1] == b"\x16":  # a TLS ClientHello
                        conn.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n")
                    else:
                        path = request.split(b" ", 2)[1] if request.count(b" ") >= 2 else b"/"
                        # by its last part: an S3 client's path is /bucket/key
                        conn.sendall(_BROKEN.get(b"/" + path.rsplit(b"/", 1)[-1], _BROKEN[b"/truncated"]))
                except OSError:
                    pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield int(server.getsockname()[1])
    finally:
        stop.set()
        server.close()


def _raise_from(call: Callable[[], Any]) -> Callable[[Any], Any]:
    def implementation(_: Any) -> Any:
        call()
        raise AssertionError("the call was meant to fail")

    return implementation


def aws_client(port: int) -> Any:
    """A real botocore S3 client of a service at ``port`` on loopback, as a tool would make it (one
    attempt: the retries botocore makes first end in the same exception)."""
    return botocore.session.get_session().create_client(
        "s3", region_name="us-east-1", endpoint_url=f"http://{SECRET_HOST}:{port}",
        aws_access_key_id="AKIDEXAMPLE", aws_secret_access_key="not-a-secret",
        config=Config(retries={"max_attempts": 1, "mode": "standard"}, connect_timeout=2, read_timeout=0.05))


def _families(closed: int, silent: int, broken: int = 0) -> dict[str, tuple[Callable[[], Any], str]]:
    """name -> (a call that fails the way the real library fails, the code it must map to)."""
    url = f"http://{SECRET_HOST}:{broken}"

    def tls_to_plain_text() -> None:
        with socket.create_connection((SECRET_HOST, broken), timeout=2) as raw:
            ssl.create_default_context().wrap_socket(raw, server_hostname="rates.example").close()

    def refused_socket() -> None:
        socket.create_connection((SECRET_HOST, closed), timeout=2).close()

    def socket_timeout() -> None:
        with socket.create_connection((SECRET_HOST, silent), timeout=0.05) as conn:
            conn.recv(1)

    def unresolvable() -> None:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    def unreachable() -> None:
        raise OSError(errno.ENETUNREACH, "Network is unreachable")

    return {
        "ConnectionRefusedError": (refused_socket, "UNAVAILABLE"),
        "socket.timeout": (socket_timeout, "TIMEOUT"),
        "socket.gaierror": (unresolvable, "UNAVAILABLE"),
        "OSError(ENETUNREACH)": (unreachable, "UNAVAILABLE"),
        "httpx.ConnectError": (lambda: httpx.get(f"http://{SECRET_HOST}:{closed}/rates"), "UNAVAILABLE"),
        "httpx.ReadTimeout": (lambda: httpx.get(f"http://{SECRET_HOST}:{silent}/rates", timeout=0.05), "TIMEOUT"),
        "requests.ConnectionError": (lambda: requests.get(f"http://{SECRET_HOST}:{closed}/rates", timeout=2),
                                     "UNAVAILABLE"),
        "requests.ReadTimeout": (lambda: requests.get(f"http://{SECRET_HOST}:{silent}/rates", timeout=0.05),
                                 "TIMEOUT"),
        "urllib.URLError": (lambda: urllib.request.urlopen(f"http://{SECRET_HOST}:{closed}/rates", timeout=2),
                            "UNAVAILABLE"),
        # the upstream answered, but broke its answer: the connection or the peer failed, not the tool
        "http.client.IncompleteRead": (lambda: urllib.request.urlopen(f"{url}/truncated", timeout=2).read(),
                                       "UNAVAILABLE"),
        "http.client.BadStatusLine": (lambda: urllib.request.urlopen(f"{url}/garbage", timeout=2), "UNAVAILABLE"),
        "requests.ChunkedEncodingError": (lambda: requests.get(f"{url}/chunked", timeout=2).json(), "UNAVAILABLE"),
        "ssl.SSLError": (tls_to_plain_text, "UNAVAILABLE"),
        "urllib3.NewConnectionError": (
            lambda: urllib3.PoolManager(retries=False).request("GET", f"http://{SECRET_HOST}:{closed}/"),
            "UNAVAILABLE"),
        # a tool backed by Redis: redis-py's own exception classes (no builtin bases)
        "redis.ConnectionError": (lambda: redis.Redis(host=SECRET_HOST, port=closed).ping(), "UNAVAILABLE"),
        "redis.TimeoutError": (lambda: redis.Redis(host=SECRET_HOST, port=silent, socket_timeout=0.05).ping(),
                               "TIMEOUT"),
        # a tool backed by Postgres: the drivers' OperationalError, chained to no socket error
        "psycopg.OperationalError": (
            lambda: psycopg.connect(f"host={SECRET_HOST} port={closed} connect_timeout=2 user=app dbname=ledger"),
            "UNAVAILABLE"),
        "psycopg2.OperationalError": (
            lambda: psycopg2.connect(f"host={SECRET_HOST} port={closed} connect_timeout=2 user=app dbname=ledger"),
            "UNAVAILABLE"),
        # a tool backed by AWS: botocore's own classes (its timeouts an OSError without an errno)
        "botocore.EndpointConnectionError": (lambda: aws_client(closed).list_buckets(), "UNAVAILABLE"),
        "botocore.ReadTimeoutError": (lambda: aws_client(silent).list_buckets(), "TIMEOUT"),
        "botocore.ConnectionClosedError": (lambda: aws_client(broken).get_object(Bucket="b", Key="garbage"),
                                           "UNAVAILABLE"),
        "botocore.ResponseStreamingError": (
            lambda: aws_client(broken).get_object(Bucket="b", Key="truncated")["Body"].read(), "UNAVAILABLE"),
    }


FAMILIES = list(_families(0, 0))


def _assert_retry_then_stop(envelopes: list[dict[str, Any]], code: str, ports: tuple[int, ...]) -> None:
    """get_exchange_rate lists UNAVAILABLE and TIMEOUT as retryable, with a failure budget of 2."""
    errors = [e["error"] for e in envelopes]
    assert [e["code"] for e in errors] == [code] * 3, errors
    assert [e["action"] for e in errors] == ["retry_later", "stop_and_tell_user", "stop_and_tell_user"], errors
    assert errors[0]["retryable"] is True and errors[1]["retryable"] is False
    text = json.dumps(envelopes)
    assert all(str(port) not in text for port in ports) and SECRET_HOST not in text  # no exception text


@pytest.mark.parametrize("family", FAMILIES)
def test_a_real_network_failure_is_transient_under_implement(family: str, closed_port: int,
                                                             silent_port: int, broken_port: int) -> None:
    call, code = _families(closed_port, silent_port, broken_port)[family]
    tool = get_exchange_rate.implement(_raise_from(call))
    _assert_retry_then_stop([tool(ARGS) for _ in range(3)], code, (closed_port, silent_port, broken_port))


@pytest.mark.parametrize("family", FAMILIES)
def test_a_real_network_failure_is_transient_through_acall_of_an_async_tool(family: str, closed_port: int,
                                                                            silent_port: int, broken_port: int) -> None:
    call, code = _families(closed_port, silent_port, broken_port)[family]

    async def implementation(_: Any) -> Any:
        call()

    tool = get_exchange_rate.implement(implementation)

    async def three() -> list[dict[str, Any]]:
        return [await tool.acall(ARGS) for _ in range(3)]

    _assert_retry_then_stop(asyncio.run(three()), code, (closed_port, silent_port, broken_port))


def test_an_async_http_client_failure_is_transient(closed_port: int) -> None:
    async def implementation(_: Any) -> Any:
        async with httpx.AsyncClient() as client:
            await client.get(f"http://{SECRET_HOST}:{closed_port}/rates")

    tool = get_exchange_rate.implement(implementation)

    async def three() -> list[dict[str, Any]]:
        return [await tool.acall(ARGS) for _ in range(3)]

    _assert_retry_then_stop(asyncio.run(three()), "UNAVAILABLE", (closed_port,))


def test_an_async_client_reading_a_body_cut_short_is_transient(broken_port: int) -> None:
    """aiohttp's ClientPayloadError, raised for real by a chunked body cut mid-chunk."""
    aiohttp = pytest.importorskip("aiohttp")

    async def implementation(_: Any) -> Any:
        async with aiohttp.ClientSession() as client, \
                client.get(f"http://{SECRET_HOST}:{broken_port}/chunked") as response:
            return await response.json()

    tool = get_exchange_rate.implement(implementation)

    async def two() -> list[dict[str, Any]]:
        return [await tool.acall(ARGS) for _ in range(2)]

    errors = [e["error"] for e in asyncio.run(two())]
    assert [(e["code"], e["action"]) for e in errors] == [("UNAVAILABLE", "retry_later"),
                                                          ("UNAVAILABLE", "stop_and_tell_user")], errors


@pytest.mark.parametrize(("module", "name", "code", "said"), [(*row, None)[:4] for row in transport._LIBRARY_FAILURES],
                         ids=[f"{m}.{n}{'' if not said else '.said'}" for m, n, _, *said in transport._LIBRARY_FAILURES])
def test_each_library_failure_in_the_table_maps_to_its_code(module: str, name: str, code: str, said: Any) -> None:
    """Every row of the table, with the library's own class (the failures above raise the common
    ones for real; a cluster going down or a TLS record garbled mid-stream cannot be staged here),
    and a message that says what the row looks for where it looks for something."""
    kind = getattr(pytest.importorskip(module), name)
    message = "x" if said is None else 'FATAL:  password authentication failed for user "app"'
    if module.startswith("botocore"):  # keyword arguments, the ones its message names
        exc = kind(**{field: "x" for _, field, _, _ in string.Formatter().parse(kind.fmt) if field})
    else:
        exc = kind(*{"IncompleteRead": (b"",), "NewConnectionError": (None, "x")}.get(name, (message,)))
    mapped = map_transport_error(exc)
    assert mapped is not None and mapped.code == code, (name, mapped)


#: what the AWS-shaped server answers, by the object key asked for: (status, error code, headers)
_AWS_ANSWERS = {
    "slow-down": (503, "SlowDown", {}),
    "throttled": (400, "ThrottlingException", {"Retry-After": "7"}),
    "denied": (403, "AccessDenied", {}),
    "missing": (404, "NoSuchKey", {}),
    "failing": (500, "InternalError", {}),
    "conflict": (409, "OperationAborted", {}),
}


@pytest.fixture(scope="module")
def aws_port() -> Iterator[int]:
    """A loopback server answering an S3 client as S3 answers errors: a status and an XML body that
    names the error code (the request ID it echoes is a secret of the service's log)."""

    class Answer(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            status, code, headers = _AWS_ANSWERS[self.path.rsplit("/", 1)[-1]]
            body = (f"<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>{code}</Code><Message>Refused "
                    f"by s3-internal-7.corp:8443</Message><RequestId>REQ-{code}</RequestId></Error>").encode()
            self.send_response(status)
            for name, value in {"Content-Type": "application/xml", "Content-Length": str(len(body)),
                                **headers}.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_: Any) -> None:
            pass

    server = ThreadingHTTPServer((SECRET_HOST, 0), Answer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield int(server.server_address[1])
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize(("key", "code", "action", "retry_after"), [
    ("slow-down", "RATE_LIMITED", "retry_later", None),
    ("throttled", "RATE_LIMITED", "retry_later", 7.0),  # AWS throttles with a 400 as often as not
    ("denied", "PERMISSION_DENIED", "escalate", None),
    ("missing", "NOT_FOUND", "stop_and_tell_user", None),
    ("failing", "UNAVAILABLE", "retry_later", None),
    ("conflict", "CONFLICT", "fix_arguments", None),
])
def test_an_aws_service_error_maps_by_its_status_and_its_throttling_code(
        aws_port: int, key: str, code: str, action: str, retry_after: float | None) -> None:
    """botocore's ClientError, parsed for real from the service's answer: its status decides as an
    HTTP status does, except a throttling error code, which is RATE_LIMITED at any status. The
    service's own words reach the model only through ``include_body``, quoted as untrusted."""

    def implementation(_: Any) -> Any:
        aws_client(aws_port).get_object(Bucket="rates", Key=key)

    error = get_exchange_rate.implement(implementation)(ARGS)["error"]
    assert (error["code"], error["action"], error.get("retry_after")) == (code, action, retry_after), error
    assert "corp" not in json.dumps(error) and f"REQ-{_AWS_ANSWERS[key][1]}" not in json.dumps(error)
    quoted = wrap_tool(get_exchange_rate.contract, implementation,
                       mapper=transport.make_transport_mapper(include_body=True))(ARGS)["error"]
    assert quoted["code"] == code and quoted["upstream"]["untrusted"] is True
    assert quoted["upstream"]["text"].startswith(f"{_AWS_ANSWERS[key][1]}: Refused by")


def test_redis_refusing_the_tools_credentials_escalates_instead_of_retrying(redis_url: str) -> None:
    """A real Redis refusing the user and password: redis-py's AuthenticationError is a subclass of
    its ConnectionError, yet retrying cannot help. PERMISSION_DENIED tells the model to escalate,
    and the password is in no envelope."""
    def implementation(_: Any) -> Any:
        redis.Redis.from_url(redis_url, username="rates", password="pw-not-this-one").ping()

    envelope = get_exchange_rate.implement(implementation)(ARGS)
    error = envelope["error"]
    assert (error["code"], error["action"], error["retryable"]) == ("PERMISSION_DENIED", "escalate", False), error
    assert "pw-not-this-one" not in json.dumps(envelope) and "rates" not in error["message"]


@pytest.mark.parametrize("client", ["psycopg", "psycopg2"])
@pytest.mark.parametrize("login", ["wrong password", "unknown role"])
def test_postgres_refusing_the_tools_login_escalates_instead_of_retrying(
        postgres_port: int, client: str, login: str) -> None:
    """A real Postgres refusing the login: both drivers raise a bare OperationalError (no SQLSTATE
    reaches the client at connect time), the class a server that is down raises too. Read as
    UNAVAILABLE, the model retried until the budget ran out; the server's message says it is the
    credentials, so the model escalates, and neither the password nor the role is in the envelope.
    The right login through the same code answers ok (the server was there all along)."""
    from postgres_support import PASSWORD, USER

    driver = psycopg if client == "psycopg" else psycopg2
    user, password = (USER, "pw-wrong-2b9") if login == "wrong password" else ("nobody_here", PASSWORD)

    def connects(as_user: str, with_password: str) -> Any:
        def implementation(_: Any) -> Any:
            with driver.connect(host="127.0.0.1", port=postgres_port, dbname="postgres", user=as_user,
                                password=with_password, connect_timeout=10) as connection:
                cursor = connection.cursor()
                cursor.execute("select 1.25")
                return {"base": "EUR", "quote": "USD", "rate": float(cursor.fetchone()[0]), "date": "2026-12-07"}
        return implementation

    assert get_exchange_rate.implement(connects(USER, PASSWORD))(ARGS)["output"]["rate"] == 1.25
    tool = get_exchange_rate.implement(connects(user, password))
    envelopes = [tool(ARGS), tool(ARGS)]
    for envelope in envelopes:
        error = envelope["error"]
        assert (error["code"], error["action"], error["retryable"]) == ("PERMISSION_DENIED", "escalate", False), error
        assert password not in json.dumps(envelope) and user not in error["message"]
    wrapped = wrap_tool(get_exchange_rate.contract, connects(user, password))(ARGS)["error"]
    assert wrapped["code"] == "PERMISSION_DENIED"


@pytest.mark.parametrize(("said", "code"), [
    ('FATAL:  Ident authentication failed for user "app"', "PERMISSION_DENIED"),
    ('FATAL:  Peer authentication failed for user "app"', "PERMISSION_DENIED"),
    ('FATAL:  no pg_hba.conf entry for host "10.0.0.5", user "app", database "ledger", no encryption', "PERMISSION_DENIED"),
    ('FATAL:  pg_hba.conf rejects connection for host "10.0.0.5", user "app", database "ledger"', "PERMISSION_DENIED"),
    ('FATAL:  role "app" is not permitted to log in', "PERMISSION_DENIED"),
    ('FATAL:  permission denied for database "ledger"', "PERMISSION_DENIED"),
    ("fe_sendauth: no password supplied", "PERMISSION_DENIED"),
    ("FATAL:  the database system is starting up", "UNAVAILABLE"),
    ("FATAL:  sorry, too many clients already", "UNAVAILABLE"),
    ('FATAL:  too many connections for role "app"', "UNAVAILABLE"),
    ("server closed the connection unexpectedly", "UNAVAILABLE"),
])
@pytest.mark.parametrize("driver", [psycopg, psycopg2], ids=["psycopg", "psycopg2"])
def test_postgres_login_refusals_are_told_from_a_server_that_is_away(said: str, code: str, driver: Any) -> None:
    """The other refusals PostgreSQL's auth.c words (the live test above covers a wrong password and
    an unknown role), and messages of a server that is only busy or away, which stay transient."""
    def implementation(_: Any) -> Any:
        raise driver.OperationalError(f'connection to server at "db.internal" (10.0.0.9), port 5432 failed: {said}')

    assert get_exchange_rate.implement(implementation)(ARGS)["error"]["code"] == code


def test_a_wrapped_foreign_tool_maps_the_same_failures(closed_port: int, silent_port: int,
                                                       broken_port: int) -> None:
    for family, (call, code) in _families(closed_port, silent_port, broken_port).items():
        tool = wrap_tool(get_exchange_rate.contract, _raise_from(call))
        envelopes = [tool(ARGS) for _ in range(3)]
        assert [e["error"]["code"] for e in envelopes] == [code] * 3, family
        assert envelopes[0]["error"]["action"] == "retry_later", family


def test_a_failure_wrapped_by_the_tool_is_still_found_in_the_cause_chain(closed_port: int) -> None:
    def implementation(_: Any) -> Any:
        try:
            httpx.get(f"http://{SECRET_HOST}:{closed_port}/rates")
        except httpx.HTTPError as exc:
            raise RuntimeError(f"rates provider at {SECRET_HOST}:{closed_port} failed") from exc

    envelope = get_exchange_rate.implement(implementation)(ARGS)
    assert envelope["error"]["code"] == "UNAVAILABLE" and str(closed_port) not in json.dumps(envelope)


def test_a_defect_in_the_tools_own_code_stays_internal() -> None:
    def implementation(_: Any) -> Any:
        return {}["missing"]

    envelope = get_exchange_rate.implement(implementation)(ARGS)
    assert envelope["error"]["code"] == "INTERNAL" and envelope["error"]["action"] == "stop_and_tell_user"


@pytest.mark.parametrize("mistake", [
    lambda: sqlite3.connect(":memory:").execute("select * from missing"),  # sqlite3's OperationalError
    lambda: (_ for _ in ()).throw(psycopg.errors.UndefinedTable("relation \"missing\" does not exist")),
    lambda: (_ for _ in ()).throw(psycopg2.ProgrammingError("syntax error at or near \"selec\"")),
], ids=["sqlite3 no such table", "psycopg UndefinedTable", "psycopg2 ProgrammingError"])
def test_a_mistake_in_the_tools_own_sql_stays_internal(mistake: Callable[[], Any]) -> None:
    """A database's answer to a wrong query is the tool's defect, not a transient failure: sqlite3
    raises OperationalError for a missing table, so only the Postgres drivers' is mapped."""
    envelope = get_exchange_rate.implement(_raise_from(mistake))(ARGS)
    assert envelope["error"]["code"] == "INTERNAL" and envelope["error"]["action"] == "stop_and_tell_user"


def test_a_tool_opts_out_of_the_transport_mapping_or_adds_its_own(closed_port: int) -> None:
    def refused(_: Any) -> Any:
        socket.create_connection((SECRET_HOST, closed_port), timeout=2)

    opted_out = get_exchange_rate.implement(refused, transport_errors=False)
    assert opted_out(ARGS)["error"]["code"] == "INTERNAL"
    assert opted_out.with_implementation(refused)(ARGS)["error"]["code"] == "INTERNAL"  # the choice is kept

    class QuotaExceeded(Exception):
        pass

    def own(exc: BaseException) -> ToolError | None:
        return ToolError("The provider's quota is used up for now.", code="RATE_LIMITED", retry_after=60) \
            if isinstance(exc, QuotaExceeded) else None

    def quota(_: Any) -> Any:
        raise QuotaExceeded

    error = get_exchange_rate.implement(quota, mapper=own)(ARGS)["error"]
    assert error["code"] == "RATE_LIMITED" and error["retry_after"] == 60
    # the tool's own mapper comes first, and the transport mapping still follows it
    assert get_exchange_rate.implement(refused, mapper=own)(ARGS)["error"]["code"] == "UNAVAILABLE"


def test_a_contract_that_does_not_retry_stops_on_a_network_failure(closed_port: int) -> None:
    contract = Contract(name="charge", version="1.0.0", summary="s", description="d",
                        input_schema={"type": "object"}, output_schema={"type": "object"},
                        retry=RetryPolicy(retryable_codes=(), failure_budget=2))

    def refused(_: Any) -> Any:
        socket.create_connection((SECRET_HOST, closed_port), timeout=2)

    error = guard(contract, refused)({})["error"]
    assert error["code"] == "UNAVAILABLE" and error["action"] == "stop_and_tell_user" and not error["retryable"]


# -- formats -------------------------------------------------------------------------------------

NESTED = Contract(
    name="itinerary", version="1.0.0", summary="s", description="d",
    input_schema={"type": "object", "additionalProperties": False, "required": ["day"],
                  "properties": {"day": {"type": "string", "format": "date"},
                                 "contact": {"type": "string", "format": "email"},
                                 "legs": {"type": "integer", "minimum": 1}}},
    output_schema={"type": "object", "required": ["legs"], "properties": {"legs": {
        "type": "array", "items": {"type": "object", "required": ["departs_at"],
                                   "properties": {"departs_at": {"type": "string", "format": "date-time"},
                                                  "gate": {"type": "string", "format": "uuid"}}}}}})


@pytest.mark.parametrize("result", [
    {"base": "EUR", "quote": "USD", "rate": 1.1, "date": "tomorrow-ish"},
    {"base": "EUR", "quote": "USD", "rate": 1.1, "date": "2026-02-30"},
])
def test_a_result_with_a_malformed_format_is_never_ok(result: dict[str, Any]) -> None:
    tool = get_exchange_rate.implement(lambda args: result)
    for envelope in (tool(ARGS), asyncio.run(tool.acall(ARGS))):
        assert envelope["status"] == "error" and envelope["error"]["code"] == "INTERNAL", envelope
        assert "invalid result" in envelope["error"]["message"]


def test_a_nested_result_format_is_checked_and_a_good_one_passes() -> None:
    bad = guard(NESTED, lambda args: {"legs": [{"departs_at": "2026-12-07T10:00:00Z"},
                                               {"departs_at": "at ten"}]})
    assert bad({"day": "2026-12-07"})["status"] == "error"
    good = guard(NESTED, lambda args: {"legs": [{"departs_at": "2026-12-07T10:00:00Z",
                                                 "gate": "12345678-1234-5678-1234-567812345678"}]})
    assert good({"day": "2026-12-07"})["status"] == "ok"


def test_format_problems_come_back_in_the_same_round_as_the_others() -> None:
    tool = get_exchange_rate.implement(lambda args: {})
    error = tool({"base": "eur", "quote": "USD", "date": "2026-13-45", "x": 1})["error"]
    assert {(v["field"], v["constraint"]) for v in error["violations"]} == {
        ("/x", "additionalProperties"), ("/base", "pattern"), ("/date", "format")}
    error = guard(NESTED, lambda args: {})({"day": "someday", "contact": "nobody", "legs": 0})["error"]
    assert {(v["field"], v["constraint"]) for v in error["violations"]} == {
        ("/day", "format"), ("/contact", "format"), ("/legs", "minimum")}


def test_formats_as_annotations_on_request() -> None:
    tool = guard(NESTED, lambda args: {"legs": [{"departs_at": "at ten"}]}, formats=False)
    assert tool({"day": "someday"})["status"] == "ok"


# -- logging -------------------------------------------------------------------------------------

class _Recorder(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.NOTSET)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def test_a_root_logger_at_info_does_not_turn_on_the_per_call_log() -> None:
    root = logging.getLogger()
    saved = root.level
    recorder = _Recorder()
    root.addHandler(recorder)
    root.setLevel(logging.INFO)  # what MCPServer() and logging.basicConfig(level=INFO) do
    try:
        tool = get_exchange_rate.implement(lambda args: {"base": "EUR", "quote": "USD", "rate": 1.1,
                                                          "date": "2026-11-27"})
        for _ in range(3):
            assert tool(ARGS)["status"] == "ok"
        asyncio.run(tool.acall(ARGS))
        assert [r for r in recorder.records if r.name == "contractgen.runtime.calls"] == []
        logging.getLogger("contractgen.runtime.calls").setLevel(logging.DEBUG)  # asked for: on
        tool(ARGS)
        assert [r.name for r in recorder.records] == ["contractgen.runtime.calls"]
    finally:
        logging.getLogger("contractgen.runtime.calls").setLevel(logging.NOTSET)
        root.removeHandler(recorder)
        root.setLevel(saved)


def test_constructing_the_mcp_sdk_server_leaves_the_per_call_log_off() -> None:
    code = textwrap.dedent("""
        import logging
        from mcp.server.mcpserver import MCPServer
        from generated.get_exchange_rate_v1 import get_exchange_rate
        MCPServer("probe")
        seen = []
        class H(logging.Handler):
            def emit(self, record): seen.append(record.name)
        logging.getLogger().addHandler(H())
        tool = get_exchange_rate.implement(lambda a: {"base": "EUR", "quote": "USD", "rate": 1.1, "date": "2026-11-27"})
        for _ in range(3):
            tool({"base": "EUR", "quote": "USD"})
        print(logging.getLogger().level, seen.count("contractgen.runtime.calls"))
    """)
    result = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).parent.parent,
                            capture_output=True, text=True, check=False, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [str(logging.INFO), "0"]


# -- typing --------------------------------------------------------------------------------------

FLIGHTS = {
    "name": "search_flights", "version": "1.0.0", "summary": "Search flights.",
    "description": "Searches flights between two airports.",
    "input": {"type": "object", "additionalProperties": False, "required": ["origin"],
              "properties": {"origin": {"type": "string", "description": "Airport code."},
                             "cabin": {"type": "string", "enum": ["economy", "business"], "default": "economy",
                                       "description": "Cabin class."},
                             "adults": {"type": "integer", "minimum": 1, "default": 1, "description": "Adults."},
                             "note": {"type": ["string", "null"], "default": None, "description": "A note."}}},
    "output": {"type": "object", "required": ["cabin"], "properties": {"cabin": {"type": "string"}}},
}


def test_mypy_strict_accepts_a_defaulted_optional_without_a_none_check(tmp_path: Path) -> None:
    root = make_project(tmp_path / "flights")
    (root / "contracts" / "search_flights").mkdir()
    (root / "contracts" / "search_flights" / "1.0.0.json").write_text(json.dumps(FLIGHTS), "utf-8")
    result = build(root)
    assert result.returncode == 0, result.stderr
    (root / "impl.py").write_text(textwrap.dedent("""
        from generated.search_flights_v1 import SearchFlightsV1Input, SearchFlightsV1Output, search_flights

        @search_flights.implement
        def run(args: SearchFlightsV1Input) -> SearchFlightsV1Output:
            note: str = args.note or ""  # null is allowed there: None must be handled
            return SearchFlightsV1Output(cabin=args.cabin.upper() * args.adults + note)
    """), "utf-8")
    checked = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", "impl.py"],
                             cwd=root, capture_output=True, text=True, check=False)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    (root / "nullable.py").write_text(textwrap.dedent("""
        from generated.search_flights_v1 import SearchFlightsV1Input

        def shout(args: SearchFlightsV1Input) -> str:
            return args.note.upper()
    """), "utf-8")
    checked = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", "nullable.py"],
                             cwd=root, capture_output=True, text=True, check=False)
    assert checked.returncode == 1 and 'Item "None" of "str | None" has no attribute "upper"' in checked.stdout
    run = subprocess.run([sys.executable, "-c", "import json, impl; print(json.dumps(impl.run({'origin': 'OSL'})))"],
                         cwd=root, capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["output"] == {"cabin": "ECONOMY"}


# -- start-up ------------------------------------------------------------------------------------

def test_the_generated_package_imports_a_tool_module_when_first_used() -> None:
    """A server imports only the tools it serves: ``import generated`` loads no tool module; an
    entry of STUBS or CONTRACTS, a module attribute or a list loads what it needs, once."""
    code = textwrap.dedent("""
        import json, sys
        import generated
        loaded = lambda: sorted(m for m in sys.modules if m.startswith("generated."))
        steps = [loaded()]
        stub = generated.STUBS["get_exchange_rate_v1"]
        steps.append(loaded())
        assert generated.STUBS["get_exchange_rate_v1"] is stub and stub.contract is generated.CONTRACTS["get_exchange_rate_v1"]
        from generated import refund_payment_v1
        steps.append(loaded())
        names = [tool["name"] for tool in generated.MCP_TOOLS]
        steps.append(loaded())
        print(json.dumps([steps, names, sorted(generated.STUBS), len(generated.CONTRACTS)]))
    """)
    result = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).parent.parent,
                            capture_output=True, text=True, check=False, timeout=120)
    assert result.returncode == 0, result.stderr
    steps, names, stubs, contracts = json.loads(result.stdout)
    assert steps[0] == []
    assert steps[1] == ["generated.get_exchange_rate_v1"]
    assert steps[2] == ["generated.get_exchange_rate_v1", "generated.refund_payment_v1"]
    assert steps[3] == ["generated.book_meeting_v2", "generated.get_exchange_rate_v1", "generated.refund_order_v1",
                        "generated.refund_payment_v1", "generated.retrieve_chunks_v1",
                        "generated.search_documents_v1"]  # the newest majors
    assert names == ["book_meeting", "get_exchange_rate", "refund_order", "refund_payment", "retrieve_chunks",
                     "search_documents"]
    assert stubs == ["book_meeting_v1", "book_meeting_v2", "get_exchange_rate_v1", "refund_order_v1",
                     "refund_payment_v1", "retrieve_chunks_v1", "search_documents_v1"] and contracts == 7
