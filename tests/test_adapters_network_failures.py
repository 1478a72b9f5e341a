"""A real network failure through every adapter's own loop: a tool whose implementation makes a real
connection to a loopback port nothing listens on (refused at once), or to a listener that never
answers (the read times out), with the standard library, httpx (sync and async), requests and
aiohttp where installed. Each framework's scripted model reads only what its framework hands it
and calls again on ``retry_later``: it gets UNAVAILABLE or TIMEOUT with ``retry_later``, counted,
then ``stop_and_tell_user`` at the tool's failure budget (2), and never the exception's text."""

from __future__ import annotations

import importlib.util
import json
import socket
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
import requests
from adapter_loops import FRAMEWORKS
from adapter_support import next_arguments

from generated.get_exchange_rate_v1 import get_exchange_rate

HOST = "127.0.0.1"


@pytest.fixture(scope="module")
def closed_port() -> int:
    """A loopback port nothing listens on: connecting is refused at once."""
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def silent_port() -> Iterator[int]:
    """A loopback listener that accepts connections and never answers: reads time out."""
    server = socket.socket()
    server.bind((HOST, 0))
    server.listen(64)
    try:
        yield int(server.getsockname()[1])
    finally:
        server.close()


def _refused_socket(closed: int, silent: int) -> Callable[[Any], Any]:
    def implementation(_: Any) -> Any:
        socket.create_connection((HOST, closed), timeout=2).close()

    return implementation


def _socket_timeout(closed: int, silent: int) -> Callable[[Any], Any]:
    def implementation(_: Any) -> Any:
        with socket.create_connection((HOST, silent), timeout=0.05) as connection:
            connection.recv(1)

    return implementation


def _httpx_refused(closed: int, silent: int) -> Callable[[Any], Any]:
    def implementation(_: Any) -> Any:
        httpx.get(f"http://{HOST}:{closed}/rates")

    return implementation


def _httpx_async_refused(closed: int, silent: int) -> Callable[[Any], Any]:
    async def implementation(_: Any) -> Any:
        async with httpx.AsyncClient() as client:
            await client.get(f"http://{HOST}:{closed}/rates")

    return implementation


def _httpx_read_timeout(closed: int, silent: int) -> Callable[[Any], Any]:
    def implementation(_: Any) -> Any:
        httpx.get(f"http://{HOST}:{silent}/rates", timeout=0.05)

    return implementation


def _requests_refused(closed: int, silent: int) -> Callable[[Any], Any]:
    def implementation(_: Any) -> Any:
        requests.get(f"http://{HOST}:{closed}/rates", timeout=2)

    return implementation


def _aiohttp_refused(closed: int, silent: int) -> Callable[[Any], Any]:
    async def implementation(_: Any) -> Any:
        import aiohttp

        async with aiohttp.ClientSession() as session, session.get(f"http://{HOST}:{closed}/rates"):
            pass

    return implementation


NO_AIOHTTP = pytest.mark.skipif(
    importlib.util.find_spec("aiohttp") is None, reason="aiohttp is not installed"
)

#: family -> (an implementation that fails the way the real library fails, the code the model reads)
FAMILIES = [
    pytest.param(_refused_socket, "UNAVAILABLE", id="ConnectionRefusedError"),
    pytest.param(_socket_timeout, "TIMEOUT", id="socket.timeout"),
    pytest.param(_httpx_refused, "UNAVAILABLE", id="httpx.ConnectError"),
    pytest.param(_httpx_async_refused, "UNAVAILABLE", id="httpx.AsyncClient.ConnectError"),
    pytest.param(_httpx_read_timeout, "TIMEOUT", id="httpx.ReadTimeout"),
    pytest.param(_requests_refused, "UNAVAILABLE", id="requests.ConnectionError"),
    pytest.param(
        _aiohttp_refused, "UNAVAILABLE", id="aiohttp.ClientConnectorError", marks=NO_AIOHTTP
    ),
]


@pytest.mark.parametrize("framework", sorted(FRAMEWORKS))
@pytest.mark.parametrize(("family", "code"), FAMILIES)
def test_a_real_network_failure_is_retried_then_stopped_at_the_budget(
    framework: str,
    family: Callable[[int, int], Callable[[Any], Any]],
    code: str,
    closed_port: int,
    silent_port: int,
) -> None:
    tool = get_exchange_rate.implement(family(closed_port, silent_port))
    read = FRAMEWORKS[framework](tool, lambda read: next_arguments("down", read))
    errors = [envelope["error"] for envelope in read]
    assert [(e["code"], e["action"]) for e in errors] == [
        (code, "retry_later"),
        (code, "stop_and_tell_user"),
    ], read
    assert [e["retryable"] for e in errors] == [True, False]
    assert [e["budget"] for e in errors] == [
        {"consecutive_failures": 1, "limit": 2, "exhausted": False},
        {"consecutive_failures": 2, "limit": 2, "exhausted": True},
    ]
    text = json.dumps(read)
    assert str(closed_port) not in text and str(silent_port) not in text and HOST not in text
