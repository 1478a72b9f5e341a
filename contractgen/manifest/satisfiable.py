"""Schemas that contradict themselves: bounds that cross, an empty ``enum``, listed values the node's
own keywords refuse.

Each finding is a place where what the author wrote cannot all hold: the guard refuses every value
there (or the listed value the description offers the model), so it is reported by ``check`` rather
than found by a model's failed calls. Only one subschema's own keywords are read, so every verdict is
sound: a value that fails them fails the whole schema, whatever surrounds it.
"""

from __future__ import annotations

from typing import Any, TypeGuard

from ..runtime import reference_validator
from ..runtime.reference_validator import PatternUndecided
from .describe import json_type, show
from .report import Reporter

#: (lower bound, upper bound, crossed when lower >= upper rather than >, the JSON type they judge)
_BOUND_PAIRS = (
    ("minLength", "maxLength", False, "string"),
    ("minItems", "maxItems", False, "array"),
    ("minProperties", "maxProperties", False, "object"),
    ("minContains", "maxContains", False, "array"),
    ("minimum", "maximum", False, "number"),
    ("exclusiveMinimum", "maximum", True, "number"),
    ("minimum", "exclusiveMaximum", True, "number"),
    ("exclusiveMinimum", "exclusiveMaximum", True, "number"),
)
#: Keywords that judge a value at the node itself (no subschema, no reference, no annotation): what
#: a listed value is checked against. ``format`` is an annotation unless the guard asserts it.
_OWN_ASSERTIONS = ("type", "minLength", "maxLength", "pattern", "minimum", "maximum", "exclusiveMinimum",
                   "exclusiveMaximum", "multipleOf", "minItems", "maxItems", "uniqueItems",
                   "minProperties", "maxProperties", "required")


def check_satisfiable(report: Reporter, pointer: str, sub: dict[str, Any]) -> None:
    """Report crossed bounds, an empty ``enum`` and listed values the node's own keywords refuse."""
    if inverted(pointer):
        return  # a contradiction under `not` or `if` restricts nothing
    types = sub.get("type")
    allowed = {types} if isinstance(types, str) else set(types) if isinstance(types, list) else None
    for lower, upper, strict, kind in _BOUND_PAIRS:
        low, high = sub.get(lower), sub.get(upper)
        if not _is_number(low) or not _is_number(high) or (low < high or low == high and not strict):
            continue
        # the node allows only values of the kind the bounds judge: none at all passes
        only = allowed is not None and allowed <= ({"number", "integer"} if kind == "number" else {kind})
        message = (f"expected `{lower}` {'below' if strict else 'at most'} `{upper}` (got {show(low)} and "
                   f"{show(high)}): {'no value' if only else f'no {kind}'} passes here")
        hint = f"swap them, or loosen one: `{lower}` must be {'below' if strict else 'at most'} `{upper}`"
        if only:
            report.error(f"{pointer}/{lower}", message, "unsatisfiable-schema", hint=hint)
        else:
            report.warning(f"{pointer}/{lower}", message, "unsatisfiable-schema", hint=hint)
    listed: list[tuple[str, int | None, Any]] = (
        [("enum", i, v) for i, v in enumerate(sub["enum"])] if isinstance(sub.get("enum"), list) else [])
    if "const" in sub:
        listed.append(("const", None, sub["const"]))
    if isinstance(sub.get("enum"), list) and not sub["enum"]:
        report.error(f"{pointer}/enum", "expected at least one value under `enum` (got none): no value passes here",
                     "unsatisfiable-schema",
                     hint="list the allowed values, or remove the property")
        return
    own = {k: sub[k] for k in _OWN_ASSERTIONS if k in sub}
    if not listed or not own:
        return
    check = reference_validator.validator(own, formats=False)
    refused: list[tuple[str, int | None, Any, str]] = []
    for keyword, index, value in listed:
        try:
            errors = list(check.iter_errors(value))
        except (PatternUndecided, RecursionError, ValueError):
            continue  # no verdict that could be wrong
        if errors:
            refused.append((keyword, index, value, errors[0].validator))
    if not refused:
        return
    none_left = len(refused) == len(listed)
    for keyword, index, value, failed in refused[:10]:
        where = f"{pointer}/{keyword}" + (f"/{index}" if index is not None else "")
        report.error(
            where,
            f"expected each value under `{keyword}` to pass this schema's own `{failed}: {show(sub.get(failed))}` "
            f"(got {json_type(value)} {show(value)}, which the guard refuses): "
            + ("no listed value passes, so no value passes here" if none_left
               else "the description offers the model a value it cannot send"),
            "listed-value-refused",
            hint=f"fix the value or `{failed}`",
        )


def inverted(pointer: str) -> bool:
    """Whether the subschema at ``pointer`` sits under ``not`` or ``if``, where accepting nothing
    takes no value away (a property named ``not`` is not such a place)."""
    tokens = pointer.split("/")[1:]
    for index, token in enumerate(tokens):
        if token in ("not", "if") and (index == 0 or tokens[index - 1] not in _NAMING):
            return True
    return False


_NAMING = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})


def _is_number(value: Any) -> TypeGuard[int | float]:
    """A bound this check compares: a number within float range (a larger one is number_checks' error)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return not isinstance(value, int) or value.bit_length() <= 1024
