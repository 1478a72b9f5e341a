"""The ``contractgen`` console script: checks the compiler extra is installed, then runs the CLI.

A runtime-only install has the script but not the compiler's packages; it gets one line saying what
to install instead of an ImportError traceback: the compiler extra from the same source the runtime
came from (a git URL, a local checkout, a wheel), as pip recorded it (PEP 610 ``direct_url.json``).
"""

from __future__ import annotations

import sys
from importlib.util import find_spec

from contractgen.runtime.install_hint import install_hint as extra_install_hint

#: top-level modules of the ``compiler`` extra that the command line imports
COMPILER_MODULES = ("typer", "jinja2", "datamodel_code_generator", "yaml", "jsonschema", "ruff")


def missing_compiler_modules() -> list[str]:
    return [name for name in COMPILER_MODULES if find_spec(name) is None]


def install_hint(direct_url: str | None) -> str:
    """The pip command that adds the compiler extra from where this install came from (``direct_url``
    as pip recorded it; None when it recorded nothing)."""
    return extra_install_hint("compiler", direct_url or "")


def main() -> None:
    missing = missing_compiler_modules()
    if missing:
        print(f"contractgen: the command line needs the compiler extra (missing: {', '.join(missing)}); "
              f"install it with: {extra_install_hint('compiler')}", file=sys.stderr)
        raise SystemExit(2)
    from contractgen.cli import main as cli_main

    cli_main()
