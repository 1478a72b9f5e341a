"""``contractgen check``: validate manifests and report every problem in one run."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from ..config import load_config
from ..manifest import load_contracts
from .output import exit_code_for, print_diagnostics


def check(
    paths: Annotated[Optional[list[Path]], typer.Argument(help="Manifest files or folders (default: the configured contracts folder).")] = None,
    strict: Annotated[bool, typer.Option("--strict", help="Exit 1 when there are warnings.")] = False,
) -> None:
    """Validate manifests: meta-schema, embedded JSON Schemas, examples, names, versions, migrations."""
    config = load_config()
    result = load_contracts(paths or [config.contracts])
    print_diagnostics(result.diagnostics)
    code = exit_code_for(result.diagnostics, strict=strict)
    if code == 0:
        count = len(result.contracts.tools)
        typer.echo(f"{count} manifest{'s' if count != 1 else ''} checked, no errors", err=True)
    raise typer.Exit(code)


def register(app: typer.Typer) -> None:
    app.command("check")(check)
