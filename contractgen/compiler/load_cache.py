"""Loading manifests for a build, with each file's parse result cached by its bytes.

Parsing (YAML with positions) is per file and pure, so a file whose bytes did not change is not
parsed again; every manifest still goes through ``load_parsed`` (all checks, including the ones
across manifests), so diagnostics are exactly those of ``load_contracts``. A parse result is cached
as plain JSON data (see ``cache.py``) and rebuilt field by field, checking every type on the way.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import contractgen

from ..diagnostics import Diagnostic, Level
from ..manifest.caps import read_capped
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
            raw = read_capped(path)
        except OSError:
            raw = None
        if not isinstance(raw, bytes):  # too large or unreadable: read_manifest reports it, unread
            parsed.append(read_manifest(path))
            continue
        key = sha256(parser_salt(), str(path), raw)
        item = parsed_from_data(cache.get_value("parsed", key), str(path))
        if item is None:
            item = read_manifest(path)
            cache.put_value("parsed", key, parsed_to_data(item))
        parsed.append(item)
    return load_parsed(parsed, diagnostics)


def parsed_to_data(item: ParsedFile) -> dict[str, Any]:
    return {
        "path": item.path,
        "value": item.value,
        "positions": {k: list(v) for k, v in item.positions.items()},
        "key_positions": {k: list(v) for k, v in item.key_positions.items()},
        "diagnostics": [d.to_dict() for d in item.diagnostics],
    }


def parsed_from_data(data: Any, path: str) -> ParsedFile | None:
    """The ``ParsedFile`` that ``parsed_to_data`` wrote for ``path``; ``None`` for anything else."""
    if not isinstance(data, dict) or data.get("path") != path:
        return None
    positions, key_positions = _positions(data.get("positions")), _positions(data.get("key_positions"))
    raw_diagnostics = data.get("diagnostics")
    if positions is None or key_positions is None or not isinstance(raw_diagnostics, list):
        return None
    diagnostics = [_diagnostic(d) for d in raw_diagnostics]
    if any(d is None for d in diagnostics):
        return None
    return ParsedFile(path, data.get("value"), positions, key_positions,
                      [d for d in diagnostics if d is not None])


def _positions(data: Any) -> dict[str, tuple[int, int]] | None:
    if not isinstance(data, dict):
        return None
    out: dict[str, tuple[int, int]] = {}
    for pointer, place in data.items():
        if not (isinstance(place, list) and len(place) == 2 and all(type(n) is int for n in place)):
            return None
        out[pointer] = (place[0], place[1])
    return out


def _diagnostic(data: Any) -> Diagnostic | None:
    def text(name: str, optional: bool = False) -> bool:
        value = data.get(name)
        return isinstance(value, str) or (optional and value is None)

    def number(name: str) -> bool:
        return data.get(name) is None or type(data.get(name)) is int

    if not (isinstance(data, dict) and all(text(n) for n in ("file", "pointer", "message", "code"))
            and text("hint", optional=True) and number("line") and number("column")
            and data.get("level") in {level.value for level in Level}):
        return None
    return Diagnostic(data["file"], data["pointer"], data["message"], level=Level(data["level"]),
                      line=data["line"], column=data["column"], hint=data["hint"], code=data["code"])
