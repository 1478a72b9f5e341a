"""``contractgen build``: compile manifests into ``generated/``, or with ``--check`` report drift as a diff."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from ..compiler.cache import CACHE_DIR_NAME, BuildCache, tree_key
from ..compiler.pipeline import Progress, cache_root, display_source, manifest_files
from ..diagnostics import escape_controls
from .output import (
    EXIT_FINDINGS,
    EXIT_INVALID,
    EXIT_OK,
    checked_config,
    exit_code_for,
    print_diagnostics,
)


def build(
    contracts: Annotated[list[Path] | None, typer.Option("--contracts", help="Manifest files or folders (default: \\[tool.contractgen] contracts).")] = None,
    output: Annotated[Path | None, typer.Option("--output", help="Folder to write (default: \\[tool.contractgen] output).")] = None,
    check: Annotated[bool, typer.Option("--check", help="Write nothing; exit 1 with a diff when the output is stale.")] = False,
    no_cache: Annotated[bool, typer.Option("--no-cache", help=f"Ignore and do not update {CACHE_DIR_NAME}/.")] = False,
    http: Annotated[bool, typer.Option("--http", help="Also write <module>_http.py, an httpx implementation, for each tool imported from OpenAPI (x-openapi).")] = False,
) -> None:
    """Compile contracts into typed models, errors, guarded stubs, descriptions and tool exports."""
    config = checked_config(*(key for key, flag in (("contracts", contracts), ("output", output)) if flag))
    sources = list(contracts or [config.contracts])
    out = output or config.output
    label = ", ".join(display_source(str(p), config.root) for p in sources)
    shown = escape_controls(str(out))  # a path from the command line or config: never raw on a terminal
    root = cache_root(config.root)
    cache = BuildCache(None if no_cache else root)

    from ..compiler.write import output_problem, tree_matches

    unsafe = output_problem(out, sources, config.root)
    if unsafe is not None:
        print_diagnostics([unsafe])
        typer.echo(f"{shown}: not written; nothing was touched", err=True)
        raise typer.Exit(EXIT_INVALID)
    files, unusable = manifest_files(sources)
    key = tree_key(files, out, label + ("\0parameters" if config.describe_parameters else "") + ("\0http" if http else ""))
    record = cache.tree_record()
    if not unusable and record is not None and record.get("key") == key and tree_matches(out, record):
        typer.echo(f"{shown}: up to date ({len(files)} manifest{'s' if len(files) != 1 else ''}, no changes)", err=True)
        raise typer.Exit(EXIT_OK)

    from ..compiler.load_cache import load_for_build
    from ..compiler.pipeline import render_tree
    from ..compiler.write import UnsafePathError, read_tree, tree_diff, write_tree

    with _progress_display() as progress:
        if progress is not None:
            progress("loading manifests", 0, 1)
        loaded = load_for_build(sources, cache)
        result = None
        if exit_code_for(loaded.diagnostics) == EXIT_OK:
            if progress is not None:
                progress("loading manifests", 1, 1)
            result = render_tree(loaded.contracts, root=config.root, contracts_label=label, cache=cache,
                                 progress=progress, describe_parameters=config.describe_parameters)
            if http and result.ok:
                from ..compiler.http_modules import with_http_modules

                result = with_http_modules(result, loaded.contracts, root=config.root)
    print_diagnostics(loaded.diagnostics)
    if result is None:
        typer.echo(f"{shown}: not written; fix the manifests above", err=True)
        raise typer.Exit(EXIT_INVALID)
    if not result.ok:
        print_diagnostics(result.diagnostics)
        typer.echo(f"{shown}: not written; fix the manifests above", err=True)
        raise typer.Exit(EXIT_INVALID)
    stats = result.stats
    summary = (f"{stats.tools} tool module{'s' if stats.tools != 1 else ''} ({stats.rendered} rendered, "
               f"{stats.cached} from cache")
    summary += f", {stats.skipped_versions} older minor version(s) not generated)" if stats.skipped_versions else ")"
    if check:
        diff = tree_diff(read_tree(out), result.files, out.as_posix())
        if diff:
            sys.stdout.write(diff)
            typer.echo(f"{shown}: stale; run `contractgen build` and commit the result", err=True)
            raise typer.Exit(EXIT_FINDINGS)
        cache.put_tree_record(key, result.files)
        typer.echo(f"{shown}: up to date; {summary}", err=True)
        raise typer.Exit(EXIT_OK)
    try:
        changed = write_tree(out, result.files)
    except (UnsafePathError, OSError) as exc:
        typer.echo(f"{shown}: not written ({escape_controls(str(exc))})", err=True)
        raise typer.Exit(EXIT_INVALID)
    cache.put_tree_record(key, result.files)
    typer.echo(f"{shown}: {'written' if changed else 'unchanged'}; {summary}", err=True)
    raise typer.Exit(EXIT_OK)


@contextmanager
def _progress_display() -> Iterator[Progress | None]:
    """A transient progress bar on stderr, only when stderr is a terminal."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, TextColumn
    from rich.progress import Progress as RichProgress

    with RichProgress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                      console=Console(stderr=True), transient=True) as bar:
        tasks: dict[str, object] = {}

        def report(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(stage, total=total)
            bar.update(tasks[stage], completed=done, total=total)  # type: ignore[arg-type]

        yield report


def register(app: typer.Typer) -> None:
    app.command("build")(build)
