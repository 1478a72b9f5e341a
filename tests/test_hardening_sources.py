"""Every path under a manifest's name is read or refused, never skipped: a dangling link, a named
pipe, a device or a socket named ``<version>.yaml`` would drop that tool version from check, build and
diff without a word (or block the read), so each is an error naming what is there, and a failed build
leaves ``generated/`` as it was. A link to a manifest file is followed."""

from __future__ import annotations

import os
import shutil
import socket
from collections.abc import Callable
from pathlib import Path

import pytest
from build_support import build, make_project, read_bytes_tree
from conftest import run_cli

CASES = Path(__file__).resolve().parent / "cases" / "build"


def _dangling(path: Path) -> None:
    path.symlink_to(path.parent / "nowhere.yaml")


def _pipe(path: Path) -> None:
    os.mkfifo(path)


def _device(path: Path) -> None:
    path.symlink_to("/dev/zero")  # reading it would never end


def _socket(path: Path) -> None:
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(path))
    except OSError as exc:  # a path too long for AF_UNIX on some systems
        pytest.skip(f"cannot make a socket here: {exc}")
    finally:
        server.close()


@pytest.mark.parametrize("make,what", [(_dangling, "a broken symbolic link to"), (_pipe, "a named pipe"),
                                       (_device, "a device"), (_socket, "a socket")])
def test_a_manifest_name_on_something_not_a_file_is_an_error(tmp_path: Path, make: Callable[[Path], None],
                                                             what: str) -> None:
    root = make_project(tmp_path / "p", CASES / "basic" / "contracts")
    assert build(root).returncode == 0
    before = read_bytes_tree(root / "generated")
    (root / "contracts" / "get_weather" / "2.0.0.yaml").unlink(missing_ok=True)
    make(root / "contracts" / "get_weather" / "2.0.0.yaml")
    for command in (("check",), ("build",), ("diff", "contracts", "contracts")):
        result = run_cli(*command, cwd=root, timeout=60)
        assert result.returncode == 2, (command, result.stdout, result.stderr)
        out = result.stdout + result.stderr
        assert "Traceback" not in out
        assert f"2.0.0.yaml #: expected a manifest file (got {what}" in out, out
        assert "hint:" in out
    assert read_bytes_tree(root / "generated") == before
    # named on the command line, it is the same error (not "nothing at this path")
    result = run_cli("check", "contracts/get_weather/2.0.0.yaml", cwd=root, timeout=60)
    assert result.returncode == 2 and f"expected a manifest file (got {what}" in result.stdout + result.stderr


def test_a_link_to_a_manifest_file_is_followed(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p", CASES / "basic" / "contracts")
    manifest = next((root / "contracts" / "get_weather").glob("*.yaml"))
    shared = tmp_path / "shared"
    shared.mkdir()
    shutil.move(manifest, shared / manifest.name)
    manifest.symlink_to(shared / manifest.name)
    result = run_cli("check", cwd=root, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert build(root).returncode == 0
    assert any(name.startswith("get_weather") for name in read_bytes_tree(root / "generated"))
