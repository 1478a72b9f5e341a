"""The output folder is never the sources, never a symlink, and always the old or the new tree.

A build refuses (exit 2, nothing touched) an output that is a symlink or is, contains or lies inside
the contracts folder or the project root, or holds files contractgen did not generate. ``build`` is
killed with SIGKILL at injected points of the swap (before, between and after the renames or the
exchange, while deleting the old tree) and at random times; the output is then exactly the old or the
new tree, and the next build recovers and leaves nothing behind.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from build_support import build, make_project, read_bytes_tree
from conftest import run_cli

CASES = Path(__file__).resolve().parent / "cases" / "build"


@pytest.fixture(scope="module")
def built_basic(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The basic case built once (generated/, deep/generated/ and the build cache) for the tests that
    only need a project some build already wrote: each takes a copy (``_copy_of``), never this one."""
    root = make_project(tmp_path_factory.mktemp("built") / "p", CASES / "basic" / "contracts")
    assert build(root).returncode == 0
    assert build(root, "--output", "deep/generated").returncode == 0
    return root


def _copy_of(built: Path, dest: Path) -> Path:
    """A copy of a built project at ``dest`` (links copied as links)."""
    shutil.copytree(built, dest, symlinks=True)
    return dest


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): (b"->" + os.readlink(p).encode()) if p.is_symlink() else p.read_bytes()
            for p in sorted(root.rglob("*")) if (p.is_file() or p.is_symlink())
            and ".contractgen-cache" not in p.parts and "__pycache__" not in p.parts}


@pytest.mark.parametrize("output", [".", "contracts", "contracts/inner", "..", "/"])
def test_output_overlapping_the_sources_is_refused_and_nothing_is_touched(tmp_path: Path, output: str) -> None:
    root = make_project(tmp_path / "p", CASES / "basic" / "contracts")
    before = _snapshot(tmp_path)
    result = build(root, "--output", output)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert "expected an output folder apart from the sources" in result.stderr, result.stderr
    assert "hint:" in result.stderr
    assert _snapshot(tmp_path) == before


@pytest.mark.parametrize("output", [".contractgen-cache", ".contractgen-cache/tools", "sub/../.contractgen-cache/x"])
@pytest.mark.parametrize("cached", [False, True], ids=["no-cache-yet", "cache-present"])
def test_output_in_the_build_cache_is_refused(tmp_path: Path, output: str, cached: bool, built_basic: Path) -> None:
    """With no cache yet, --output .contractgen-cache was accepted: the build's cache then lived in the
    generated package and every build rewrote it (never up to date; --check always failed)."""
    if cached:  # a project a build already wrote, its cache included
        root = _copy_of(built_basic, tmp_path / "p")
        assert any((root / ".contractgen-cache").iterdir())
    else:
        root = make_project(tmp_path / "p", CASES / "basic" / "contracts")
    (root / "sub").mkdir()
    before = _snapshot(tmp_path)
    cache = sorted(p.relative_to(root).as_posix() for p in (root / ".contractgen-cache").rglob("*")) if cached else []
    result = build(root, "--output", output)
    assert result.returncode == 2, result.stderr
    assert "expected an output folder apart from the build cache" in result.stderr and "hint:" in result.stderr
    assert _snapshot(tmp_path) == before
    assert cache == (sorted(p.relative_to(root).as_posix() for p in (root / ".contractgen-cache").rglob("*"))
                     if cached else [])


def test_output_dot_in_pyproject_run_from_a_subfolder_is_refused(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p", CASES / "basic" / "contracts")
    (root / "pyproject.toml").write_text('[tool.contractgen]\ncontracts = "contracts"\noutput = "."\n', "utf-8")
    before = _snapshot(tmp_path)
    result = build(root / "contracts")
    assert result.returncode == 2 and "which is the project root" in result.stderr, result.stderr
    assert _snapshot(tmp_path) == before


@pytest.mark.parametrize("target", ["real", "dangling", "contracts"])
def test_a_symlinked_output_is_diagnosed_never_replaced(tmp_path: Path, target: str) -> None:
    root = make_project(tmp_path / "p", CASES / "basic" / "contracts")
    link = root / "generated"
    if target == "real":
        (tmp_path / "real").mkdir()
        link.symlink_to(tmp_path / "real")
    elif target == "dangling":
        link.symlink_to(tmp_path / "nowhere")
    else:
        link.symlink_to(root / "contracts")
    before = _snapshot(tmp_path)
    for args in ((), ("--check",)):
        result = build(root, *args)
        assert result.returncode == 2, result.stderr
        assert "expected the output to be a real folder (got a symlink" in result.stderr, result.stderr
        assert link.is_symlink()
    assert _snapshot(tmp_path) == before


@pytest.mark.parametrize("output", ["vendor/generated", "vendor/deep/generated", "vendor/../generated2",
                                    "sub/vendor/generated"])
def test_an_output_reached_through_a_symlinked_folder_is_refused(tmp_path: Path, output: str,
                                                                 built_basic: Path) -> None:
    """Only the output's own name was checked for a link: with ``vendor -> ../other`` committed in a
    repository, ``output = "vendor/generated"`` replaced ``../other/generated`` (a tree contractgen
    generated there is accepted as its own) or wrote outside the project."""
    root = make_project(tmp_path / "p", CASES / "basic" / "contracts")
    other = _copy_of(built_basic, tmp_path / "other")  # generated/ and deep/generated/ written by builds
    (root / "sub").mkdir()
    (root / "vendor").symlink_to(other, target_is_directory=True)
    (root / "sub" / "vendor").symlink_to(other, target_is_directory=True)
    before = _snapshot(tmp_path)
    for args in ((), ("--check",)):
        result = build(root, "--output", output, *args)
        assert result.returncode == 2, result.stderr
        assert "expected the output to be a real folder (got a symlink" in result.stderr, result.stderr
        assert "vendor is a symlink" in result.stderr
    assert _snapshot(tmp_path) == before
    assert build(root, "--output", "real/generated").returncode == 0  # a real folder path still builds


def test_a_folder_of_other_files_is_not_deleted(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p", CASES / "basic" / "contracts")
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("print('mine')\n")
    before = _snapshot(tmp_path)
    result = build(root, "--output", "src")
    assert result.returncode == 2 and "which a build would delete" in result.stderr, result.stderr
    assert _snapshot(tmp_path) == before
    assert build(root, "--output", "fresh").returncode == 0  # an empty or missing folder is fine
    assert build(root, "--output", "fresh").returncode == 0  # and so is one it generated


# --- kill -9 during the swap ---------------------------------------------------------------------

_HOOK = r'''
import os, shutil, sys, time
import contractgen.compiler.write as write

def announce(point):
    sys.stderr.write(f"HOOK {point}\n"); sys.stderr.flush()
    target = os.environ.get("HOOK_AT")
    if target and target in point:  # hold still only where the test is about to kill us
        time.sleep(float(os.environ.get("HOOK_SLEEP", "0")))

if os.environ.get("HOOK_NO_EXCHANGE"):
    write._exchange = None
real_rename, real_rmtree, real_exchange = os.rename, shutil.rmtree, write._exchange

def rename(a, b, *args, **kwargs):
    announce(f"before-rename {os.path.basename(a)} -> {os.path.basename(b)}")
    real_rename(a, b, *args, **kwargs)
    announce(f"after-rename {os.path.basename(b)}")

def rmtree(path, *args, **kwargs):
    announce("before-rmtree")
    real_rmtree(path, *args, **kwargs)

if real_exchange is not None:
    def exchange(a, b):
        announce("before-exchange")
        done = real_exchange(a, b)
        announce("after-exchange")
        return done
    write._exchange = exchange
os.rename, shutil.rmtree = rename, rmtree
'''


def _hooked_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    hook_dir = tmp_path / "hook"
    hook_dir.mkdir(exist_ok=True)
    (hook_dir / "sitecustomize.py").write_text(_HOOK, "utf-8")
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(hook_dir), *filter(None, [os.environ.get("PYTHONPATH")])]),
            **extra}


def _edit_summary(root: Path) -> None:
    manifest = next((root / "contracts").rglob("*.yaml"))
    manifest.write_text(manifest.read_text().replace("Current weather for a city.", "Weather now, for a city."))


@pytest.fixture(scope="module")
def swap_trees(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, bytes], dict[str, bytes]]:
    """Tree A (the basic case built) and tree B (built after ``_edit_summary``), built once."""
    root = make_project(tmp_path_factory.mktemp("trees") / "p", CASES / "basic" / "contracts")
    assert build(root, "--no-cache").returncode == 0
    old = read_bytes_tree(root / "generated")
    _edit_summary(root)
    assert build(root, "--no-cache").returncode == 0
    new = read_bytes_tree(root / "generated")
    assert new != old
    return old, new


def _put_tree(folder: Path, tree: dict[str, bytes]) -> None:
    """``folder`` holding exactly ``tree`` (what a build wrote there before)."""
    subprocess.run(["rm", "-rf", str(folder)], check=True)
    for name, data in tree.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)


def _two_trees(tmp_path: Path, trees: tuple[dict[str, bytes], dict[str, bytes]]) -> tuple[Path, dict[str, bytes], dict[str, bytes]]:
    """A project whose generated/ holds tree A, with manifests that build tree B."""
    root = make_project(tmp_path / "p", CASES / "basic" / "contracts")
    old, new = trees
    _put_tree(root / "generated", old)
    _edit_summary(root)
    return root, old, new


def _kill_at(root: Path, env: dict[str, str], point: str | None, delay: float) -> None:
    """Run build; SIGKILL it when it announces ``point`` (or after ``delay`` seconds when None)."""
    env = {**env, "HOOK_AT": point} if point is not None else env
    proc = subprocess.Popen([sys.executable, "-m", "contractgen", "build", "--no-cache"], cwd=root, env=env,
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    try:
        if point is None:
            time.sleep(delay)
        else:
            assert proc.stderr is not None
            for line in proc.stderr:
                if line.startswith("HOOK ") and point in line:
                    break
            else:
                pytest.fail(f"build never reached {point!r}")
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=120)
        if proc.stderr is not None:
            proc.stderr.close()


POINTS = ["before-exchange", "after-exchange", "before-rmtree", "before-rename", "after-rename generated",
          "after-rename .generated.old"]


@pytest.mark.parametrize("no_exchange", [False, True], ids=["exchange", "two-renames"])
def test_kill_at_every_point_of_the_swap_leaves_the_old_or_the_new_tree(
        tmp_path: Path, no_exchange: bool, swap_trees: tuple[dict[str, bytes], dict[str, bytes]]) -> None:
    root, old, new = _two_trees(tmp_path, swap_trees)
    flags = {"HOOK_NO_EXCHANGE": "1"} if no_exchange else {}
    env = _hooked_env(tmp_path, HOOK_SLEEP="30", **flags)
    points = [p for p in POINTS if ("exchange" in p) != no_exchange or p == "before-rmtree"]
    for point in points:
        _put_tree(root / "generated", old)  # start from the old tree each time
        _kill_at(root, env, point, 0)
        seen = read_bytes_tree(root / "generated") if (root / "generated").is_dir() else None
        if seen is None and no_exchange and point.startswith("after-rename .generated.old"):
            # the one window of the two-rename swap: the next build puts the old tree back
            code = ("import sys; from pathlib import Path; "
                    "from contractgen.compiler.write import recover_interrupted_swap; "
                    "recover_interrupted_swap(Path(sys.argv[1]))")
            recovered = subprocess.run([sys.executable, "-c", code, str(root / "generated")],
                                       check=False, capture_output=True, text=True)
            assert recovered.returncode == 0, recovered.stderr
            seen = read_bytes_tree(root / "generated")
        assert seen in (old, new), point
        result = build(root, "--no-cache")
        assert result.returncode == 0, result.stderr
        assert read_bytes_tree(root / "generated") == new
        assert not [p.name for p in root.iterdir() if p.name.startswith(".generated.")], point


def test_kill_at_random_times_always_finds_the_old_or_the_new_tree(
        tmp_path: Path, swap_trees: tuple[dict[str, bytes], dict[str, bytes]]) -> None:
    root, old, new = _two_trees(tmp_path, swap_trees)
    rng = random.Random(int(os.environ.get("KILL_SEED", "7")))
    env = {**os.environ}
    started = time.monotonic()
    probe = subprocess.run([sys.executable, "-m", "contractgen", "build", "--no-cache", "--output", "probe"],
                           cwd=root, env=env, capture_output=True, check=False)
    assert probe.returncode == 0
    duration = time.monotonic() - started
    outcomes = {"old": 0, "new": 0}
    for _ in range(6):
        _kill_at(root, env, None, rng.uniform(0.3 * duration, 1.1 * duration))
        seen = read_bytes_tree(root / "generated")
        assert seen in (old, new)
        outcomes["old" if seen == old else "new"] += 1
        if seen == new:  # go back to the old tree for the next round
            _put_tree(root / "generated", old)
    assert outcomes["old"] + outcomes["new"] == 6
    assert build(root, "--no-cache").returncode == 0  # and a completed build cleans up after the kills
    assert read_bytes_tree(root / "generated") == new
    assert not [p.name for p in root.iterdir() if p.name.startswith(".generated.")]


def test_links_and_odd_files_planted_in_the_output_are_never_followed(tmp_path: Path, built_basic: Path) -> None:
    """--check read every file of the output to compare it, following links: ``leak.py -> a secret``
    printed the secret in the diff (a CI log), a link to /dev/zero read without end and a named pipe
    blocked for good. Each is now compared as what it is, and the build replaces it."""
    root = _copy_of(built_basic, tmp_path / "p")
    secret = tmp_path / "secret.txt"
    secret.write_text("TOPSECRET-1234\n", "utf-8")
    generated = root / "generated"
    (generated / "leak.py").symlink_to(secret)
    (generated / "zero.py").symlink_to("/dev/zero")
    os.mkfifo(generated / "pipe.py")
    checked = run_cli("build", "--check", cwd=root, timeout=120)
    assert checked.returncode == 1, checked.stderr
    assert "TOPSECRET" not in checked.stdout + checked.stderr
    assert "--- generated/leak.py" in checked.stdout and "a symbolic link to" in checked.stdout
    assert "--- generated/pipe.py" in checked.stdout and "--- generated/zero.py" in checked.stdout
    built = run_cli("build", cwd=root, timeout=120)
    assert built.returncode == 0, built.stderr
    assert not {"leak.py", "zero.py", "pipe.py"} & set(os.listdir(generated))
    assert secret.read_text("utf-8") == "TOPSECRET-1234\n"
    assert run_cli("build", "--check", cwd=root, timeout=120).returncode == 0


def _limited_files(limit: int) -> None:
    """In the child: no file may grow past ``limit`` bytes, and a write past it fails with EFBIG
    instead of killing the process (a full disk, without root or a tiny tmpfs)."""
    import resource

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


def test_a_full_disk_at_any_stage_is_a_diagnostic_and_leaves_the_output_as_it_was(tmp_path: Path) -> None:
    """With files capped at a few kilobytes, writing the formatter's scratch copies raised OSError out of
    ``build`` (a traceback, exit 1), and a failed scratch write of the model generator was reported as
    a schema it 'cannot model' with the hint to simplify the schema. Every limit, from nothing writable
    to enough, now ends in exit 0 with the new tree or exit 2 with a diagnostic and the old tree."""
    root = make_project(tmp_path / "p", CASES / "basic" / "contracts")
    assert build(root).returncode == 0
    before = read_bytes_tree(root / "generated")
    manifest = next((root / "contracts").rglob("*.yaml"))
    manifest.write_text(manifest.read_text("utf-8").replace("description:", "description: Changed.", 1), "utf-8")
    outcomes = set()
    for limit in (0, 512, 1024, 2048, 4096, 8192, 1 << 20):
        result = subprocess.run([sys.executable, "-m", "contractgen", "build", "--no-cache"], cwd=root, text=True,
                                capture_output=True, preexec_fn=lambda limit=limit: _limited_files(limit), check=False)
        assert "Traceback" not in result.stderr and result.returncode in (0, 2), (limit, result.stderr)
        outcomes.add(result.returncode)
        if result.returncode == 2:
            assert read_bytes_tree(root / "generated") == before, limit
            assert "scratch files" in result.stderr or "not written (" in result.stderr, result.stderr
            assert "simplify the schema" not in result.stderr
        assert not [p for p in root.iterdir() if p.name.startswith(".generated")], limit
    assert outcomes == {0, 2}  # the limits reach both ends
