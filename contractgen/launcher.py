"""The ``contractgen`` console script: checks the compiler extra is installed, then runs the CLI.

A runtime-only install (``pip install contractgen``) has the script but not the compiler's
packages; it gets one line saying what to install instead of an ImportError traceback.
"""

from __future__ import annotations

import sys
from importlib.util import find_spec

#: top-level modules of the ``compiler`` extra that the command line imports
COMPILER_MODULES = ("typer", "jinja2", "datamodel_code_generator", "yaml", "jsonschema", "ruff")
INSTALL_HINT = "pip install 'contractgen[compiler]'"


def missing_compiler_modules() -> list[str]:
    return [name for name in COMPILER_MODULES if find_spec(name) is None]


def main() -> None:
    missing = missing_compiler_modules()
    if missing:
        print(f"contractgen: the command line needs the compiler extra (missing: {', '.join(missing)}); "
              f"install it with: {INSTALL_HINT}", file=sys.stderr)
        raise SystemExit(2)
    from contractgen.cli import main as cli_main

    cli_main()
