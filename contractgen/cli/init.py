"""``contractgen init NAME``: scaffold a commented manifest that passes ``check`` as it is."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Annotated

import typer

from ..diagnostics import Diagnostic, escape_controls
from ..importer import schema_ref
from ..scaffold import DEFAULT_VERSION, invalid_name, scaffold_text, target_path
from .output import EXIT_INVALID, checked_config, manifests_folder_problem, print_diagnostics


def init(
    name: Annotated[str, typer.Argument(help="Tool name: letters, digits, _ and -, at most 64.", show_default=False)],
    out: Annotated[Path | None, typer.Option(
        "--out", help="Contracts folder (default: the configured one); writes <out>/<name>/1.0.0.yaml.")] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing manifest.")] = False,
) -> None:
    """Scaffold a new manifest with every field filled in or commented with what it means."""
    problem = invalid_name(name)
    if problem is not None:
        print_diagnostics([problem])
        raise typer.Exit(EXIT_INVALID)
    config = checked_config(*(["contracts"] if out is not None else []))
    unsafe = manifests_folder_problem(out if out is not None else config.contracts, config)
    if unsafe is not None:
        print_diagnostics([unsafe])
        raise typer.Exit(EXIT_INVALID)
    target = target_path(out if out is not None else config.contracts, name)
    if target.exists() and not force:
        print_diagnostics([Diagnostic(str(target), "", "expected a new manifest path (got an existing file)",
                                      code="exists", hint="pass --force to overwrite it")])
        raise typer.Exit(EXIT_INVALID)
    existing = sorted(p.name for p in target.parent.glob("*.y*ml")) if target.parent.is_dir() else []
    text = scaffold_text(name, version=DEFAULT_VERSION, schema_ref=schema_ref(target.parent, config.root))
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)
        os.replace(temporary, target)
    except OSError as exc:
        print_diagnostics([Diagnostic(str(target), "", f"expected a writable path (got {exc.strerror})",
                                      code="unwritable", hint="pass --out a folder you can write to")])
        raise typer.Exit(EXIT_INVALID) from None
    typer.echo(escape_controls(str(target)))
    others = [n for n in existing if n != target.name]
    note = f" (the folder already holds {', '.join(others)})" if others else ""
    typer.echo(f"scaffolded {name} {DEFAULT_VERSION}{note}; edit it, then run `contractgen check`", err=True)


def register(app: typer.Typer) -> None:
    app.command("init")(init)
