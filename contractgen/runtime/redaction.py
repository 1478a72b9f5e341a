"""What never reaches a model: values marked sensitive are redacted, echoed values are capped."""

from __future__ import annotations

import functools
import itertools
import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .schema_resolve import (
    applicable,
    describes_members,
    marked_below,
    marked_on_the_way,
    member_nodes,
    names_marked,
    nodes_at,
)
from .schema_walk import is_marked
from .wording import one_edit_apart

#: Names redacted even without ``writeOnly`` / ``x-sensitive``: echoing these is never worth it.
SENSITIVE_NAME = re.compile(r"pass(word|wd|phrase|code)|secret|token|api[_-]?key|authori[sz]ation|"
                            r"credential|private[_-]?key|access[_-]?key|signing[_-]?key|encryption[_-]?key|"
                            r"cookie|session[_-]?id|bearer|card[_-]?number|credit[_-]?card", re.IGNORECASE)
#: Short secret words, matched only as a whole word of the name (``auth`` and ``x-auth``,
#: ``authHeader``, not ``author``; ``pin``, not ``spin``): the name split at case changes and
#: separators.
SENSITIVE_WORDS = frozenset({"auth", "pin", "otp", "totp", "mfa", "ssn", "cvv", "cvc", "jwt", "iban", "pwd",
                             "pass", "passw"})
#: Secret words a model may misspell in a key it invents ("pasword", "secrte", "tokne"): a word one
#: edit or swap away from one of these counts as it.
_MISSPELT = ("password", "secret", "token", "credential", "credentials", "passphrase", "passcode",
             "cookie", "apikey")
#: The misspelt words by their first two and by their last two letters. One edit or swap changes at
#: most two neighbouring letters, so a word of six letters or more one edit from a word of five or
#: more keeps its first two or its last two: each name's word is compared only with the secret
#: words sharing an end (comparing it with all nine made 100,000 distinct names cost a second).
_MISSPELT_BY_START: dict[str, tuple[str, ...]] = {}
_MISSPELT_BY_END: dict[str, tuple[str, ...]] = {}
for _secret_word in _MISSPELT:
    _MISSPELT_BY_START[_secret_word[:2]] = (*_MISSPELT_BY_START.get(_secret_word[:2], ()), _secret_word)
    _MISSPELT_BY_END[_secret_word[-2:]] = (*_MISSPELT_BY_END.get(_secret_word[-2:], ()), _secret_word)
_LONGEST_MISSPELT = max(map(len, _MISSPELT)) + 1
#: a name split into words at separators and case changes (shared with check's reading of x- keys)
NAME_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")

REDACTED = "[redacted]"

ATTEMPTED_CAP = 100  # characters of an echoed string value


def sensitive_name(name: Any) -> bool:
    """Whether a key named ``name`` looks like it holds a secret."""
    text = str.__str__(name) if isinstance(name, str) else str(name)  # a subclass's own text, as a plain str
    return _sensitive_short(text) if len(text) <= 64 else _sensitive_text(text)


#: The same names for ASCII text already lowered: re's IGNORECASE search is three times slower,
#: and for ASCII text the two agree (IGNORECASE also folds non-ASCII letters such as the long s).
_SENSITIVE_NAME_LOWER = re.compile(SENSITIVE_NAME.pattern)


#: What every secret-looking ASCII name holds, lowered: six letters starting or ending as a misspelt
#: word does (see above), or a secret name or a short secret word. Most names hold none of it and are
#: judged in two searches (a call of 100,000 distinct names cost half a second to split into words).
#: Two, not one alternation of all: re tries every branch at every position, and the misspelt words'
#: branches, searched alone first, find most names that match early (a name a model misspells
#: anew each call, "qeury12345": 0.83 -> 0.5 us, none slower).
_MAYBE_MISSPELT_LOWER = re.compile(f"(?:{'|'.join(sorted(_MISSPELT_BY_START))})[a-z]{{4}}|"
                                   f"[a-z]{{4}}(?:{'|'.join(sorted(_MISSPELT_BY_END))})")
_MAYBE_SECRET_LOWER = re.compile("|".join((SENSITIVE_NAME.pattern, *sorted(SENSITIVE_WORDS))))


def _sensitive_text(text: str) -> bool:
    if text.isascii():
        lowered = text.lower()
        if not (_MAYBE_MISSPELT_LOWER.search(lowered) or _MAYBE_SECRET_LOWER.search(lowered)):
            return False
        if _SENSITIVE_NAME_LOWER.search(lowered):
            return True
    elif SENSITIVE_NAME.search(text):
        return True
    words = [word.lower() for word in NAME_WORD.findall(text[:200])]
    return any(word in SENSITIVE_WORDS or _misspelt(word) for word in words)


def _misspelt(word: str) -> bool:
    """Whether ``word`` (lowered) is a secret word of six letters or more, misspelt by one edit."""
    if not 6 <= len(word) <= _LONGEST_MISSPELT:
        return False
    return any(one_edit_apart(word, secret)
               for secret in (*_MISSPELT_BY_START.get(word[:2], ()), *_MISSPELT_BY_END.get(word[-2:], ())))


#: names come back call after call (the declared ones, a model's usual misspellings): kept, short ones only
_sensitive_short = functools.lru_cache(maxsize=4096)(_sensitive_text)


def redact(value: Any, node: Any, root: Any, depth: int = 0, resources: Mapping[str, Any] | None = None,
           astray: str = REDACTED) -> Any:
    """``value`` with every part its schema marks sensitive replaced by ``[redacted]``.

    ``node`` is one schema for the value's position (or a list of them); every schema that applies
    there through references, anchors, combinators or ``dependentSchemas`` is taken into account.
    What is hidden only for being where no schema describes it, inside a value that holds a secret
    (it may be one sent astray), is replaced by ``astray`` (scrub.py tells the two apart)."""
    nodes = node if isinstance(node, list) else ([] if node is None else [node])
    return _redact(value, applicable(nodes, root, resources), root, depth, resources, astray)


def sensitive_at(root: Any, parts: Sequence[str], resources: Mapping[str, Any] | None = None) -> bool:
    """Whether the instance position ``parts`` of ``root`` is secret: a secret-looking name on the
    way there, or a writeOnly / x-sensitive mark in the resolved schema on the way."""
    return any(sensitive_name(p) for p in parts) or marked_on_the_way(root, parts, resources)


def redact_at(value: Any, parts: Iterable[str], root: Any, resources: Mapping[str, Any] | None = None) -> Any:
    """``value`` sent at the instance position ``parts`` of ``root``, redacted by its resolved schema."""
    parts = list(parts)
    if sensitive_at(root, parts, resources):
        return REDACTED
    return _redact(value, nodes_at(root, parts, resources), root, 0, resources)


def echo_at(value: Any, parts: Iterable[str], root: Any, resources: Mapping[str, Any] | None = None,
            limit: int = ATTEMPTED_CAP) -> Any:
    """What may be echoed of ``value`` sent at ``parts``: redacted, then capped. A container too big
    to echo is summarised by its size and key names before any redaction walks it, so explaining
    many violations inside one large value costs no more than its size once."""
    if isinstance(value, (Mapping, list, tuple)) and _json_longer_than(value, limit):
        parts = list(parts)
        if sensitive_at(root, parts, resources):
            return REDACTED
        if isinstance(value, Mapping):
            nodes = nodes_at(root, parts, resources)
            if marked_below(nodes, root, resources) and (
                    names_marked(nodes, root, resources) or not describes_members(nodes, of_array=False)):
                return f"an object with {len(value)} keys"  # its key names may be the secrets
        return cap_value(value, limit, known_long=True)
    return cap_value(redact_at(value, parts, root, resources), limit)


def echo_unmarked(value: Any, limit: int = ATTEMPTED_CAP) -> Any:
    """``echo_at`` for an array or object at a position no mark reaches, at it or inside it
    (``sensitive_at`` and ``marked_below`` say no: the caller knows it per position): only what a
    secret-looking name holds is hidden, with no schema walked."""
    if _json_longer_than(value, limit):
        return cap_value(value, limit, known_long=True)
    return cap_value(_names_hidden(value, 0), limit)


def _names_hidden(value: Any, depth: int) -> Any:
    """A copy of ``value`` as ``_redact`` makes it where no schema marks anything."""
    if depth > 20:
        return "…"
    if isinstance(value, Mapping):
        return {k: REDACTED if sensitive_name(k) else _names_hidden(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_names_hidden(v, depth + 1) for v in value]
    return value


def _json_longer_than(value: Any, limit: int) -> bool:
    """Whether the compact JSON of ``value`` is surely longer than ``limit`` characters (counting
    stops there, so a huge value costs no more than a small one)."""
    total = 0
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, (Mapping, list, tuple)):
            total += 2 + (2 if isinstance(node, Mapping) else 1) * len(node)
            if total > limit:
                return True
            if isinstance(node, Mapping):
                total += sum(len(str(k)) + 2 for k in node)
                stack.extend(node.values())
            else:
                stack.extend(node)
        else:
            total += len(node) + 2 if isinstance(node, str) else 1
        if total > limit:
            return True
    return False


def _redact(value: Any, nodes: list[Any], root: Any, depth: int, resources: Mapping[str, Any] | None,
            astray: str = REDACTED) -> Any:
    if any(is_marked(n) for n in nodes):
        return REDACTED
    if depth > 20:
        return "…"
    # a value holding secrets somewhere inside: what of it no schema describes (a scalar where an
    # object or array belongs, a member or item nothing declares) may be the secret sent astray
    holds = bool(nodes) and marked_below(nodes, root, resources)
    if holds and isinstance(value, (Mapping, list, tuple)) and (
            not describes_members(nodes, of_array=not isinstance(value, Mapping))
            or isinstance(value, Mapping) and names_marked(nodes, root, resources)):
        # a container where none belongs, or one whose member names are secret
        return astray if not names_marked(nodes, root, resources) or not isinstance(value, Mapping) else REDACTED
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            if sensitive_name(k):
                out[k] = REDACTED
                continue
            out[k] = _member(v, member_nodes(nodes, str(k), root, resources), holds, root, depth, resources, astray)
        return out
    if isinstance(value, (list, tuple)):
        return [_member(v, member_nodes(nodes, str(i), root, resources), holds, root, depth, resources, astray)
                for i, v in enumerate(value)]
    return astray if holds else value


def _member(value: Any, nodes: list[Any], holds: bool, root: Any, depth: int,
            resources: Mapping[str, Any] | None, astray: str) -> Any:
    """One member of a container, redacted by the schemas ``nodes`` for it; hidden whole when none
    describes it (only ``false``, or nothing) inside a container that ``holds`` secrets."""
    if holds and not any(n is True or isinstance(n, Mapping) for n in nodes):
        return astray
    return _redact(value, nodes, root, depth + 1, resources, astray)


def cap_value(value: Any, limit: int = ATTEMPTED_CAP, *, known_long: bool = False) -> Any:
    """A copy of a JSON value short enough to echo: long strings cut, big containers summarised
    (``known_long``: the caller already knows the container is too long to echo whole)."""
    if isinstance(value, str):
        return value if len(value) <= limit else value[:limit] + f"… ({len(value)} characters)"
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)  # NaN and infinities are not JSON: echo them as text
    if isinstance(value, (bool, int, float)) or value is None:
        if isinstance(value, int) and not isinstance(value, bool) and abs(value).bit_length() > 3 * limit:
            # (str() of an int past 4,300 digits raises; the bit length says "long" without it)
            return f"an integer with about {int(abs(value).bit_length() * math.log10(2)) + 1} digits"
        return value
    if isinstance(value, (Mapping, list, tuple)):
        try:
            text = None if known_long else json.dumps(value, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError):  # not JSON (NaN, sets...): summarise instead of echoing
            text = None
        if text is not None and len(text) <= limit:
            return value
        if isinstance(value, Mapping):
            keys = ", ".join(str(k) for k in itertools.islice(value, 5))
            return f"an object with {len(value)} keys ({keys}{', …' if len(value) > 5 else ''})"
        return f"an array of {len(value)} items"
    return f"a non-JSON value of type {type(value).__name__}"


def repr_args(model: Any, args: Iterable[tuple[str | None, Any]], *, all_extra: bool) -> list[tuple[str | None, Any]]:
    """A generated input model's ``__repr_args__``: an extra member (one its schema does not
    declare, kept by ``extra="allow"``) shows as ``[redacted]`` when its name looks like a secret,
    or always where ``all_extra`` says the schema marks undeclared members sensitive (a marked
    ``additionalProperties`` / ``patternProperties``). Declared fields already hide themselves
    (``Field(repr=False)``)."""
    fields = type(model).model_fields
    return [(name, value if name is None or name in fields or not (all_extra or sensitive_name(name)) else REDACTED)
            for name, value in args]
