"""``contractgen check``: validate manifests and report every problem in one run."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from ..manifest import load_contracts
from .output import (
    checked_config,
    exit_code_for,
    print_diagnostics,
    print_diagnostics_json,
    summary,
)


class Format(str, Enum):
    text = "text"
    json = "json"


def check(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(
            help="Manifest files or folders (default: the configured contracts folder)."
        ),
    ] = None,
    strict: Annotated[
        bool, typer.Option("--strict", help="Exit 1 when there are warnings.")
    ] = False,
    output_format: Annotated[
        Format,
        typer.Option(
            "--format", help="text: diagnostics on stderr; json: one JSON document on stdout."
        ),
    ] = Format.text,
) -> None:
    """Validate manifests: meta-schema, embedded schemas, examples, names, versions, migrations.

    Exit 0 when clean, 1 when there are only warnings and --strict is given, 2 for errors.
    """
    targets = paths or [checked_config().contracts]
    result = load_contracts(targets)
    files = len(result.files)
    code = exit_code_for(result.diagnostics, strict=strict)
    if output_format is Format.json:
        print_diagnostics_json(result.diagnostics, manifests=files, exit_code=code)
    else:
        print_diagnostics(result.diagnostics)
        typer.echo(summary(result.diagnostics, files), err=True)
    raise typer.Exit(code)


def register(app: typer.Typer) -> None:
    app.command("check")(check)
