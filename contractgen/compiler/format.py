"""Format generated Python with ``ruff format``, in one batch per build, with fixed settings.

Settings are passed explicitly (``--isolated``) so the output does not depend on the user's ruff
configuration; the ruff version is part of the incremental cache key.
"""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path

FORMAT_ARGS = ("format", "--isolated", "--no-cache", "--line-length", "100", "--target-version", "py310",
               "--quiet")


class FormatError(Exception):
    """ruff could not format a rendered file: a defect in a template, reported with the file's name."""


@lru_cache(maxsize=1)
def ruff_binary() -> str:
    from ruff.__main__ import find_ruff_bin  # type: ignore[import-untyped]

    return str(find_ruff_bin())


@lru_cache(maxsize=1)
def ruff_version() -> str:
    return subprocess.run([ruff_binary(), "--version"], capture_output=True, text=True, check=True).stdout.strip()


def format_sources(files: Mapping[str, str]) -> dict[str, str]:
    """Formatted copies of ``{relative path: Python source}``; one ruff process for all of them."""
    if not files:
        return {}
    with tempfile.TemporaryDirectory(prefix="contractgen-format-") as scratch:
        root = Path(scratch)
        for index, (name, text) in enumerate(sorted(files.items())):
            # numbered names: the paths are ours, and this keeps any odd name out of the filesystem
            (root / f"m{index}.py").write_text(text, "utf-8")
        result = subprocess.run([ruff_binary(), *FORMAT_ARGS, str(root)], capture_output=True, text=True,
                                check=False)
        if result.returncode != 0:
            names = {f"m{i}.py": n for i, n in enumerate(sorted(files))}
            message = result.stderr.strip()
            for numbered, name in names.items():
                message = message.replace(str(root / numbered), name)
            raise FormatError(message or "ruff format failed")
        return {name: (root / f"m{index}.py").read_text("utf-8") for index, name in enumerate(sorted(files))}
