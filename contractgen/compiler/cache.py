"""The incremental build cache in ``.contractgen-cache/``: formatted modules keyed by what they depend on.

A key hashes the inputs of one output (the manifest's bytes and path) with a salt covering everything
else that shapes output: contractgen's version and build sources, the templates, and the versions of
datamodel-code-generator and ruff. A whole-tree record lets a no-op rebuild stop after hashing files.
Entries are written atomically; an unreadable cache is simply a cache miss.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from functools import lru_cache
from importlib.metadata import version as dist_version
from pathlib import Path

import contractgen

CACHE_DIR_NAME = ".contractgen-cache"
# the manifest package lowers manifests into the contract values the templates render
_OWN_SOURCES = (
    "compiler", "codegen", "manifest", "runtime/contract.py", "runtime/codes.py", "naming.py", "ir.py",
)


def sha256(*parts: bytes | str) -> str:
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8") if isinstance(part, str) else part
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


class BuildCache:
    def __init__(self, root: Path | None) -> None:
        self.root = root

    def get(self, kind: str, key: str) -> str | None:
        if self.root is None:
            return None
        try:
            return (self.root / kind / f"{key}.txt").read_text("utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    def put(self, kind: str, key: str, text: str) -> None:
        if self.root is not None:
            self._write(self.root / kind / f"{key}.txt", text)

    def get_bytes(self, kind: str, key: str) -> bytes | None:
        if self.root is None:
            return None
        try:
            return (self.root / kind / f"{key}.bin").read_bytes()
        except OSError:
            return None

    def put_bytes(self, kind: str, key: str, data: bytes) -> None:
        if self.root is not None:
            self._write(self.root / kind / f"{key}.bin", data)

    def tree_record(self) -> dict[str, object] | None:
        text = self.get("tree", "last")
        if text is None:
            return None
        try:
            record = json.loads(text)
        except ValueError:
            return None
        return record if isinstance(record, dict) else None

    def put_tree_record(self, tree_key: str, files: Mapping[str, str]) -> None:
        self.put("tree", "last", json.dumps(
            {"key": tree_key, "files": {name: sha256(text) for name, text in sorted(files.items())}},
            indent=1, sort_keys=True))

    def _write(self, path: Path, text: str | bytes) -> None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            if not (self.root / ".gitignore").exists():  # type: ignore[operator]
                (self.root / ".gitignore").write_text("*\n", "utf-8")  # type: ignore[operator]
            handle, temp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            with os.fdopen(handle, "wb") as stream:
                stream.write(text.encode("utf-8") if isinstance(text, str) else text)
            os.replace(temp, path)
        except OSError:
            pass  # a cache that cannot be written only costs speed


def tree_key(manifests: Iterable[Path], output: Path, extra: str = "") -> str:
    """Hash of every manifest file (path and bytes), the output location and the build salt."""
    parts: list[bytes | str] = [build_salt(), output.as_posix(), extra]
    for path in sorted(manifests):
        parts += [path.as_posix(), path.read_bytes()]
    return sha256(*parts)


def tree_matches(output: Path, record: Mapping[str, object]) -> bool:
    """Whether ``output`` holds exactly the files the record lists, with the same content hashes."""
    from .write import read_tree

    files = record.get("files")
    if not isinstance(files, dict):
        return False
    present = read_tree(output)
    return set(present) == set(files) and all(sha256(present[n]) == h for n, h in files.items())
