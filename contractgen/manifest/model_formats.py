"""The formats the generated models type, and a format checker that refuses what those types refuse.

A string with one of these formats reaches the implementation as a Python ``datetime``, ``date``,
``time``, ``UUID``, ``IPv4Address`` or ``IPv6Address``; a value the type cannot hold (a leap second,
the year 0) comes back INVALID_ARGUMENT. Only standard-library types: a generated module imports on
the runtime install alone. ``email`` is a ``str`` (pydantic's ``EmailStr`` needs the optional
email-validator package at import time); the guard checks every format with jsonschema-rs. ``check``
judges defaults and example calls with this checker, so a default or example it accepts is one the
generated stub accepts too (jsonschema alone checks no ``date-time`` or ``time`` without extra
packages, and reads ``email`` as any text holding an @).
"""

from __future__ import annotations

import datetime
import functools
import ipaddress
import uuid
from collections.abc import Callable
from typing import Any

import jsonschema

from ..runtime import reference_validator

#: format -> the Python type the generated model gives it (the generator's choice, kept by exact_values)
MODEL_FORMAT_TYPES: dict[str, Callable[[], Any]] = {
    "date-time": lambda: datetime.datetime,
    "date": lambda: datetime.date,
    "time": lambda: datetime.time,
    "uuid": lambda: uuid.UUID,
    "ipv4": lambda: ipaddress.IPv4Address,
    "ipv6": lambda: ipaddress.IPv6Address,
}
TYPED_FORMATS = frozenset(MODEL_FORMAT_TYPES)


@functools.cache
def _adapter(fmt: str) -> Any:
    from pydantic import TypeAdapter

    return TypeAdapter(MODEL_FORMAT_TYPES[fmt]())


def _passes(function: Callable[[Any], Any], raises: Any) -> Callable[[Any], bool]:
    """jsonschema's checker as a predicate: the exceptions it declares mean 'not this format'."""
    declared: tuple[type[Exception], ...] = raises if isinstance(raises, tuple) else (raises,)

    def passes(value: Any) -> bool:
        try:
            return bool(function(value))
        except declared:
            return False

    return passes


def _model_takes(fmt: str, base: Callable[[Any], bool] | None) -> Callable[[Any], bool]:
    def takes(value: Any) -> bool:
        if not isinstance(value, str):
            return True
        if base is not None and not base(value):
            return False
        try:
            _adapter(fmt).validate_python(value)
        except ValueError:  # pydantic's ValidationError
            return False
        return True

    return takes


@functools.cache
def model_format_checker() -> jsonschema.FormatChecker:
    """The reference format checker, where a typed format also asks the model's type."""
    base = reference_validator.format_checker()
    checker = jsonschema.FormatChecker(())  # not FormatChecker(names): see reference_validator
    checker.checkers.update(base.checkers)
    for fmt in TYPED_FORMATS:
        known = base.checkers.get(fmt)
        checker.checks(fmt)(_model_takes(fmt, _passes(*known) if known else None))
    return checker


__all__ = ["MODEL_FORMAT_TYPES", "TYPED_FORMATS", "model_format_checker"]
