"""A real PostgreSQL server for the tests: a fresh cluster on a free loopback port, stopped at the end.

The binaries come from $POSTGRES_BIN (a folder holding ``initdb`` and ``pg_ctl``), else ``pg_config
--bindir``, else Debian's ``/usr/lib/postgresql/<version>/bin``; with none, the Postgres tests skip.
``initdb`` refuses to run as root, so as root the cluster belongs to the ``postgres`` user (Debian's
package makes it) and is run through ``runuser``; without that user the tests skip too.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from redis_support import free_port

USER, PASSWORD = "ledger", "pw-right-7c1"


def postgres_bin() -> Path | None:
    candidates = [os.environ.get("POSTGRES_BIN")]
    if shutil.which("pg_config"):
        found = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True, check=False)
        candidates.append(found.stdout.strip())
    candidates += sorted((str(p) for p in Path("/usr/lib/postgresql").glob("*/bin")), reverse=True)
    return next((Path(c) for c in candidates if c and (Path(c) / "initdb").is_file()), None)


def run_as() -> list[str] | None:
    """The command prefix that runs the server's programs: none needed, ``runuser -u postgres``
    as root, or None when neither works."""
    if os.geteuid() != 0:
        return []
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        return None
    return ["runuser", "-u", "postgres", "--"] if shutil.which("runuser") else None


@contextmanager
def postgres_server(bindir: Path, prefix: list[str]) -> Iterator[int]:
    """A fresh cluster whose only role is ``USER`` with ``PASSWORD`` (scram-sha-256 on loopback);
    yields its port. Its folder is made directly in the temporary folder: pytest's own are closed to
    other users, and the server may run as ``postgres``."""
    with tempfile.TemporaryDirectory(prefix="contractgen-pg-") as folder, _cluster(bindir, prefix, Path(folder)) as port:
        yield port


@contextmanager
def _cluster(bindir: Path, prefix: list[str], directory: Path) -> Iterator[int]:
    data, password_file = directory / "data", directory / "password"
    password_file.write_text(PASSWORD + "\n")
    if prefix:
        shutil.chown(directory, "postgres")
        shutil.chown(password_file, "postgres")
    port = free_port()
    options = f"-p {port} -k {directory} -c listen_addresses=127.0.0.1 -c fsync=off"
    for step in ([str(bindir / "initdb"), "-D", str(data), "-U", USER, "-A", "scram-sha-256", "--no-locale",
                  f"--pwfile={password_file}"],
                 [str(bindir / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(directory / "log"), "-w",
                  "-t", "30", "start"]):
        done = subprocess.run([*prefix, *step], capture_output=True, text=True, check=False)
        if done.returncode != 0:  # a machine that cannot run a cluster: the tests skip, saying why
            pytest.skip(f"{Path(step[0]).name} failed: {(done.stderr or done.stdout).strip()[-300:]}")
    try:
        yield port
    finally:
        subprocess.run([*prefix, str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"],
                       check=False, capture_output=True)
