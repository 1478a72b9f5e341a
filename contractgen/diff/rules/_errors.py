"""Errors matched by class name across two versions, with their manifest pointers."""

from __future__ import annotations

from collections.abc import Iterator

from ...runtime.contract import ErrorSpec
from ..structure import ToolPair


def indexed(errors: tuple[ErrorSpec, ...]) -> dict[str, tuple[int, ErrorSpec]]:
    return {e.class_name: (i, e) for i, e in enumerate(errors)}


def matched_errors(pair: ToolPair) -> Iterator[tuple[str, int, ErrorSpec, int, ErrorSpec]]:
    """(class name, old index, old spec, new index, new spec) for errors on both sides."""
    old, new = indexed(pair.old.contract.errors), indexed(pair.new.contract.errors)
    for name in sorted(set(old) & set(new)):
        yield (name, *old[name], *new[name])
