"""Project settings from ``[tool.contractgen]`` in the nearest ``pyproject.toml``; flags override them."""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .diagnostics import Diagnostic

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
    #: what is wrong with the table (printed by the CLI, exit 2): never silently read as a default
    problems: tuple[Diagnostic, ...] = ()


def find_pyproject(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


_KEYS = {"contracts": str, "output": str, "package": str, "describe_parameters": bool, "diff": dict}


def load_config(start: Path | None = None) -> Config:
    cwd = (start or Path.cwd()).resolve()
    pyproject = find_pyproject(cwd)
    table: dict[str, Any] = {}
    root = cwd
    problems: list[Diagnostic] = []
    if pyproject is not None:
        where = os.path.relpath(pyproject, cwd)
        try:
            raw = tomllib.loads(pyproject.read_text("utf-8")).get("tool", {}).get("contractgen", {})
            root = pyproject.parent
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raw = {}
            at = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
            problems.append(Diagnostic(where, "", f"expected a readable TOML file (got {exc})", code="invalid-config",
                                       line=int(at.group(1)) if at else None, column=int(at.group(2)) if at else None,
                                       hint="fix the file: contractgen reads [tool.contractgen] from it"))
        table = _checked_table(raw, where, problems)
    if not table:
        root = cwd
    if pyproject is not None:
        for key in ("contracts", "output"):
            problem = _path_problem(key, table.get(key), root, pyproject, where)
            if problem is not None:
                problems.append(problem)
                table.pop(key)
    contracts = Path(table.get("contracts", "contracts"))
    output = Path(table.get("output", "generated"))
    return Config(
        root=root,
        contracts=_relative_to_cwd(root / contracts, cwd),
        output=_relative_to_cwd(root / output, cwd),
        package=str(table.get("package", output.name)),
        diff=dict(table.get("diff", {})),
        describe_parameters=table.get("describe_parameters", False),
        problems=tuple(problems),
    )


def _checked_table(raw: Any, where: str, problems: list[Diagnostic]) -> dict[str, Any]:
    """The keys of [tool.contractgen] that are known and of the right type; the rest become problems."""
    from .manifest.describe import did_you_mean

    base = "/tool/contractgen"
    if not isinstance(raw, dict):
        problems.append(Diagnostic(where, base, f"expected a table (got {type(raw).__name__})", code="invalid-config",
                                   hint='write it as a table: [tool.contractgen] on its own line, then key = value lines'))
        return {}
    table: dict[str, Any] = {}
    for key, value in raw.items():
        expected = _KEYS.get(key)
        if expected is None:
            problems.append(Diagnostic(where, f"{base}/{key}", f"unknown key '{key}' (expected one of: "
                                       f"{', '.join(sorted(_KEYS))})", code="invalid-config",
                                       hint=did_you_mean(key, _KEYS)))
        elif not isinstance(value, expected):
            problems.append(Diagnostic(where, f"{base}/{key}", f"expected {_TYPE_WORDS[expected]} (got {value!r})",
                                       code="invalid-config", hint=_example(key)))
        elif isinstance(value, str) and "\0" in value:  # no file system takes it: os calls raise ValueError
            problems.append(Diagnostic(where, f"{base}/{key}", f"expected a path without NUL characters (got {value!r})",
                                       code="invalid-config", hint="remove the \\u0000 escape from the string"))
        else:
            table[key] = value
    return table


_TYPE_WORDS = {str: "a string", bool: "true or false", dict: "a table"}
#: the codes of a configured path the command line may override (``checked_config(*given)``)
PATH_CODES = frozenset({"path-outside-project", "unusable-path"})
_FLAGS = {"contracts": "--contracts PATH (build) or a PATH argument (check, diff)", "output": "--output PATH"}


def _path_problem(key: str, value: Any, root: Path, pyproject: Path, where: str) -> Diagnostic | None:
    """Why a configured path may not be used: the system refuses it (too long, a loop of links, no
    permission), or it leads out of the project (``../elsewhere``, an absolute path, a link pointing
    out). A cloned repository's pyproject.toml must neither read manifests from nor write a tree into
    the rest of the disk; a path given on the command line is the user's own choice, and may."""
    if not isinstance(value, str):
        return None
    line = _key_line(pyproject, key)
    pointer = f"/tool/contractgen/{key}"
    path = root / value
    try:
        os.lstat(path) if key == "output" else os.stat(path)
    except FileNotFoundError:  # made by the build, or reported by the command that reads it
        pass
    except OSError as exc:
        return Diagnostic(where, pointer, f"expected a path the system can use (got {value[:80]!r}"
                          f"{'...' if len(value) > 80 else ''}: {exc.strerror})", code="unusable-path", line=line,
                          hint=f"fix `{key}` in [tool.contractgen]")
    # the output's own name is not followed: a link there is refused by the build, never written through
    kept = key == "output" and path.name not in ("", "..")
    real = Path(os.path.realpath(path.parent)) / path.name if kept else Path(os.path.realpath(path))
    project = Path(os.path.realpath(root))
    if real != project and project not in real.parents:
        return Diagnostic(where, pointer, f"expected a path inside the project {project} (got {value!r}, which "
                          f"leads to {real})", code="path-outside-project", line=line,
                          hint=f"a project's configuration may not reach outside it; to use that folder on "
                               f"purpose, name it on the command line: {_FLAGS[key]}")
    return None


def _key_line(pyproject: Path, key: str) -> int | None:
    """The line of ``key = ...`` in the [tool.contractgen] table (tomllib keeps no positions)."""
    try:
        lines = pyproject.read_text("utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    inside = False
    for number, text in enumerate(lines, 1):
        stripped = text.strip()
        if stripped.startswith("["):
            inside = re.fullmatch(r"\[\s*tool\s*\.\s*contractgen\s*\]", stripped.split("#")[0].strip()) is not None
        elif inside and re.match(rf"{key}\s*=", stripped):
            return number
    return None


#: how each key is written, for the hint when its value has the wrong type
_EXAMPLES = {"contracts": 'contracts = "contracts"', "output": 'output = "generated"', "package": 'package = "generated"',
             "describe_parameters": "describe_parameters = true",
             "diff": "[tool.contractgen.diff] on its own line, then its keys (see docs/diff.md)"}


def _example(key: str) -> str:
    return f"write it as {_EXAMPLES[key]}"


def _relative_to_cwd(path: Path, cwd: Path) -> Path:
    # The last part is kept as named (not resolved): a symlinked output must be seen as one.
    absolute = Path(os.path.abspath(path))
    if absolute.name:
        absolute = absolute.parent.resolve() / absolute.name
    try:
        return absolute.relative_to(cwd)
    except ValueError:
        return absolute
