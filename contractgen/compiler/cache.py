"""The incremental build cache in ``.contractgen-cache/``: formatted modules keyed by what they depend on.

A key hashes the inputs of one output (the manifest's bytes and path) with a salt covering everything
else that shapes output: contractgen's version and build sources, the templates, and the versions of
datamodel-code-generator and ruff. A whole-tree record lets a no-op rebuild stop after hashing files.

Entries are data only: one JSON document per entry holding a format version, its kind and key and an
HMAC-SHA256 of all three with its payload. The folder may be shared (a CI cache) or planted, and a
cached module is code the build writes into ``generated/``, so an entry counts only when it carries
a MAC made with this user's key (``signing_key``), which never lives in the cache: anything else
found there (a pickle, a truncated write, an entry copied under another key, a well-formed entry
written by someone without the key) is a cache miss, never code to run. Only regular files are read
(a FIFO or a device under an entry's name is a miss, not a wait), and entries are written atomically.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import stat
import tempfile
from collections.abc import Iterable, Mapping
from functools import lru_cache
from importlib.metadata import version as dist_version
from pathlib import Path
from typing import Any

import contractgen

CACHE_DIR_NAME = ".contractgen-cache"
#: bumped whenever the entry layout changes; other versions are misses (1 had a bare checksum)
CACHE_FORMAT = 2
#: the signing key's environment variable: set it from a CI secret to share a cache between machines
CACHE_KEY_ENV = "CONTRACTGEN_CACHE_KEY"
_KEY_FILE_PARTS = ("contractgen", "cache-key")
_FORMAT_TAG = "contractgen-build-cache"
#: an entry larger than this is not read (a real one holds one formatted module or parsed manifest)
MAX_ENTRY_BYTES = 64_000_000
# the manifest package lowers manifests into the contract values the templates render
_OWN_SOURCES = (
    "compiler", "codegen", "manifest", "runtime/contract.py", "runtime/codes.py", "naming.py", "ir.py",
)


def sha256(*parts: bytes | str) -> str:
    digest = hashlib.sha256()
    for part in parts:
        # a path from the file system may hold undecodable bytes (surrogate escapes): hash those bytes
        data = part.encode("utf-8", "surrogatepass") if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "big") + data)
    return digest.hexdigest()


@lru_cache(maxsize=1)
def build_salt() -> str:
    """Everything besides the manifests that the generated text depends on."""
    from .format import ruff_version
    from .templates import templates_digest

    package = Path(contractgen.__file__).resolve().parent
    sources: list[bytes] = []
    for entry in _OWN_SOURCES:
        path = package / entry
        files = sorted(path.rglob("*.py")) if path.is_dir() else [path]
        sources.extend(f.relative_to(package).as_posix().encode() + b"\0" + f.read_bytes() for f in files)
    return sha256(contractgen.__version__, templates_digest(), dist_version("datamodel-code-generator"),
                  ruff_version(), *sources)


#: a key file is 64 hex digits; anything much larger is not one
_MAX_KEY_BYTES = 4096


def key_file() -> Path:
    """Where the per-user signing key lives: the user's configuration folder, never the project."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base).joinpath(*_KEY_FILE_PARTS)


def signing_key() -> bytes:
    """The key cache entries are signed with: ``$CONTRACTGEN_CACHE_KEY`` when set, else this user's key
    file (made on first use, readable by the user only), else a key for this process alone (a cache
    that can be trusted by nobody else is only slower)."""
    shared = os.environ.get(CACHE_KEY_ENV)
    if shared:
        return shared.encode("utf-8", "surrogateescape")  # an environment value may hold any bytes
    return _user_key(str(key_file()))


@lru_cache(maxsize=4)
def _user_key(path_text: str) -> bytes:
    path = Path(path_text)
    try:
        if not path.exists():
            _create_key_file(path)
        # a regular file of a key's size only: a pipe or a device (a link to /dev/zero) blocked the
        # build or read without end
        if not stat.S_ISREG(path.stat().st_mode):
            raise OSError("the key file is not a regular file")
        with open(path, "rb") as handle:
            text = handle.read(_MAX_KEY_BYTES + 1).decode("ascii").strip()
        if len(text) > _MAX_KEY_BYTES:
            raise OSError("the key file is too large")
    except (OSError, UnicodeDecodeError):
        text = ""
    if len(text) < 32:  # unreadable or not ours: never guess, never overwrite the user's file
        return secrets.token_bytes(32)
    return text.encode("ascii")


def _create_key_file(path: Path) -> None:
    """Write a new random key to ``path``, atomically: a concurrent build either wins or reads it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-key-")  # mode 0600
    try:
        with os.fdopen(handle, "w", encoding="ascii") as stream:
            stream.write(secrets.token_hex(32) + "\n")
        try:
            os.link(temp, path)  # unlike a rename, never replaces a key another build just made
        except FileExistsError:
            pass
    finally:
        os.unlink(temp)


def _payload_text(payload: Any) -> str:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))  # order kept: it is data


def _mac(secret: bytes, kind: str, key: str, payload: Any) -> str:
    return hmac.new(secret, sha256(kind, key, _payload_text(payload)).encode("ascii"), "sha256").hexdigest()


def encode_entry(kind: str, key: str, payload: Any, secret: bytes | None = None) -> bytes:
    """One cache entry as JSON bytes: format version, kind, key, payload and the MAC of all of them
    under ``secret`` (default: ``signing_key()``)."""
    mac = _mac(signing_key() if secret is None else secret, kind, key, payload)
    entry = {"format": _FORMAT_TAG, "version": CACHE_FORMAT, "kind": kind, "key": key, "hmac_sha256": mac,
             "payload": payload}
    return json.dumps(entry, ensure_ascii=False).encode("utf-8")


def decode_entry(kind: str, key: str, data: bytes, secret: bytes | None = None) -> Any:
    """The payload of an entry ``encode_entry`` wrote for (kind, key) with the same secret; ``None``
    for anything else."""
    try:
        entry = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not (isinstance(entry, dict) and entry.get("format") == _FORMAT_TAG and entry.get("version") == CACHE_FORMAT
            and entry.get("kind") == kind and entry.get("key") == key and "payload" in entry
            and isinstance(entry.get("hmac_sha256"), str)):
        return None
    payload = entry["payload"]
    try:
        expected = _mac(signing_key() if secret is None else secret, kind, key, payload)
    except (ValueError, RecursionError):
        return None
    return payload if hmac.compare_digest(entry["hmac_sha256"].encode("utf-8"), expected.encode("ascii")) else None


class BuildCache:
    def __init__(self, root: Path | None) -> None:
        self.root = root

    def _path(self, kind: str, key: str) -> Path:
        assert self.root is not None
        return self.root / kind / f"{key}.json"

    def get_value(self, kind: str, key: str) -> Any:
        """The JSON payload stored under (kind, key), or ``None`` (absent, damaged or foreign)."""
        if self.root is None:
            return None
        path = self._path(kind, key)
        try:
            if self._linked(path):
                return None
            data = _read_regular(path, MAX_ENTRY_BYTES)
        except OSError:
            return None
        return None if data is None else decode_entry(kind, key, data)

    def put_value(self, kind: str, key: str, payload: Any) -> None:
        if self.root is not None:
            try:
                data = encode_entry(kind, key, payload)
            except (TypeError, ValueError, RecursionError):
                return  # not JSON data: not cached
            self._write(self._path(kind, key), data)

    def get(self, kind: str, key: str) -> str | None:
        text = self.get_value(kind, key)
        return text if isinstance(text, str) else None

    def put(self, kind: str, key: str, text: str) -> None:
        self.put_value(kind, key, text)

    def tree_record(self) -> dict[str, object] | None:
        record = self.get_value("tree", "last")
        return record if isinstance(record, dict) else None

    def put_tree_record(self, tree_key: str, files: Mapping[str, str]) -> None:
        self.put_value("tree", "last", {"key": tree_key,
                                        "files": {name: sha256(text) for name, text in sorted(files.items())}})

    def _linked(self, path: Path) -> bool:
        """Whether the entry, its kind folder or the cache folder is a symbolic link. A planted link
        (``.contractgen-cache -> ~``, ``tools -> /elsewhere``) would have the build read entries from
        and write them into a folder outside the cache: such a cache is not used."""
        assert self.root is not None
        return path.is_symlink() or path.parent.is_symlink() or self.root.is_symlink()

    def _write(self, path: Path, data: bytes) -> None:
        assert self.root is not None
        try:
            if self._linked(path):
                return
            path.parent.mkdir(parents=True, exist_ok=True)
            if self._linked(path):  # made a link between the check and the folder
                return
            try:  # "x" refuses any existing name, a dangling link included: it is never followed
                with open(self.root / ".gitignore", "x", encoding="utf-8") as ignore:
                    ignore.write("*\n")
            except FileExistsError:
                pass
            handle, temp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            try:
                with os.fdopen(handle, "wb") as stream:
                    stream.write(data)
                os.replace(temp, path)
            except OSError:
                os.unlink(temp)
                raise
        except OSError:
            pass  # a cache that cannot be written only costs speed


def _read_regular(path: Path, limit: int) -> bytes | None:
    """The bytes of ``path`` when it is a regular file of at most ``limit`` bytes, else ``None``.

    The opened file is what is checked, not the name: opening never waits (a FIFO planted under an
    entry's name hung the build until a writer came) and never follows a final link."""
    handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(handle, "rb") as stream:
        info = os.fstat(handle)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        data = stream.read(limit + 1)
    return data if len(data) <= limit else None


def tree_key(manifests: Iterable[Path], output: Path, extra: str = "") -> str:
    """Hash of every manifest file (path and bytes), the output location and the build salt."""
    from ..manifest.caps import read_capped

    parts: list[bytes | str] = [build_salt(), output.as_posix(), extra]
    for path in sorted(manifests):
        data: bytes | int | str
        try:
            data = read_capped(path)
        except OSError as exc:  # the build reports it; the key only has to differ
            data = f"unreadable: {exc}"
        parts += [path.as_posix(), data if isinstance(data, (bytes, str)) else f"too large: {data}"]
    return sha256(*parts)
