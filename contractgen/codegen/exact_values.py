"""The models keep every value as JSON sent it: the schema the model generator reads is adjusted
where its straightforward Python types would change a value the schema accepted.

- ``number`` is read as ``integer | number``: a ``float`` field turned the integer
  1234567890123456789 (an ID, say) into 1234567890123456768, so the implementation acted on
  another value than the one sent.
- An enum holding a boolean and a number Python counts as equal (``1 == 1.0 == True``) is typed by
  its members' JSON types: a ``Literal[1, True]`` field handed ``1.0`` gave ``True``.
- ``format`` chooses a Python type only where that type keeps every valid value (``TYPED_FORMATS``);
  other formats are ``str``. The generator's other types changed values the schema accepted:
  ``duration`` as ``timedelta`` read ``P1M`` as 30 days, ``uri`` as ``AnyUrl`` rewrote
  ``http://host`` to ``http://host/`` (and refused valid ones), ``idn-email`` normalised the text,
  ``byte`` decoded base64, ``password`` masked the value in dumps, ``hostname`` ran a pattern of its own.
- A whole float bound from 2**53 up (``maximum: 1e300``) is written as the integer it is exactly: the
  generator wrote it from its decimal text (``le=10**300``), below the float's own value, so the
  model refused ``1e300`` itself, which the schema accepts.
- A ``const`` is handed over as the one-member ``enum`` it equals: the generator typed a ``const``
  object, array or fraction without ``| None`` while defaulting the field to ``None``, so an
  optional ``{const: {k: 1}}`` refused every call (and every result) that left it out.
- ``multipleOf`` is left to the schema: pydantic judges it with float remainders, so with
  ``multipleOf: 0.01`` it refused ``1`` and ``12.5`` (``1 % 0.01`` is not 0 in binary floating point),
  and with ``multipleOf: 3`` it judged ``1e300`` by a remainder the schema's validator does not take.

The schema, which the guard checks first, still decides which values are allowed; the changes here
never change what the schema accepts, only what the generator writes.
"""

from __future__ import annotations

import copy
from typing import Any

from ..manifest.model_formats import TYPED_FORMATS as MODEL_FORMAT_TYPED
from ..manifest.schema_walk import subschemas
from ..runtime.jsonvalue import json_type

#: Formats typed as the Python type the generator picks (datetime, date, time, UUID, IPv4Address,
#: IPv6Address): the same value the schema accepted, in its canonical form. Known limit: a leap
#: second (``23:59:60``) does not fit ``datetime``/``time``; it is refused as INVALID_ARGUMENT at the
#: field (``tests/test_model_exact_values.py`` pins the list). ``email`` stays ``str``: pydantic's
#: ``EmailStr`` needs an optional package at import time and refused valid addresses.
TYPED_FORMATS = MODEL_FORMAT_TYPED
_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
#: below this, a whole float's decimal text is its exact value
_EXACT_FLOAT_INTEGERS = 2.0**53
#: JSON types in the order they are written into ``type``
_JSON_TYPES = ("null", "boolean", "integer", "number", "string", "array", "object")


def _python_merges(values: list[Any]) -> bool:
    """Whether a boolean and a number in ``values`` are equal to Python (``1``/``True``, ``0.0``/``False``)."""
    booleans = [v for v in values if isinstance(v, bool)]
    numbers = [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
    return any(n == b for n in numbers for b in booleans)


def values_kept_exact(schema: Any) -> Any:
    """A copy of ``schema`` for the model generator: ``number`` also names ``integer``, a ``const``
    becomes its one-member ``enum`` (beside an ``enum`` of its own, the schema decides), formats
    outside ``TYPED_FORMATS`` and every ``multipleOf`` are dropped, big whole float bounds become
    the integers they are, and every ``enum`` holding a boolean and a number Python
    counts as equal is replaced by the JSON types of its members (kept as they are where ``type`` is
    given)."""
    schema = copy.deepcopy(schema)
    for _, node in list(subschemas(schema)):  # collected before any change
        _integers_kept(node)
        _const_as_enum(node)
        node.pop("multipleOf", None)
        for keyword in _BOUNDS:
            bound = node.get(keyword)
            if type(bound) is float and bound.is_integer() and abs(bound) >= _EXACT_FLOAT_INTEGERS:
                node[keyword] = int(bound)
        if "format" in node and not (isinstance(node["format"], str) and node["format"] in TYPED_FORMATS):
            del node["format"]
        values = node.get("enum")
        if not isinstance(values, list) or not _python_merges(values):
            continue
        del node["enum"]
        if "type" not in node:
            present = {json_type(v) for v in values}
            if "number" in present:
                present.discard("integer")  # a number type holds the integral ones too
            node["type"] = [t for t in _JSON_TYPES if t in present]
    return schema


def _const_as_enum(node: dict[str, Any]) -> None:
    if "const" not in node:
        return
    value = node.pop("const")
    if "enum" not in node:  # beside an enum, either alone types the field; the guard checks both
        node["enum"] = [value]


def _integers_kept(node: dict[str, Any]) -> None:
    kind = node.get("type")
    kinds = [kind] if isinstance(kind, str) else kind
    if isinstance(kinds, list) and "number" in kinds and "integer" not in kinds:
        at = kinds.index("number")
        node["type"] = [*kinds[:at], "integer", *kinds[at:]]  # the generator writes int | float


__all__ = ["TYPED_FORMATS", "values_kept_exact"]
