"""Flags shown and read as flags: ``--help`` lists them without a value type, and ``--check true``
is refused with what to write instead (Typer would show ``<bool>`` and say "unexpected extra argument")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup, TyperOption

from ..diagnostics import Diagnostic
from .output import EXIT_INVALID, print_diagnostics

_BOOLEAN_WORDS = frozenset({"true", "false", "yes", "no", "on", "off", "1", "0"})


def _without_value_type(params: list[Any]) -> list[Any]:
    for param in params:
        if isinstance(param, TyperOption) and param.is_flag and param.metavar is None:
            param.metavar = ""  # Typer's help shows the metavar in place of the type
    return params


def _flag_given_a_value(params: list[Any], args: list[str]) -> Diagnostic | None:
    """``--check true`` or ``--check=true``: a value after an option that takes none."""
    flags = {
        name
        for p in params
        if isinstance(p, TyperOption) and p.is_flag
        for name in (*p.opts, *p.secondary_opts)
    }
    for i, arg in enumerate(args):
        if arg == "--":
            return None
        name, equals, value = arg.partition("=")
        if not equals and i + 1 < len(args):
            value = args[i + 1]
            if value.lower() not in _BOOLEAN_WORDS or Path(value).exists():
                continue
        if name in flags and (equals or value):
            return Diagnostic(
                name,
                "",
                f"expected no value after the flag {name} (got {arg if equals else arg + ' ' + value})",
                code="usage",
                hint=f"write {name} alone (a flag takes no value), or leave it out",
            )
    return None


class FlagCommand(TyperCommand):
    def get_params(self, ctx: Any) -> list[Any]:
        return _without_value_type(super().get_params(ctx))

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        problem = _flag_given_a_value(self.get_params(ctx), args)
        if problem is not None:
            print_diagnostics([problem])
            raise typer.Exit(EXIT_INVALID)
        return super().parse_args(ctx, args)


class FlagGroup(TyperGroup):
    def get_params(self, ctx: Any) -> list[Any]:
        return _without_value_type(super().get_params(ctx))


def use_flag_commands(app: typer.Typer) -> None:
    """Every command registered on ``app`` so far is built as a :class:`FlagCommand`."""
    for info in app.registered_commands:
        if info.cls in (None, TyperCommand):
            info.cls = FlagCommand
