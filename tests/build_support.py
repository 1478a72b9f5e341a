"""Helpers shared by the build tests: a scratch project around a contracts folder, and tree reading."""

from __future__ import annotations

import importlib
import shutil
import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from conftest import run_cli

PYPROJECT = '[tool.contractgen]\ncontracts = "contracts"\noutput = "generated"\n'


def make_project(root: Path, contracts: Path | None = None) -> Path:
    """A scratch project at ``root`` with a pyproject and (a copy of) ``contracts``."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(PYPROJECT, "utf-8")
    if contracts is not None:
        shutil.copytree(contracts, root / "contracts")
    else:
        (root / "contracts").mkdir()
    return root


def build(root: Path, *args: str, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    return run_cli("build", *args, cwd=root, env=env)


def read_bytes_tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts}


@contextmanager
def imported_package(root: Path, package: str = "generated") -> Iterator[Any]:
    """Import ``root/<package>`` fresh, and forget it (and its submodules) afterwards."""
    sys.path.insert(0, str(root))
    try:
        for name in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
            del sys.modules[name]
        importlib.invalidate_caches()
        yield importlib.import_module(package)
    finally:
        sys.path.remove(str(root))
        for name in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
            del sys.modules[name]


def build_every_model(module: Any) -> int:
    """Build the validator of every pydantic model ``module`` defines, as its first use would: the
    generated models defer it (``codegen/model_config.py``), so importing alone no longer shows that
    each one can be built. Raises what pydantic raises for one that cannot; returns how many."""
    from pydantic import BaseModel

    models = [value for value in vars(module).values() if isinstance(value, type)
              and issubclass(value, BaseModel) and value.__module__ == module.__name__]
    for model in models:
        model.model_rebuild(force=True)
        assert type(model.__pydantic_validator__).__name__ == "SchemaValidator", model
    return len(models)


def model_module(models: Any, name: str, body: str) -> dict[str, Any]:
    """The namespace of ``body`` (the models' or TypedDicts' code from ``generate_models``) run with
    its imports as a module named ``name``, registered so annotations resolve in it."""
    lines = ["from __future__ import annotations"]
    lines += [f"import {module}" if not entry else f"from {module} import {entry}"
              for module, entries in models.imports for entry in entries]
    module = types.ModuleType(name)
    sys.modules[name] = module
    exec("\n".join(lines) + "\n" + body, module.__dict__)  # noqa: S102 - our own generated code
    return module.__dict__
