"""The build cache is data only: a planted, foreign or damaged entry is a cache miss, never code.

A shared CI cache is enough to plant a file in ``.contractgen-cache/``; these tests plant pickles that
would create a marker file if anything unpickled them, under every name the cache reads, and check
that ``build`` and ``build --check`` never run them and produce the same bytes as a build without cache.
A cached module is code the build writes into ``generated/``, so a well-formed entry forged by someone
without the user's signing key is a miss too.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import re
import stat
from pathlib import Path

from build_support import build, make_project, read_bytes_tree
from conftest import run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contractgen.compiler.cache import CACHE_FORMAT, BuildCache, decode_entry, encode_entry, sha256

CASES = Path(__file__).resolve().parent / "cases" / "build"


class _Planted:
    """Unpickling this calls os.system, which creates the marker file."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (os.system, (f"touch '{self.marker}'",))


def _plant_everywhere(cache: Path, marker: Path) -> int:
    """Put a code-running pickle at every entry the cache holds (whatever its suffix) and beside it."""
    payload = pickle.dumps(_Planted(marker))
    planted = 0
    for entry in sorted(p for p in cache.rglob("*") if p.is_file() and p.name != ".gitignore"):
        entry.write_bytes(payload)
        entry.with_suffix(".bin").write_bytes(payload)  # the old pickle format's name
        entry.with_suffix(".pkl").write_bytes(payload)
        planted += 1
    return planted


def test_planted_pickles_never_run_during_build_or_check(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p", CASES / "basic" / "contracts")
    marker = tmp_path / "PWNED"
    assert build(root).returncode == 0
    expected = read_bytes_tree(root / "generated")
    planted = _plant_everywhere(root / ".contractgen-cache", marker)
    assert planted >= 3  # parsed manifests, tool modules, registry, tree record
    # --check first (it is the command a CI job runs against a restored cache), then a real build
    check = build(root, "--check")
    assert check.returncode == 0, check.stdout + check.stderr
    assert not marker.exists()
    (root / "generated" / "get_weather_v1.py").unlink()  # force a rebuild through every cache read
    result = build(root)
    assert result.returncode == 0, result.stderr
    assert not marker.exists()
    assert read_bytes_tree(root / "generated") == expected
    assert "Traceback" not in check.stderr + result.stderr


def test_entries_with_a_wrong_checksum_or_key_are_misses(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p", CASES / "basic" / "contracts")
    assert build(root).returncode == 0
    expected = read_bytes_tree(root / "generated")
    # rewrite every tool-module entry's payload to hostile code, keeping the JSON shape: the checksum fails
    tampered = 0
    for entry in (root / ".contractgen-cache" / "tools").glob("*.json"):
        data = json.loads(entry.read_text("utf-8"))
        data["payload"] = "import os\nos.system('touch PWNED')\n"
        entry.write_text(json.dumps(data), "utf-8")
        tampered += 1
    assert tampered >= 1
    (root / "generated" / "get_weather_v1.py").unlink()
    result = build(root)
    assert result.returncode == 0, result.stderr
    assert read_bytes_tree(root / "generated") == expected


def test_round_trip_and_binding_to_kind_and_key() -> None:
    data = encode_entry("tools", "k1", {"a": [1, 2.5, None, "x\u2028"]})
    assert decode_entry("tools", "k1", data) == {"a": [1, 2.5, None, "x\u2028"]}
    assert decode_entry("tools", "k2", data) is None  # copied under another key
    assert decode_entry("parsed", "k1", data) is None  # or another kind
    entry = json.loads(data)
    entry["version"] = 999
    assert decode_entry("tools", "k1", json.dumps(entry).encode()) is None


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=400) | st.builds(lambda s: s.encode(), st.text(max_size=200)))
def test_any_bytes_are_a_miss_or_a_checked_payload(blob: bytes) -> None:
    """Arbitrary bytes never raise and never decode unless they carry the right checksum."""
    assert decode_entry("tools", "k", blob) is None


@settings(max_examples=100, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
                    max_leaves=20), st.integers(min_value=0))
def test_flipping_any_byte_of_an_entry_is_a_miss_or_the_same_payload(payload: object, position: int) -> None:
    data = bytearray(encode_entry("parsed", "key", payload))
    index = position % len(data)
    data[index] ^= 0x20
    decoded = decode_entry("parsed", "key", bytes(data))
    assert decoded is None or decoded == payload  # e.g. a flipped space in the JSON layout


def test_cache_folder_reads_nothing_from_a_symlinked_entry(tmp_path: Path) -> None:
    cache = BuildCache(tmp_path / "cache")
    cache.put("tools", "k", "text")
    entry = tmp_path / "cache" / "tools" / "k.json"
    assert cache.get("tools", "k") == "text"
    target = tmp_path / "elsewhere.json"
    target.write_bytes(entry.read_bytes())
    entry.unlink()
    entry.symlink_to(target)
    assert cache.get("tools", "k") is None


def _listing(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): (b"->" + os.readlink(p).encode()) if p.is_symlink() else p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file() or p.is_symlink()}


def test_a_cache_reached_through_a_link_is_neither_read_nor_written(tmp_path: Path) -> None:
    """A planted link (a repository can commit one) made the build read entries from and write them into
    any folder: ``.contractgen-cache -> ~``, a kind folder linked elsewhere, or a dangling ``.gitignore``
    link, which the build followed to create a file where it pointed."""
    cached = make_project(tmp_path / "cached", CASES / "basic" / "contracts")
    assert build(cached).returncode == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep").write_text("mine", "utf-8")
    root = make_project(tmp_path / "p", CASES / "basic" / "contracts")
    reference = make_project(tmp_path / "reference", CASES / "basic" / "contracts")
    assert build(reference, "--no-cache").returncode == 0

    def whole_cache_linked(cache: Path) -> None:
        cache.symlink_to(elsewhere, target_is_directory=True)

    def kind_folders_linked(cache: Path) -> None:
        cache.mkdir()
        for kind in ("tools", "parsed", "registry", "tree"):
            (cache / kind).symlink_to(elsewhere, target_is_directory=True)

    def dangling_gitignore(cache: Path) -> None:
        cache.mkdir()
        (cache / ".gitignore").symlink_to(elsewhere / "created-by-the-build")

    for plant in (whole_cache_linked, kind_folders_linked, dangling_gitignore):
        cache = root / ".contractgen-cache"
        if cache.is_symlink():
            cache.unlink()
        elif cache.exists():
            import shutil

            shutil.rmtree(cache)
        for entry in (cached / ".contractgen-cache").rglob("*.json"):  # signed entries under the link
            (elsewhere / entry.name).write_bytes(entry.read_bytes())
        before = _listing(elsewhere)
        plant(cache)
        for args in ((), ("--check",), ()):
            result = build(root, *args)
            assert result.returncode == 0, (plant.__name__, result.stderr)
            assert plant is dangling_gitignore or _from_cache(result) == 0, (plant.__name__, result.stderr)
        assert _listing(elsewhere) == before, plant.__name__
        assert read_bytes_tree(root / "generated") == read_bytes_tree(reference / "generated")


HOSTILE = "import os\nos.system('touch PWNED')\n"


def _from_cache(result) -> int:  # type: ignore[no-untyped-def]
    found = re.search(r"(\d+) from cache", result.stderr)  # the summary line is a diagnostic
    assert found, result.stderr
    return int(found.group(1))


def _forge(entry: Path, mac: str) -> None:
    """Rewrite an entry to hostile code, well formed in every respect but ``mac``."""
    data = json.loads(entry.read_text("utf-8"))
    data["payload"] = HOSTILE
    data["hmac_sha256"] = mac
    entry.write_text(json.dumps(data), "utf-8")


def test_a_well_formed_entry_forged_without_the_key_is_a_miss(tmp_path: Path) -> None:
    """Everything an attacker who can write the cache can compute: the bare checksum the entries used
    to carry, and a MAC under a key of their own. None of it lands in ``generated/``."""
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config"), "CONTRACTGEN_CACHE_KEY": ""}
    root = make_project(tmp_path / "p", CASES / "basic" / "contracts")
    assert build(root, env=env).returncode == 0
    expected = read_bytes_tree(root / "generated")
    entries = sorted((root / ".contractgen-cache" / "tools").glob("*.json"))
    assert entries
    for forged_mac in ("bare checksum", "attacker key", "not ascii"):
        for entry in entries:
            kind, key = "tools", entry.stem
            mac = {"bare checksum": sha256(kind, key, json.dumps(HOSTILE, separators=(",", ":"))),
                   "attacker key": json.loads(encode_entry(kind, key, HOSTILE, secret=b"attacker"))["hmac_sha256"],
                   "not ascii": "\u00e9" * 64}[forged_mac]
            _forge(entry, mac)
        (root / "generated" / "get_weather_v1.py").unlink()
        result = build(root, env=env)
        assert result.returncode == 0, result.stderr
        assert read_bytes_tree(root / "generated") == expected, forged_mac
        assert _from_cache(result) == 0, forged_mac


def test_a_cache_is_shared_only_between_holders_of_the_same_key(tmp_path: Path) -> None:
    """Two machines (two configuration folders) share a cache through CONTRACTGEN_CACHE_KEY, as a CI
    secret would give it; a job holding another key, or none, rebuilds everything, with the same bytes."""
    root = make_project(tmp_path / "p", CASES / "basic" / "contracts")
    first = {"XDG_CONFIG_HOME": str(tmp_path / "machine1"), "CONTRACTGEN_CACHE_KEY": "ci-secret"}
    assert build(root, env=first).returncode == 0
    expected = read_bytes_tree(root / "generated")
    for env, hits in (({"XDG_CONFIG_HOME": str(tmp_path / "machine2"), "CONTRACTGEN_CACHE_KEY": "ci-secret"}, True),
                      ({"XDG_CONFIG_HOME": str(tmp_path / "machine2"), "CONTRACTGEN_CACHE_KEY": "other"}, False),
                      ({"XDG_CONFIG_HOME": str(tmp_path / "machine3"), "CONTRACTGEN_CACHE_KEY": ""}, False)):
        (root / "generated" / "get_weather_v1.py").unlink()
        result = build(root, env=env)
        assert result.returncode == 0, result.stderr
        assert (_from_cache(result) > 0) is hits, (env, result.stderr)
        assert read_bytes_tree(root / "generated") == expected


def test_the_user_key_is_made_once_private_and_outside_the_project(tmp_path: Path) -> None:
    config = tmp_path / "config"
    env = {"XDG_CONFIG_HOME": str(config), "CONTRACTGEN_CACHE_KEY": ""}
    root = make_project(tmp_path / "p", CASES / "basic" / "contracts")
    assert build(root, env=env).returncode == 0
    key_file = config / "contractgen" / "cache-key"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    key = key_file.read_bytes()
    assert len(key.strip()) == 64 and not any(key.strip() in p.read_bytes() for p in root.rglob("*") if p.is_file())
    (root / "generated" / "get_weather_v1.py").unlink()
    result = build(root, env=env)
    assert result.returncode == 0 and _from_cache(result) > 0  # the same user trusts its own entries
    assert key_file.read_bytes() == key


def test_an_entry_of_the_old_checksum_format_is_a_miss() -> None:
    payload = "x = 1\n"
    old = {"format": "contractgen-build-cache", "version": 1, "kind": "tools", "key": "k", "payload": payload,
           "sha256": hashlib.sha256(b"anything").hexdigest()}
    assert CACHE_FORMAT != 1 and decode_entry("tools", "k", json.dumps(old).encode()) is None


@settings(max_examples=50, deadline=None)
@given(st.binary(min_size=1, max_size=40), st.binary(min_size=1, max_size=40))
def test_an_entry_decodes_only_under_the_key_it_was_signed_with(mine: bytes, theirs: bytes) -> None:
    data = encode_entry("tools", "k", "text", secret=theirs)
    assert (decode_entry("tools", "k", data, secret=mine) == "text") is (mine == theirs)


def test_a_key_file_that_is_no_file_or_an_odd_key_never_blocks_or_breaks_the_build(tmp_path: Path) -> None:
    """The signing key was read whole from wherever its name pointed: a named pipe there blocked the
    build for good, a link to /dev/zero read without end; a key in the environment holding bytes that
    are not UTF-8 raised UnicodeEncodeError. Each is now a key for this run alone (a slower build)."""
    root = make_project(tmp_path / "p", CASES / "basic" / "contracts")
    reference = make_project(tmp_path / "reference", CASES / "basic" / "contracts")
    assert build(reference, "--no-cache").returncode == 0
    plants = {"fifo": lambda key: os.mkfifo(key), "device": lambda key: key.symlink_to("/dev/zero"),
              "folder": lambda key: key.mkdir(), "huge": lambda key: key.write_text("a" * 100_000, "ascii")}
    for name, plant in plants.items():
        key = tmp_path / f"config-{name}" / "contractgen" / "cache-key"
        key.parent.mkdir(parents=True)
        plant(key)
        result = run_cli("build", cwd=root, env={"XDG_CONFIG_HOME": str(key.parent.parent),
                                                 "CONTRACTGEN_CACHE_KEY": ""}, timeout=120)
        assert result.returncode == 0, (name, result.stderr)
        assert read_bytes_tree(root / "generated") == read_bytes_tree(reference / "generated")
    odd = run_cli("build", cwd=root, env={"CONTRACTGEN_CACHE_KEY": os.fsdecode(b"key\xff\xfe")}, timeout=120)
    assert odd.returncode == 0 and "Traceback" not in odd.stderr, odd.stderr
