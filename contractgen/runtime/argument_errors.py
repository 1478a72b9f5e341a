"""INVALID_ARGUMENT envelopes, made once per shape of mistake and filled in per call.

A model's new mistakes mostly repeat an old shape with a new value: ``limit`` sent as the string
"7", then as "8". Their explanations differ only in what each echoes (``attempted``, an enum's
``did_you_mean``); field, constraint, message and expectation come from the place and the value's
JSON type alone. Wording an envelope (capped texts, the summary message, the size fit) is most of
the cost of answering such a call, so the envelope made for a shape's second mistake is kept (most
shapes never come back: a new unknown name is in its message), and a later one of the same shape is
a copy with the echoed values put in. The copy is kept only
when it is what the full build gives: anything the size fit would cut, or a value UTF-8 JSON cannot
carry, goes the full way (tests/test_argument_errors.py checks the two agree).
"""

from __future__ import annotations

from collections.abc import Sequence
from json.encoder import encode_basestring as encode_text
from typing import Any

from .contract import Contract
from .envelope import ERROR_SIZE_CAP, MESSAGE_CAP, _json_bytes, error_envelope, error_size
from .jsonvalue import JSON_SCALARS, MISSING
from .pointer import cap_pointer
from .wording import Violation, first_lines

#: shapes kept per tool; odd input cannot grow it forever
_SHAPE_LIMIT = 256


def argument_error(contract: Contract, violations: Sequence[Violation], omitted: int) -> dict[str, Any]:
    """The INVALID_ARGUMENT envelope naming ``violations`` (the first one also at the top)."""
    first = violations[0] if violations else None
    optional: dict[str, Any] = {}
    if first is not None:
        optional = {"field": cap_pointer(first.field), "constraint": first.constraint,
                    "expected": first.expected, "attempted": first.attempted,
                    "violations": [v.as_dict() for v in violations],
                    "violations_omitted": omitted or None}
    if optional.get("attempted") is MISSING:
        del optional["attempted"]
    return error_envelope(contract, "INVALID_ARGUMENT", first_lines(violations, MESSAGE_CAP), **optional)


def _shape(violations: Sequence[Violation], omitted: int) -> tuple[Any, ...] | None:
    """What the envelope depends on besides the echoed values; None when a value is not a scalar."""
    parts: list[Any] = [omitted]
    for v in violations:
        attempted = v.attempted
        if attempted is not MISSING and type(attempted) not in JSON_SCALARS:
            return None  # a container would be shared with the kept explanation
        parts.append((v.field, v.constraint, v.message, v.expected, v.secondary,
                      attempted is MISSING, not v.did_you_mean))
    return tuple(parts)


class ShapedErrors:
    """One tool's INVALID_ARGUMENT envelopes, kept per shape of mistake."""

    def __init__(self, contract: Contract) -> None:
        self._contract = contract
        #: shape -> (the envelope first made, its error's size less what its echoed values take)
        self._kept: dict[tuple[Any, ...], tuple[dict[str, Any], int]] = {}
        #: shapes seen once: most never come back (a new unknown key's name is in its message), so
        #: a shape is kept the second time it is seen
        self._seen: set[tuple[Any, ...]] = set()

    def envelope(self, violations: Sequence[Violation], omitted: int) -> dict[str, Any]:
        """A new envelope (the caller may change it) naming ``violations``."""
        shape = _shape(violations, omitted) if violations else None
        if shape is None:
            return argument_error(self._contract, violations, omitted)
        kept = self._kept.get(shape)
        if kept is not None:
            filled = _filled(*kept, violations)
            return filled if filled is not None else argument_error(self._contract, violations, omitted)
        made = argument_error(self._contract, violations, omitted)
        if shape not in self._seen:
            if len(self._seen) >= _SHAPE_LIMIT:
                self._seen.clear()
            self._seen.add(shape)
            return made
        try:
            base = error_size(made["error"]) - _echoed_size(violations, "attempted" in made["error"])
        except ValueError:  # a lone surrogate, respelt by the full build
            return made
        copy = _filled(made, base, violations)
        if copy == made and _whole(made["error"], violations, omitted):
            # nothing was cut to fit nor respelt: a copy filled in is what the full build gives
            if len(self._kept) >= _SHAPE_LIMIT:
                self._kept.clear()
            self._kept[shape] = (made, base)
            return copy
        return made


def _whole(error: dict[str, Any], violations: Sequence[Violation], omitted: int) -> bool:
    """Whether the size fit left ``error`` as built: every key the violations call for is there."""
    first = violations[0]
    wanted = {"field", "constraint", "violations"}
    if first.expected:
        wanted.add("expected")
    if first.attempted is not MISSING:
        wanted.add("attempted")
    if omitted:
        wanted.add("violations_omitted")
    return wanted <= error.keys() and error.get("violations_omitted", 0) == omitted


def _json_size(value: Any) -> int:
    """Bytes of ``value`` (a JSON scalar) as the envelope's size check encodes it. A text is escaped
    as pydantic's encoder escapes it (tests check the two agree); a float goes to that encoder."""
    kind = type(value)
    if kind is str:
        return len(encode_text(value).encode("utf-8"))  # a lone surrogate raises: ValueError
    if kind is bool:
        return 4 if value else 5
    if kind is int:
        return len(str(value))
    if value is None:
        return 4
    return _json_bytes(value)


def _echoed_size(violations: Sequence[Violation], at_top: bool) -> int:
    """Bytes the echoed values of ``violations`` take in their envelope's error."""
    size = _json_size(violations[0].attempted) if at_top else 0
    for v in violations:
        if v.attempted is not MISSING:
            size += _json_size(v.attempted)
        if v.did_you_mean:
            size += _json_size(v.did_you_mean)
    return size


def _filled(kept: dict[str, Any], base: int, violations: Sequence[Violation]) -> dict[str, Any] | None:
    """A copy of ``kept`` echoing what ``violations`` echo, or None where the full build differs
    (it would cut something to fit, or respell text that UTF-8 JSON cannot carry)."""
    error = dict(kept["error"])
    items = []
    for item, v in zip(error["violations"], violations):
        item = dict(item)
        if v.attempted is not MISSING:
            item["attempted"] = v.attempted
        if v.did_you_mean:
            item["did_you_mean"] = v.did_you_mean
        items.append(item)
    error["violations"] = items
    at_top = "attempted" in error
    if at_top:
        error["attempted"] = violations[0].attempted
    try:
        if base + _echoed_size(violations, at_top) > ERROR_SIZE_CAP:
            return None
    except ValueError:  # a lone surrogate: the full build respells it
        return None
    return {**kept, "error": error}
