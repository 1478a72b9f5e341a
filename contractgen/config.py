"""Project settings from ``[tool.contractgen]`` in the nearest ``pyproject.toml``; flags override them."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib


@dataclass(frozen=True)
class Config:
    root: Path
    contracts: Path
    output: Path
    package: str = "generated"
    #: the [tool.contractgen.diff] table, read by the diff command
    diff: dict[str, Any] = field(default_factory=dict)
    #: list each tool's parameters (and result fields) in its description, for hosts that drop the
    #: input schema's descriptions; off by default, since every export carries the schema
    describe_parameters: bool = False


def find_pyproject(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def load_config(start: Path | None = None) -> Config:
    cwd = (start or Path.cwd()).resolve()
    pyproject = find_pyproject(cwd)
    table: dict[str, Any] = {}
    root = cwd
    if pyproject is not None:
        try:
            table = tomllib.loads(pyproject.read_text("utf-8")).get("tool", {}).get("contractgen", {})
            root = pyproject.parent
        except (OSError, tomllib.TOMLDecodeError):
            table = {}
    if not table:
        root = cwd
    contracts = Path(table.get("contracts", "contracts"))
    output = Path(table.get("output", "generated"))
    return Config(
        root=root,
        contracts=_relative_to_cwd(root / contracts, cwd),
        output=_relative_to_cwd(root / output, cwd),
        package=str(table.get("package", output.name)),
        diff=dict(table.get("diff", {})),
        describe_parameters=table.get("describe_parameters") is True,
    )


def _relative_to_cwd(path: Path, cwd: Path) -> Path:
    # The last part is kept as named (not resolved): a symlinked output must be seen as one.
    absolute = Path(os.path.abspath(path))
    if absolute.name:
        absolute = absolute.parent.resolve() / absolute.name
    try:
        return absolute.relative_to(cwd)
    except ValueError:
        return absolute
