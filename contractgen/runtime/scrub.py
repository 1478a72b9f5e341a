"""The secrets one call sent, taken out of what the implementation writes itself.

Redaction by schema covers every value the guard echoes. What the implementation writes (an
exception's text, notes, chain and group members; a ToolError's message, field, upstream text and
partial results) is free text that no schema describes, so the values the call sent at sensitive
positions (as redaction decides them) are looked for there and replaced by ``[redacted]``, in the
spellings a tool may give them: any case, JSON- or repr-escaped, percent-encoded. Text is scrubbed
before any cap cuts it, so a cut never leaves a secret's prefix.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import quote, quote_plus

from .redaction import REDACTED, redact

#: Characters a sent value needs to be looked for: shorter ones would scrub ordinary words.
MIN_SECRET = 4
#: A shorter value of digits alone (a CVV, a short PIN) is looked for as a whole number.
MIN_DIGITS = 3
#: Secret texts taken from one call (the longest first); enough for any real call.
SECRETS_CAP = 256
#: Members looked at when collecting them (bounded work on a huge call).
_WALK_CAP = 100_000


class Scrubber:
    """Replaces the given secret texts, in every spelling above, wherever they appear."""

    __slots__ = ("_pattern",)

    def __init__(self, secrets: Iterable[str]) -> None:
        spellings: set[str] = set()
        numbers: set[str] = set()
        for secret in secrets:
            if MIN_DIGITS <= len(secret) < MIN_SECRET and secret.isdigit() and secret.isascii():
                numbers.add(secret)
                continue
            # twice: a repr of a JSON-escaped secret (a KeyError of a tool's JSON text) escapes again
            once = _spellings(secret)
            spellings.update(s for spelt in once for s in _spellings(spelt) if len(s) >= MIN_SECRET)
        alternatives = [re.escape(s) for s in sorted(spellings, key=lambda s: (-len(s), s))]
        alternatives += [rf"(?<![0-9]){n}(?![0-9])" for n in sorted(numbers)]
        self._pattern = re.compile("|".join(alternatives), re.IGNORECASE) if alternatives else None

    def __bool__(self) -> bool:
        return self._pattern is not None

    def text(self, text: str) -> str:
        """``text`` with every secret replaced."""
        if self._pattern is None or not isinstance(text, str):
            return text
        return self._pattern.sub(REDACTED, text)

    def value(self, value: Any, depth: int = 0) -> Any:
        """A copy of a JSON-like value with every secret replaced in its strings and keys."""
        if self._pattern is None:
            return value
        if isinstance(value, str):
            return self.text(value)
        if depth > 256:
            return value
        if isinstance(value, Mapping):
            return {self.text(k) if isinstance(k, str) else k: self.value(v, depth + 1) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.value(v, depth + 1) for v in value]
        return value


NO_SECRETS = Scrubber(())


def _spellings(secret: str) -> set[str]:
    return {secret, " ".join(secret.split()), json.dumps(secret)[1:-1],
            json.dumps(secret, ensure_ascii=False)[1:-1], repr(secret)[1:-1], quote(secret, safe=""),
            quote_plus(secret)}


def secrets_sent(arguments: Any, schema: Any, resources: Mapping[str, Any] | None = None) -> Scrubber:
    """A scrubber for what ``arguments`` hold at the positions ``schema`` makes sensitive (marked
    ``writeOnly`` / ``x-sensitive`` through any reference or combinator, or under a secret-looking
    name); NO_SECRETS when there are none or the arguments cannot be read."""
    try:
        shown = redact(arguments, schema, schema, resources=resources)
        found: list[str] = []
        _collect(arguments, shown, found)
    except Exception:  # noqa: BLE001 - arguments that raise when read hold nothing we can look for
        return NO_SECRETS
    found = sorted({f for f in found if len(f) >= MIN_SECRET or len(f) >= MIN_DIGITS and f.isdigit()},
                   key=lambda s: (-len(s), s))
    return Scrubber(found[:SECRETS_CAP]) if found else NO_SECRETS


def _collect(sent: Any, shown: Any, found: list[str]) -> None:
    """The texts of ``sent`` where its redacted copy ``shown`` says it was hidden."""
    todo = [(sent, shown)]
    while todo and len(found) < _WALK_CAP:
        sent, shown = todo.pop()
        if isinstance(shown, str) and shown in (REDACTED, "…") and sent != shown:
            _texts(sent, found)
        elif isinstance(sent, Mapping) and isinstance(shown, Mapping):
            todo.extend((value, shown.get(key)) for key, value in sent.items())
        elif isinstance(sent, (list, tuple)) and isinstance(shown, list):
            todo.extend(zip(sent, shown))


def _texts(value: Any, found: list[str]) -> None:
    """Every string, key and number inside a hidden value, as the text a tool might write."""
    todo = [value]
    seen = 0
    while todo and seen < _WALK_CAP:
        node = todo.pop()
        seen += 1
        if isinstance(node, str):
            found.append(node)
        elif isinstance(node, bool) or node is None:
            continue
        elif isinstance(node, int) and abs(node).bit_length() < 200 or isinstance(node, float):
            found.append(repr(node))
        elif isinstance(node, Mapping):
            for key, member in node.items():
                todo.append(key)
                todo.append(member)
        elif isinstance(node, (list, tuple)):
            todo.extend(node)
