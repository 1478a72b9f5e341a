"""The ``contractgen`` command line: one Typer app, one module per command. Only this package prints."""

from __future__ import annotations

from typing import Annotated

import typer

from .. import __version__
from . import build as _build
from . import check as _check
from . import diff as _diff
from . import import_cmd as _import_cmd
from . import init as _init
from .flags import FlagGroup, use_flag_commands

app = typer.Typer(
    name="contractgen",
    cls=FlagGroup,
    help="Schema-first code generator for versioned LLM tool contracts.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"contractgen {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[bool, typer.Option(
        "--version", callback=_print_version, is_eager=True, help="Print the version and exit.")] = False,
) -> None:
    """Schema-first code generator for versioned LLM tool contracts."""


_check.register(app)
_build.register(app)
_diff.register(app)
_import_cmd.register(app)
_init.register(app)
use_flag_commands(app)


def main() -> None:
    try:
        app()
    except OSError as exc:  # a path the system refuses (too long, a loop of links, no access): no traceback
        if exc.filename is None:  # not about a path (a closed pipe): not ours to word
            raise
        from .output import EXIT_INVALID, os_error_diagnostic, print_diagnostics

        print_diagnostics([os_error_diagnostic(exc)])
        raise SystemExit(EXIT_INVALID) from None
