"""Put a rendered tree on disk atomically, or compare it with what is there.

The whole tree is written into a fresh folder beside the output and swapped in with two renames, so a
failed build never leaves a half-written ``generated/``, files of removed tools disappear, and every
path is checked to stay inside the output folder before anything touches the disk.
"""

from __future__ import annotations

import difflib
import os
import re
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

_SAFE_PART = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")
_IGNORED_DIRS = frozenset({"__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache"})


class UnsafePathError(ValueError):
    """A rendered path that would land outside the output folder (or is otherwise not a plain name)."""


def check_relative_path(relative: str) -> PurePosixPath:
    path = PurePosixPath(relative)
    if path.is_absolute() or not path.parts or any(not _SAFE_PART.match(p) or p in (".", "..")
                                                   for p in path.parts):
        raise UnsafePathError(f"expected a plain relative file name inside the output folder (got {relative!r})")
    return path


def read_tree(output: Path) -> dict[str, str]:
    """``{relative posix path: text}`` of what is in ``output`` now (caches and bytecode ignored)."""
    if not output.is_dir():
        return {}
    found: dict[str, str] = {}
    for root, dirs, names in os.walk(output):
        dirs[:] = sorted(d for d in dirs if d not in _IGNORED_DIRS)
        for name in sorted(names):
            if name.endswith((".pyc", ".pyo")):
                continue
            path = Path(root) / name
            try:
                found[path.relative_to(output).as_posix()] = path.read_text("utf-8")
            except (UnicodeDecodeError, OSError):
                found[path.relative_to(output).as_posix()] = "<unreadable>\n"
    return found


def tree_diff(current: Mapping[str, str], wanted: Mapping[str, str], label: str) -> str:
    """Unified diff turning ``current`` into ``wanted``; empty when they are equal."""
    chunks: list[str] = []
    for name in sorted(set(current) | set(wanted)):
        before, after = current.get(name), wanted.get(name)
        if before == after:
            continue
        chunks.extend(difflib.unified_diff(
            (before or "").splitlines(keepends=True), (after or "").splitlines(keepends=True),
            fromfile=f"{label}/{name}" if before is not None else "/dev/null",
            tofile=f"{label}/{name} (fresh build)" if after is not None else "/dev/null",
        ))
        if chunks and not chunks[-1].endswith("\n"):
            chunks.append("\n")
    return "".join(chunks)


def write_tree(output: Path, files: Mapping[str, str]) -> bool:
    """Make ``output`` hold exactly ``files``; return False when it already did (nothing written)."""
    checked = {name: check_relative_path(name) for name in files}
    if output.exists() and not output.is_dir():
        raise NotADirectoryError(f"expected the output to be a folder (got a file at {output})")
    if read_tree(output) == dict(files) and set(os.listdir(output)) <= {*(p.parts[0] for p in checked.values()),
                                                                         *_IGNORED_DIRS}:
        return False
    parent = output.resolve().parent
    parent.mkdir(parents=True, exist_ok=True)
    fresh = Path(tempfile.mkdtemp(prefix=f".{output.name}.new-", dir=parent))
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(fresh, 0o777 & ~umask)
        for name, relative in sorted(checked.items()):
            target = fresh.joinpath(*relative.parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            with open(target, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(files[name])
        if output.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{output.name}.old-", dir=parent))
            os.rmdir(old)
            os.rename(output, old)
            try:
                os.rename(fresh, output)
            except OSError:
                os.rename(old, output)  # put the previous tree back before reporting
                raise
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.rename(fresh, output)
    except BaseException:
        shutil.rmtree(fresh, ignore_errors=True)
        raise
    return True
