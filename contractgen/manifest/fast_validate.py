"""jsonschema-rs pre-checks that answer "valid?" exactly as the reference validator would, about
100x faster.

Only a "yes" is trusted: on "no" (or anything jsonschema-rs cannot read) the caller runs the
reference validator (``runtime/reference_validator.py``), which writes every diagnostic. Both read
patterns the same way (jsonschema-rs's ECMA-262 dialect); where they differ by design (format
checks), jsonschema-rs is handed jsonschema's format checker.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import jsonschema

from ..runtime.reference_validator import GUARD_FORMATS

#: off: every pre-check answers "cannot tell", so jsonschema decides alone (the reference path the
#: benchmark and the tests compare against)
USE_JSONSCHEMA_RS = True
#: The formats JSON Schema 2020-12 defines (others, such as OpenAPI's int32, are annotations). The
#: pre-check hands each of them, and any other format jsonschema checks, to the reference format
#: checker (an unchecked format passes); `check` suggests the closest one for a misspelt format.
STANDARD_FORMATS = (*GUARD_FORMATS, "regex")


def _conforms(checker: jsonschema.FormatChecker, format_name: str, value: Any) -> bool:
    return bool(checker.conforms(value, format_name))


def fast_validator(
    schema: dict[str, Any], format_checker: jsonschema.FormatChecker | None = None
) -> Callable[[Any], bool] | None:
    """A 2020-12 ``is_valid`` for ``schema`` that agrees with the reference validator (with
    ``format_checker``, if given); None when jsonschema-rs is unavailable."""
    try:
        import jsonschema_rs
    except ImportError:  # pragma: no cover - a declared dependency; jsonschema alone still works
        return None
    formats: dict[str, Callable[..., bool]] | None = (
        {
            name: partial(_conforms, format_checker, name)
            for name in (*STANDARD_FORMATS, *map(str, format_checker.checkers))
        }
        if format_checker is not None
        else None
    )
    validator = jsonschema_rs.Draft202012Validator(
        schema,
        validate_formats=format_checker is not None,
        formats=formats,
    )

    def is_valid(instance: Any) -> bool:
        if not USE_JSONSCHEMA_RS:
            return False
        try:
            return bool(validator.is_valid(instance))
        except Exception:  # noqa: BLE001 - values jsonschema-rs cannot read go to jsonschema
            return False

    return is_valid


__all__ = ["STANDARD_FORMATS", "USE_JSONSCHEMA_RS", "fast_validator"]
