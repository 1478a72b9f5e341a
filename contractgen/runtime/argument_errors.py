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

A flat call of a known signature (``SchemaCheck.mistake``) goes further: once its explanation's
shape is kept, the guard asks only for what the call echoes (``SchemaCheck.echoes``) and fills it
in here (``known``), with no violation made. A signature holds a placeholder for each unknown name
of a closed object (a model's misspelt name is new call after call): the violation naming it is made
anew, and its field, message and expectation (and the summary at the top, where it comes first) are
put in.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from json.encoder import encode_basestring as encode_text
from typing import Any, TypeAlias

from .contract import Contract
from .envelope import (
    ERROR_SIZE_CAP,
    MESSAGE_CAP,
    _as_pointer,
    _json_bytes,
    cap_text,
    error_envelope,
    error_size,
)
from .jsonvalue import MISSING
from .pointer import cap_pointer
from .user_supplied import ask_user_message, missing_user_supplied
from .wording import SUMMARY_HEAD, Violation, first_lines, summary_line, summary_tail

#: shapes kept per tool; odd input cannot grow it forever
_SHAPE_LIMIT = 256

#: (attempted, did_you_mean) of one violation: what it echoes of the call; or the violation itself,
#: made anew for each call (one naming an unknown name)
Echo: TypeAlias = "tuple[Any, str | None] | Violation"
#: the part of a shape standing for a violation made anew for each call
_ANEW = object()


def argument_error(contract: Contract, violations: Sequence[Violation], omitted: int) -> dict[str, Any]:
    """The INVALID_ARGUMENT envelope naming ``violations`` (the first one also at the top; a missing
    user-supplied argument first, with the action ``ask_user``)."""
    missing = missing_user_supplied(contract, violations)
    first = missing[0] if missing else violations[0] if violations else None
    optional: dict[str, Any] = {}
    if first is not None:
        optional = {"field": cap_pointer(first.field), "constraint": first.constraint,
                    "expected": first.expected, "attempted": first.attempted,
                    "violations": [v.as_dict() for v in violations],
                    "violations_omitted": omitted or None}
    if optional.get("attempted") is MISSING:
        del optional["attempted"]
    if missing:
        message = ask_user_message(missing, len(violations) + omitted - len(missing))
        return error_envelope(contract, "INVALID_ARGUMENT", message, action="ask_user", **optional)
    return error_envelope(contract, "INVALID_ARGUMENT", first_lines(violations, MESSAGE_CAP), **optional)


def _shape(violations: Sequence[Violation], omitted: int,
           anew: Sequence[bool] = ()) -> tuple[Any, ...] | None:
    """What the envelope depends on besides the echoed values (and, for the violations ``anew`` marks,
    their field, message, expectation and guess). An echoed array or object is put in as it comes:
    ``SchemaCheck.echoes`` makes it afresh per call (a redacted copy), and a kept explanation's own
    is copied by the guard before the envelope leaves it."""
    parts: list[Any] = [omitted]
    for index, v in enumerate(violations):
        attempted = v.attempted
        if index < len(anew) and anew[index]:
            parts.append(_anew_part(v))
        else:
            parts.append((v.field, v.constraint, v.message, v.expected, v.secondary,
                          _echo_form(attempted, v.did_you_mean)))
    return tuple(parts)


def _anew_part(v: Violation) -> tuple[Any, ...]:
    """The part of a shape a violation made anew for each call stands for."""
    return _ANEW, v.constraint, v.expected is None, v.secondary, _echo_form(v.attempted, v.did_you_mean)


def _echo_form(attempted: Any, guess: str | None) -> tuple[bool, bool, bool]:
    """What of an envelope's keys a violation's echoes decide: whether it shows a value, whether
    that value is null (the summary at the top leaves a null out), whether it has a guess."""
    return attempted is MISSING, attempted is None, not guess


class ShapedErrors:
    """One tool's INVALID_ARGUMENT envelopes, kept per shape of mistake."""

    def __init__(self, contract: Contract) -> None:
        self._contract = contract
        #: shape -> (the envelope first made, its error's size less what its echoed values take)
        self._kept: dict[tuple[Any, ...], tuple[dict[str, Any], int]] = {}
        #: shapes seen once: most never come back (a new unknown key's name is in its message), so
        #: a shape is kept the second time it is seen
        self._seen: set[tuple[Any, ...]] = set()
        #: signature of a flat call's mistake -> the shape of its explanation, the envelope kept for it,
        #: its error's size less what varies, and whether violations are made anew (see ``known``)
        self._answers: dict[tuple[Any, ...], tuple[tuple[Any, ...], dict[str, Any], int, bool]] = {}

    def envelope(self, violations: Sequence[Violation], omitted: int) -> dict[str, Any]:
        """A new envelope (the caller may change it) naming ``violations``."""
        shape = _shape(violations, omitted) if violations else None
        if shape is None or self._asks_user(violations):
            return argument_error(self._contract, violations, omitted)
        kept = self._kept.get(shape)
        if kept is not None:
            filled = _filled(*kept, _echoes(violations))
            return filled if filled is not None else argument_error(self._contract, violations, omitted)
        made = argument_error(self._contract, violations, omitted)
        if shape not in self._seen:
            if len(self._seen) >= _SHAPE_LIMIT:
                self._seen.clear()
            self._seen.add(shape)
            return made
        echoes = _echoes(violations)
        try:
            base = error_size(made["error"]) - _echoed_size(echoes, "attempted" in made["error"])
        except ValueError:  # a lone surrogate, respelt by the full build
            return made
        copy = _filled(made, base, echoes)
        if copy == made and _whole(made["error"], violations, omitted):
            # nothing was cut to fit nor respelt: a copy filled in is what the full build gives
            if len(self._kept) >= _SHAPE_LIMIT:
                self._kept.clear()
            self._kept[shape] = (made, base)
            return copy
        return made

    def learn(self, signature: tuple[Any, ...], violations: Sequence[Violation], omitted: int,
              anew: Sequence[bool] = ()) -> None:
        """Answer calls of ``signature`` by ``known`` from now on: ``violations`` explained one by a
        plan of ``SchemaCheck``, and the envelope made for them is a kept one (a shape is kept when
        it comes back). ``anew``: which violations the plan makes anew for each call; the envelope
        of such a shape is kept at once (it never comes back: it names the unknown names)."""
        if self._asks_user(violations):
            return  # its top and message are not the first violation's: never filled in
        if any(anew) and violations:
            self._learn_anew(signature, violations, omitted, anew)
            return
        shape = _shape(violations, omitted) if violations else None
        kept = None if shape is None else self._kept.get(shape)
        if shape is not None and kept is not None:
            if len(self._answers) >= _SHAPE_LIMIT:
                self._answers.clear()
            self._answers[signature] = (shape, *kept, False)

    def _learn_anew(self, signature: tuple[Any, ...], violations: Sequence[Violation], omitted: int,
                    anew: Sequence[bool]) -> None:
        shape = _shape(violations, omitted, anew)
        made = argument_error(self._contract, violations, omitted)
        if shape is None or not _whole(made["error"], violations, omitted):
            return  # cut to fit: a filled copy would not be cut alike
        echoes = [v if made_anew else (v.attempted, v.did_you_mean) for v, made_anew in zip(violations, anew)]
        echoes += _echoes(violations[len(anew):])
        try:
            copy = _filled_anew(made, echoes, shape)
            if copy is None or copy[0] != made:
                return  # (a lone surrogate, respelt by the full build)
            base = error_size(made["error"]) - copy[1]
        except ValueError:
            return
        if len(self._answers) >= _SHAPE_LIMIT:
            self._answers.clear()
        self._answers[signature] = (shape, made, base, True)

    def _asks_user(self, violations: Sequence[Violation]) -> bool:
        return bool(missing_user_supplied(self._contract, violations))

    def known(self, signature: tuple[Any, ...],
              echoes_of: Callable[[], Sequence[Echo]]) -> dict[str, Any] | None:
        """The envelope for a call of ``signature`` (``learn``) echoing what ``echoes_of()`` says; None
        where ``envelope`` would give another: the signature is not learnt, its shape no longer kept,
        a guess found or missed where the kept one differs, or the fill would not fit."""
        answer = self._answers.get(signature)
        if answer is None:
            return None
        shape, kept, base, anew = answer
        echoes = echoes_of()
        if len(echoes) != len(shape) - 1:  # (one part per violation, after the omitted count)
            return None
        if not anew:  # (the usual shape)
            for (attempted, guess), part in zip(echoes, shape[1:]):  # type: ignore[misc]
                if _echo_form(attempted, guess) != part[-1]:
                    return None
            return _filled(kept, base, echoes)  # type: ignore[arg-type]
        try:
            filled = _filled_anew(kept, echoes, shape)
        except ValueError:  # a lone surrogate: the full build respells it
            return None
        return None if filled is None or base + filled[1] > ERROR_SIZE_CAP else filled[0]


def _echoes(violations: Sequence[Violation]) -> list[tuple[Any, str | None]]:
    return [(v.attempted, v.did_you_mean) for v in violations]


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


def _echoed_size(echoes: Sequence[tuple[Any, str | None]], at_top: bool) -> int:
    """Bytes the echoed values take in their envelope's error (the first one's twice ``at_top``)."""
    size = _json_size(echoes[0][0]) if at_top else 0
    for attempted, guess in echoes:
        if attempted is not MISSING:
            size += _json_size(attempted)
        if guess:
            size += _json_size(guess)
    return size


def _filled(kept: dict[str, Any], base: int, echoes: Sequence[tuple[Any, str | None]]) -> dict[str, Any] | None:
    """A copy of ``kept`` echoing ``echoes`` (one per violation), or None where the full build
    differs (it would cut something to fit, or respell text that UTF-8 JSON cannot carry)."""
    error = dict(kept["error"])
    error["violations"] = [_echoing(item, attempted, guess)
                           for item, (attempted, guess) in zip(error["violations"], echoes)]
    at_top = "attempted" in error
    if at_top:
        error["attempted"] = echoes[0][0]
    try:
        if base + _echoed_size(echoes, at_top) > ERROR_SIZE_CAP:
            return None
    except ValueError:  # a lone surrogate: the full build respells it
        return None
    return {**kept, "error": error}


def _echoing(item: dict[str, Any], attempted: Any, guess: str | None) -> dict[str, Any]:
    """A copy of a kept violation ``item`` showing ``attempted`` and ``guess``."""
    item = dict(item)
    if attempted is not MISSING:
        item["attempted"] = attempted
    if guess:
        item["did_you_mean"] = guess
    return item


def _filled_anew(kept: dict[str, Any], echoes: Sequence[Echo],
                 shape: tuple[Any, ...]) -> tuple[dict[str, Any], int] | None:
    """``_filled``, where some violations are made anew: each replaces its item whole, and, first,
    the field, expectation and summary at the top as ``argument_error`` writes them. With the copy,
    the bytes its error's parts that vary take (the texts of each item made anew, each echoed value,
    what the top says of the first violation): every other byte is the kept error's, as the shape
    fixes which keys there are. None where an echo does not have the form its part of ``shape`` says; ValueError on
    text UTF-8 cannot carry."""
    error = dict(kept["error"])
    items: list[dict[str, Any]] = []
    # top, first_said: the bytes of the first item's field and expectation, said again at the top, and
    # of its message, which the summary at the top holds
    size = top = first_said = 0
    # (the helpers _echo_form, _anew_part, _echoing and _json_size written out: this loop runs per
    # call of a model's new mistake, where each call of a helper was a tenth of the fill)
    for item, echo, part in zip(error["violations"], echoes, shape[1:]):
        if isinstance(echo, tuple):
            attempted, guess = echo
            if part[0] is _ANEW or (attempted is MISSING, attempted is None, not guess) != part[-1]:
                return None
            item = item.copy()
            if attempted is not MISSING:
                item["attempted"] = attempted
                size += len(encode_text(attempted).encode("utf-8")) if type(attempted) is str else _json_size(attempted)
            if guess:
                item["did_you_mean"] = guess
                size += len(encode_text(guess).encode("utf-8"))
        else:  # a violation made anew: its texts vary, its keys are the shape's
            attempted, expected, guess = echo.attempted, echo.expected, echo.did_you_mean
            if (_ANEW, echo.constraint, expected is None, echo.secondary,
                    (attempted is MISSING, attempted is None, not guess)) != part or expected == "":
                return None  # (an empty expectation would leave its key out where the shape has it)
            item = echo.as_dict()
            texts = len(encode_text(item["field"]).encode("utf-8"))
            if expected:
                texts += len(encode_text(expected).encode("utf-8"))
            said = len(encode_text(echo.message).encode("utf-8"))
            if not items:
                top, first_said = texts, said
            size += texts + said
            if attempted is not MISSING:
                size += _json_size(attempted)
            if guess:
                size += len(encode_text(guess).encode("utf-8"))
        items.append(item)
    error["violations"] = items
    first = echoes[0]
    if not isinstance(first, tuple):  # (its shape has no value at the top)
        field = items[0]["field"]  # (as_dict capped it: a pointer, as _as_pointer makes it)
        if not field.startswith("/"):  # ("" too: the whole arguments)
            field = _as_pointer(field)
            top += len(encode_text(field).encode("utf-8")) - len(encode_text(items[0]["field"]).encode("utf-8"))
        error["field"] = field
        said_first, tail = first.message, summary_tail(first.message, len(echoes) - 1)
        message = SUMMARY_HEAD + said_first + tail
        if len(message) <= MESSAGE_CAP and said_first.isprintable() and "  " not in said_first \
                and said_first[:1] != " " and said_first[-1:] != " ":
            # one line of single spaces, uncut: cap_text leaves it, and its bytes are the message's
            # and those of the head and the tail (printable ASCII JSON leaves as it is)
            size += top + first_said + len(SUMMARY_HEAD) + len(tail)
        else:
            message = cap_text(summary_line(said_first, len(echoes) - 1, MESSAGE_CAP))
            size += top + len(encode_text(message).encode("utf-8"))
        error["message"] = message
        if first.expected is not None:  # (its shape has an expectation or none, as this one)
            error["expected"] = first.expected  # (measured as the item's: "" is not None, nor kept)
    elif "attempted" in error:
        error["attempted"] = first[0]
        size += _json_size(first[0])
    return {**kept, "error": error}, size
