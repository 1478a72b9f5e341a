"""``contractgen import``: start manifests from existing MCP, OpenAI or Anthropic tool definitions."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..config import load_config
from ..diagnostics import Diagnostic
from ..importer import FORMATS, plan_import, read_sources, write_plan
from .output import EXIT_INVALID, exit_code_for, print_diagnostics

_VERSION_PATTERN = r"^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$"


def import_(
    sources: Annotated[list[str], typer.Argument(
        help="Tool definition files (JSON or YAML), folders of them, or - for stdin.", show_default=False)],
    out: Annotated[Path | None, typer.Option(
        "--out", help="Folder to write <name>/<version>.yaml into (default: the configured contracts folder).")] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite manifests that already exist.")] = False,
    fmt: Annotated[str, typer.Option(
        "--format", help=f"Source format: {', '.join(FORMATS)} (auto detects it per tool).")] = "auto",
    prefix: Annotated[str, typer.Option(
        "--prefix", help="Prepend this to every tool name, e.g. to tell two servers' tools apart.")] = "",
    version: Annotated[str, typer.Option("--version", help="Version of the new manifests.")] = "1.0.0",
) -> None:
    """Turn existing tool definitions into manifests to start from, one per tool, with default errors."""
    import re

    if fmt not in FORMATS:
        print_diagnostics([Diagnostic("--format", "", f"expected one of {', '.join(FORMATS)} (got {fmt!r})",
                                      code="usage")])
        raise typer.Exit(EXIT_INVALID)
    if not re.match(_VERSION_PATTERN, version):
        print_diagnostics([Diagnostic("--version", "", f"expected a version like 1.0.0 (got {version!r})",
                                      code="usage")])
        raise typer.Exit(EXIT_INVALID)
    config = load_config()
    target = out if out is not None else config.contracts
    raw, problems = read_sources(sources)
    plan = plan_import(raw, target, fmt=fmt, force=force, prefix=prefix, version=version,
                       project_root=config.root)
    diagnostics = [*problems, *plan.diagnostics]
    print_diagnostics(diagnostics)
    code = exit_code_for(diagnostics)
    if code != 0:
        typer.echo("nothing written", err=True)
        raise typer.Exit(code)
    failures = write_plan(plan)
    if failures:
        print_diagnostics(failures)
        raise typer.Exit(EXIT_INVALID)
    for source_name, name, path in plan.tools:
        typer.echo(f"{path}" + (f"  (from {source_name!r})" if source_name != name else ""))
    count = len(plan.tools)
    typer.echo(f"imported {count} tool{'s' if count != 1 else ''} into {target}; edit the output schemas "
               f"and errors, then run `contractgen check`", err=True)


def register(app: typer.Typer) -> None:
    app.command("import")(import_)
