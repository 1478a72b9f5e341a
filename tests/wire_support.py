"""Does a JSON value have a TypedDict's shape? A small checker for the output TypedDicts the build
generates: every key declared, every required key present, every value of the declared JSON type."""

from __future__ import annotations

import types
from collections.abc import Mapping
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints, is_typeddict

from typing_extensions import NotRequired, Required

_UNIONS = (Union, types.UnionType)


def wire_mismatches(value: Any, hint: Any, at: str = "", *, closed: bool = True,
                    integral_floats: bool = False) -> list[str]:
    """Where ``value`` does not have the type ``hint`` (empty: it does). ``at`` is a JSON pointer.

    ``closed``: a key a TypedDict does not declare is a mismatch. Without it, such keys pass, as the
    type system has it (a TypedDict may hold more keys than it declares). ``integral_floats``: accept
    ``1.0`` where the type says ``int`` (or ``Literal[1]``): JSON Schema counts it as the integer 1, the
    TypedDict does not (the one known gap, in docs/build.md)."""
    options = {"closed": closed, "integral_floats": integral_floats}
    where = at or "/"
    if hint is Any:
        return []
    if is_typeddict(hint):
        if not isinstance(value, dict):
            return [f"{where}: expected an object (got {type(value).__name__})"]
        # read NotRequired from the hints: under ``from __future__ import annotations`` typing's own
        # TypedDict (3.11+) cannot see it, and its __required_keys__ would list every key
        declared = get_type_hints(hint, include_extras=True)
        fields = {key: _unwrapped(item) for key, item in declared.items()}
        problems = [f"{where}: key {key!r} is not declared by {hint.__name__}" for key in value
                    if closed and key not in fields]
        problems += [f"{where}: required key {key!r} missing" for key, item in declared.items()
                     if get_origin(item) is not NotRequired and key not in value]
        for key, item in value.items():
            if key in fields:
                problems += wire_mismatches(item, fields[key], f"{at}/{key}", **options)
        return problems
    origin, args = get_origin(hint), get_args(hint)
    if origin in _UNIONS:
        if any(not wire_mismatches(value, option, at, **options) for option in args):
            return []
        return [f"{where}: {value!r} matches none of {hint}"]
    if origin is Literal:
        if integral_floats and type(value) is float and value.is_integer():
            value = int(value)
        if any(value == option and type(value) is type(option) for option in args):
            return []
        return [f"{where}: {value!r} is not one of {args}"]
    if origin is list:
        if not isinstance(value, list):
            return [f"{where}: expected an array (got {type(value).__name__})"]
        return [p for index, item in enumerate(value)
                for p in wire_mismatches(item, args[0], f"{at}/{index}", **options)]
    if origin is dict:
        if not isinstance(value, Mapping):
            return [f"{where}: expected an object (got {type(value).__name__})"]
        return [p for key, item in value.items()
                for p in wire_mismatches(item, args[1], f"{at}/{key}", **options)]
    if hint is list:  # a bare list (what a reference the generator cannot follow leaves)
        return [] if isinstance(value, list) else [f"{where}: expected an array (got {type(value).__name__})"]
    if integral_floats and hint is int and type(value) is float and value.is_integer():
        return []
    return [] if _is_json_scalar(value, hint) else [f"{where}: expected {hint} (got {value!r})"]


def _unwrapped(hint: Any) -> Any:
    return get_args(hint)[0] if get_origin(hint) in (NotRequired, Required) else hint


def _is_json_scalar(value: Any, hint: Any) -> bool:
    if hint is type(None) or hint is None:
        return value is None
    if hint is float:  # a JSON number: an integer is one too
        return type(value) in (int, float)
    if hint in (str, int, bool):
        return type(value) is hint
    raise AssertionError(f"the checker does not know the type {hint!r}")


def wire_type(module: Any) -> Any:
    """The third type argument of a generated module's stub annotation: its output's TypedDict."""
    from contractgen.runtime import ToolStub

    [name] = [name for name, value in vars(module).items() if isinstance(value, ToolStub)]
    annotation = get_type_hints(module)[name]
    assert get_origin(annotation) is ToolStub, annotation
    return get_args(annotation)[2]
