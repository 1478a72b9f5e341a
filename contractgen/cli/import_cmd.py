"""``contractgen import``: start manifests from existing MCP, OpenAI or Anthropic tool definitions, or
from the operations of an OpenAPI 3.0/3.1 document."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from ..diagnostics import Diagnostic, escape_controls
from ..importer import FORMATS, OpenAPISelection, plan_import, read_sources, write_plan
from .output import (
    EXIT_INVALID,
    checked_config,
    exit_code_for,
    manifests_folder_problem,
    print_diagnostics,
)

_VERSION_PATTERN = r"^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$"


REPORT_FORMATS = ("text", "json")


def import_(
    sources: Annotated[list[str], typer.Argument(
        help="Tool definition files (JSON or YAML), folders of them, or - for stdin.", show_default=False)],
    out: Annotated[Path | None, typer.Option(
        "--out", help="Folder to write <name>/<version>.yaml into (default: the configured contracts folder).")] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite manifests that already exist.")] = False,
    source_format: Annotated[str, typer.Option(
        "--from", help=f"Source format: {', '.join(FORMATS)} (auto detects it per tool).")] = "auto",
    output_format: Annotated[str, typer.Option(
        "--format", help="Report: text (on stderr) or json (one document on stdout). For compatibility, "
                         f"a source format ({', '.join(FORMATS[1:])}) here means --from.")] = "text",
    prefix: Annotated[str, typer.Option(
        "--prefix", help="Prepend this to every tool name, e.g. to tell two servers' tools apart.")] = "",
    version: Annotated[str, typer.Option(
        "--version", help="Version of the new manifests (an OpenAPI document's info.version wins when it is "
                          "one like 1.0.0).")] = "1.0.0",
    tags: Annotated[list[str] | None, typer.Option(
        "--tag", help="OpenAPI: import the operations with this tag (repeatable).")] = None,
    paths: Annotated[list[str] | None, typer.Option(
        "--path", help="OpenAPI: import the operations under this path template; * matches (repeatable).")] = None,
    operations: Annotated[list[str] | None, typer.Option(
        "--operation", help="OpenAPI: import the operation with this operationId (repeatable).")] = None,
) -> None:
    """Turn existing tool definitions into manifests to start from, one per tool, with default errors.

    Older schema dialects are converted and every conversion is listed; a tool that cannot be
    converted is refused with all its problems, as `contractgen check` words them."""
    import re

    flag = "--from"
    if output_format in FORMATS:  # the source format under its older flag name
        source_format, output_format, flag = output_format, "text", "--format"
    if output_format not in REPORT_FORMATS:
        print_diagnostics([Diagnostic("--format", "", f"expected one of {', '.join(FORMATS)} (the source format) "
                                      f"or {', '.join(REPORT_FORMATS)} (the report) (got {output_format!r})",
                                      code="usage", hint="name the source format with --from, the report with --format")])
        raise typer.Exit(EXIT_INVALID)
    if source_format not in FORMATS:
        print_diagnostics([Diagnostic("--from", "", f"expected one of {', '.join(FORMATS)} (got {source_format!r})",
                                      code="usage", hint="leave --from out to detect the format of each tool")])
        raise typer.Exit(EXIT_INVALID)
    if not re.match(_VERSION_PATTERN, version):
        print_diagnostics([Diagnostic("--version", "", f"expected a version like 1.0.0 (got {version!r})",
                                      code="usage", hint="give major.minor.patch numbers, e.g. --version 1.0.0")])
        raise typer.Exit(EXIT_INVALID)
    config = checked_config(*(["contracts"] if out is not None else []))
    target = out if out is not None else config.contracts
    unsafe = manifests_folder_problem(target, config)
    if unsafe is not None:
        print_diagnostics([unsafe])
        typer.echo("nothing written", err=True)
        raise typer.Exit(EXIT_INVALID)
    raw, problems = read_sources(sources)
    plan = plan_import(raw, target, fmt=source_format, force=force, prefix=prefix, version=version,
                       project_root=config.root, format_flag=flag,
                       selection=OpenAPISelection(tuple(tags or ()), tuple(paths or ()), tuple(operations or ())))
    diagnostics = [*problems, *plan.diagnostics]
    code = exit_code_for(diagnostics)
    failures = write_plan(plan) if code == 0 else []
    if failures:
        diagnostics, code = [*diagnostics, *failures], EXIT_INVALID
    if output_format == "json":
        typer.echo(json.dumps({
            "exit_code": code,
            "written": code == 0,
            "imported": [{"source_name": s, "name": n, "path": str(p)} for s, n, p in plan.tools] if code == 0 else [],
            "conversions": [c.to_dict() for c in plan.conversions],
            "diagnostics": [d.to_dict() for d in diagnostics],
        }, indent=2, sort_keys=True))
        raise typer.Exit(code)
    for conversion in plan.conversions:
        typer.echo(conversion.format(), err=True)
    print_diagnostics(diagnostics)
    if code != 0:
        typer.echo("nothing written", err=True)
        raise typer.Exit(code)
    for source_name, name, path in plan.tools:
        typer.echo(escape_controls(f"{path}" + (f"  (from {source_name!r})" if source_name != name else "")))
    count = len(plan.tools)
    typer.echo(f"imported {count} tool{'s' if count != 1 else ''} into {escape_controls(str(target))}"
               + (f" ({len(plan.conversions)} conversion{'s' if len(plan.conversions) != 1 else ''} listed above)"
                  if plan.conversions else "")
               + "; edit the output schemas and errors, then run `contractgen check`", err=True)


def register(app: typer.Typer) -> None:
    app.command("import")(import_)
