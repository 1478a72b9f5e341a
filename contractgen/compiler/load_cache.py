"""Loading manifests for a build, with each file's parse result cached by its bytes.

Parsing (YAML with positions) is per file and pure, so a file whose bytes did not change is not
parsed again; every manifest still goes through ``load_parsed`` (all checks, including the ones
across manifests), so diagnostics are exactly those of ``load_contracts``.
"""

from __future__ import annotations

import pickle
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import contractgen

from ..manifest.load import LoadResult, discover_manifests, load_parsed, read_manifest
from ..manifest.parse import ParsedFile
from .cache import BuildCache, sha256


@lru_cache(maxsize=1)
def parser_salt() -> str:
    package = Path(contractgen.__file__).resolve().parent
    sources = sorted((package / "manifest").glob("*.py")) + [package / "diagnostics.py"]
    return sha256(contractgen.__version__, *(p.name.encode() + b"\0" + p.read_bytes() for p in sources))


def load_for_build(paths: Sequence[Path], cache: BuildCache) -> LoadResult:
    """``load_contracts(paths)``, reusing cached parses of unchanged files."""
    files, diagnostics = discover_manifests(paths)
    parsed: list[ParsedFile] = []
    for path in files:
        try:
            raw = path.read_bytes()
        except OSError:
            parsed.append(read_manifest(path))  # it reports the problem as a diagnostic
            continue
        key = sha256(parser_salt(), str(path), raw)
        hit = cache.get_bytes("parsed", key)
        item = _unpickle(hit) if hit is not None else None
        if item is None:
            item = read_manifest(path)
            cache.put_bytes("parsed", key, pickle.dumps(item, protocol=pickle.HIGHEST_PROTOCOL))
        parsed.append(item)
    return load_parsed(parsed, diagnostics)


def _unpickle(data: bytes) -> ParsedFile | None:
    try:
        item = pickle.loads(data)  # our own cache folder, written by this function only
    except Exception:  # noqa: BLE001 - a damaged cache entry is a miss
        return None
    return item if isinstance(item, ParsedFile) else None
