"""The ``contractgen`` console script: checks the compiler extra is installed, then runs the CLI.

A runtime-only install has the script but not the compiler's packages; it gets one line saying what
to install instead of an ImportError traceback: the compiler extra from the same source the runtime
came from (a git URL, a local checkout, a wheel), as pip recorded it (PEP 610 ``direct_url.json``).
"""

from __future__ import annotations

import json
import shlex
import sys
from importlib import metadata
from importlib.util import find_spec
from urllib.parse import unquote

#: top-level modules of the ``compiler`` extra that the command line imports
COMPILER_MODULES = ("typer", "jinja2", "datamodel_code_generator", "yaml", "jsonschema", "ruff")
#: when pip recorded no source (an install from a package index)
INSTALL_HINT = "pip install 'contractgen[compiler]'"


def missing_compiler_modules() -> list[str]:
    return [name for name in COMPILER_MODULES if find_spec(name) is None]


def install_hint(direct_url: str | None) -> str:
    """The pip command that adds the compiler extra from where this install came from."""
    try:
        source = json.loads(direct_url) if direct_url else None
    except ValueError:
        source = None
    if not isinstance(source, dict) or not isinstance(source.get("url"), str):
        return INSTALL_HINT
    url: str = source["url"]
    vcs = source.get("vcs_info")
    if isinstance(vcs, dict) and vcs.get("vcs") and vcs.get("commit_id"):
        if url.startswith("file:///"):  # pip before 24 refuses a file URL without a host in a requirement
            url = "file://localhost/" + url.removeprefix("file:///")
        requirement = f"contractgen[compiler] @ {vcs['vcs']}+{url}@{vcs['commit_id']}"
        return f"pip install {shlex.quote(requirement)}"
    if url.startswith("file://"):
        path = unquote(url.removeprefix("file://"))
        editable = isinstance(source.get("dir_info"), dict) and source["dir_info"].get("editable")
        return f"pip install {'-e ' if editable else ''}{shlex.quote(path + '[compiler]')}"
    return f"pip install {shlex.quote('contractgen[compiler] @ ' + url)}"


def _recorded_source() -> str | None:
    try:
        return metadata.distribution("contractgen").read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        return None


def main() -> None:
    missing = missing_compiler_modules()
    if missing:
        print(f"contractgen: the command line needs the compiler extra (missing: {', '.join(missing)}); "
              f"install it with: {install_hint(_recorded_source())}", file=sys.stderr)
        raise SystemExit(2)
    from contractgen.cli import main as cli_main

    cli_main()
