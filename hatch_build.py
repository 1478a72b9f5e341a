"""Build hook: compiles the runtime's one C accelerator, ``contractgen/runtime/_plain.c``.

It reads a tool's result for exact JSON types (``jsonvalue.plain_json``), the largest cost of a
guarded happy call beyond its validators. The runtime works without it (the pure-Python
``plain_json`` answers the same, tests/test_runtime_plain.py), so a machine that cannot compile
it gets a warning and a pure-Python wheel; ``CONTRACTGEN_PURE_PYTHON=1`` skips it on purpose.
setuptools' ``build_ext`` does the compiling: it knows every platform's compiler and flags.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

MODULE = "contractgen.runtime._plain"
SOURCE = "contractgen/runtime/_plain.c"


class CompileAccelerator(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if os.environ.get("CONTRACTGEN_PURE_PYTHON"):
            return
        root = Path(self.root)
        try:
            if version == "editable":  # the package is read from the checkout: the module goes beside its source
                _compile(root, root)
                return
            built = _compile(root, Path(tempfile.mkdtemp(prefix="contractgen-build-")))
        except Exception as exc:  # noqa: BLE001 - no compiler or headers: the pure-Python runtime serves
            print(f"contractgen: C accelerator not built ({type(exc).__name__}: {exc}); "
                  "the runtime uses its pure-Python twin", file=sys.stderr)
            return
        build_data["force_include"][str(built)] = built.relative_to(built.parents[2]).as_posix()
        build_data["pure_python"] = False
        build_data["infer_tag"] = True


def _compile(root: Path, out: Path) -> Path:
    """The extension module compiled from ``root``'s source into ``out`` (as a package tree)."""
    from setuptools import Distribution, Extension
    from setuptools.command.build_ext import build_ext

    extension = Extension(MODULE, [str(root / SOURCE)])
    command = build_ext(Distribution({"name": "contractgen", "ext_modules": [extension]}))
    command.build_lib = str(out)
    with tempfile.TemporaryDirectory(prefix="contractgen-objects-") as objects:  # only the module is kept
        command.build_temp = objects
        command.ensure_finalized()
        command.run()
    return Path(command.get_ext_fullpath(MODULE))
