"""Only regular files are read from the build cache: a FIFO, a device or a folder planted under an
entry's name (a shared CI cache is enough to plant one) is a cache miss, never a read that waits for a
writer. Before, a FIFO at ``tree/last.json`` or ``parsed/<key>.json`` hung ``build`` and ``build --check``.

Also here: the compiler's ``cache`` and ``write`` modules do not import each other (either direction
may import the other, not both).
"""

from __future__ import annotations

import ast
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from build_support import make_project, read_bytes_tree

from contractgen.compiler.cache import BuildCache

CASES = Path(__file__).resolve().parent / "cases" / "build"
#: far above a build of the basic case (about a second); only a read that waits for a writer reaches it
HANG_BOUND = 60

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")


def _fifo_at(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


def _run_with_bound(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            [sys.executable, "-m", "contractgen", "build", *args],
            cwd=root,
            check=False,
            capture_output=True,
            text=True,
            timeout=HANG_BOUND,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(
            f"build {' '.join(args)} waited on a FIFO in the cache (killed after {HANG_BOUND} s)"
        )


@pytest.mark.parametrize("args", [(), ("--check",)], ids=["build", "check"])
def test_a_fifo_as_the_tree_record_is_a_miss(tmp_path: Path, args: tuple[str, ...]) -> None:
    root = make_project(tmp_path / "p", CASES / "basic" / "contracts")
    assert _run_with_bound(root).returncode == 0
    expected = read_bytes_tree(root / "generated")
    _fifo_at(root / ".contractgen-cache" / "tree" / "last.json")
    result = _run_with_bound(root, *args)
    assert result.returncode == 0, result.stderr
    assert ("up to date" if args else "unchanged") in result.stderr, result.stderr
    assert read_bytes_tree(root / "generated") == expected


@pytest.mark.parametrize("args", [(), ("--check",)], ids=["build", "check"])
def test_a_fifo_at_every_entry_is_a_miss(tmp_path: Path, args: tuple[str, ...]) -> None:
    """Parsed manifests, tool modules, the registry and the tree record: every name the cache reads."""
    root = make_project(tmp_path / "p", CASES / "basic" / "contracts")
    assert _run_with_bound(root).returncode == 0
    expected = read_bytes_tree(root / "generated")
    entries = sorted((root / ".contractgen-cache").glob("*/*.json"))
    assert {e.parent.name for e in entries} >= {"parsed", "tree"}, entries
    for entry in entries:
        _fifo_at(entry)
    # stale: --check must render through every read
    (root / "generated" / "get_weather_v1.py").unlink()
    result = _run_with_bound(root, *args)
    if args:  # the stale file is reported, and only it
        assert result.returncode == 1, result.stderr
        assert "get_weather_v1.py" in result.stdout and "stale" in result.stderr, (
            result.stdout + result.stderr
        )
    else:
        assert result.returncode == 0, result.stderr
        assert "0 from cache" in result.stderr, result.stderr
        assert read_bytes_tree(root / "generated") == expected


@contextmanager
def _no_wait() -> Iterator[None]:
    """Fail, rather than hang the test run, if a read waits for a writer (the alarm interrupts it)."""

    def waited(signum: int, frame: object) -> None:
        raise pytest.fail.Exception("the cache waited on an entry that is not a regular file")

    previous = signal.signal(signal.SIGALRM, waited)
    signal.alarm(20)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_an_entry_that_is_not_a_regular_file_reads_as_absent(tmp_path: Path) -> None:
    cache = BuildCache(tmp_path / "cache")
    cache.put("tools", "fifo", "text")
    cache.put("tools", "folder", "text")
    _fifo_at(tmp_path / "cache" / "tools" / "fifo.json")
    (tmp_path / "cache" / "tools" / "folder.json").unlink()
    (tmp_path / "cache" / "tools" / "folder.json").mkdir()
    with _no_wait():
        assert cache.get("tools", "fifo") is None
        assert cache.get("tools", "folder") is None
    # an entry is replaced atomically, whatever stood there
    cache.put("tools", "fifo", "written again")
    assert cache.get("tools", "fifo") == "written again"


def _imports(module: Path) -> set[str]:
    """The compiler modules ``module`` imports, at its top or inside a function."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(module.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            found.add(node.module.split(".")[0])
        elif (
            isinstance(node, ast.ImportFrom)
            and node.level == 0
            and node.module
            and node.module.startswith("contractgen.compiler.")
        ):
            found.add(node.module.split(".")[2])
    return found


def test_cache_and_write_do_not_import_each_other() -> None:
    compiler = Path(__file__).resolve().parents[1] / "contractgen" / "compiler"
    cache, write = _imports(compiler / "cache.py"), _imports(compiler / "write.py")
    assert not ("write" in cache and "cache" in write), (sorted(cache), sorted(write))


def test_no_compiler_module_imports_itself_through_others() -> None:
    """The same rule for every module of the compiler package (its ``__init__`` re-exports, so it is left out)."""
    compiler = Path(__file__).resolve().parents[1] / "contractgen" / "compiler"
    graph = {
        p.stem: _imports(p) - {"__init__"} for p in compiler.glob("*.py") if p.stem != "__init__"
    }
    assert {"cache", "write", "pipeline"} <= set(graph)

    def cycle_from(start: str) -> list[str] | None:
        stack = [(start, [start])]
        while stack:
            module, path = stack.pop()
            for imported in sorted(graph.get(module, ())):
                if imported == start:
                    return [*path, start]
                if imported not in path:
                    stack.append((imported, [*path, imported]))
        return None

    cycles = [cycle for cycle in map(cycle_from, sorted(graph)) if cycle]
    assert not cycles, cycles
