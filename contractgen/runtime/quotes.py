"""Runs of a secret's characters quoted anywhere in a text: ``key[5:30]``, the first 20 characters
of a 200-character secret, or base64 of such a piece. Any run of ``MIN_QUOTE`` characters or more
of a secret (in a spelling that escapes or encodes it piece by piece) is found, and the whole run
the text shares with the secret is taken out.

How it stays cheap: the secrets' side keeps where each of their ``GRAM``-character pieces first
is, the text side reads only every ``STEP``-th piece of a text (a run of ``MIN_QUOTE`` = ``GRAM +
STEP - 1`` characters always holds one whole), in C (``re.findall``, dict lookups); a piece found
is widened by slice comparisons (halving), so a 10,000-character quote costs its length a few
times, not once per character. Past ``_PIECES_KEPT`` characters of spellings (ten 10,000-character
secrets and their encodings), the shortest spellings keep every piece (``_PIECES_WHOLE``), and of
the longer only every ``n``-th is kept, ``n`` prime to STEP, so a run of theirs of ``GRAM + STEP *
n - 1`` characters is always found (``guaranteed_run``).
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Iterable, Sequence

#: The shortest run of a secret's characters that is taken out wherever it is quoted: longer than
#: ordinary words (a secret may hold "password" or "https://"), 96 bits of a random key.
MIN_QUOTE = 16
#: Characters of the pieces compared; a text's pieces are read every STEP characters.
GRAM = 8
STEP = MIN_QUOTE - GRAM + 1
#: Pieces of the secrets' spellings kept (each a dict entry, about 100 bytes): past this, every n-th.
_PIECES_KEPT = 200_000
#: Of those, what the shortest spellings (a call's keys and passwords) keep whole.
_PIECES_WHOLE = _PIECES_KEPT // 4
#: Characters of spellings looked through by a substring search per piece read, with no dict kept.
_SEARCHED = 4_096
#: Places of a text widened: past this the text is taken out whole (a text of 100,000 places
#: sharing a piece with a secret is no answer).
_WIDENED = 4_096
_ENCODED_CHAR = re.compile(r"[A-Za-z0-9+/=_-]")
_EVERY_STEP = re.compile(f"(.{{{GRAM}}}).{{0,{STEP - GRAM}}}", re.DOTALL)  # a piece, then what is skipped


def comparable(text: str, lowered: bool = False) -> str:
    """``text`` lowered place for place (a character whose lowering is longer, 'İ', as it is), and
    read in the standard base64 alphabet (``-`` as ``+``, ``_`` as ``/``), on both sides: one
    spelling of a secret's encodings serves both alphabets. ``lowered``: it is lowered already."""
    low = text if lowered else text.lower()
    if len(low) != len(text):
        low = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
    return low.replace("-", "+").replace("_", "/")


def _prime_to_step(n: int) -> int:
    while math.gcd(n, STEP) != 1:
        n += 1
    return n


class QuoteIndex:
    """The pieces of some spellings of secrets, to find runs of them in texts."""

    __slots__ = ("_encoded", "_joined", "_pieces", "_starts", "guaranteed_run")

    def __init__(self, spellings: Iterable[tuple[str, bool]]) -> None:
        """``spellings``: (a spelling of a secret, whether it is an encoding: a run found there is
        widened over the encoded text around it, whose edge characters tell a byte or two more)."""
        kept = sorted(((comparable(s), encoded) for s, encoded in dict.fromkeys(spellings) if len(s) >= MIN_QUOTE),
                      key=lambda pair: len(pair[0]))
        # the shortest spellings (a call's keys and passwords) keep every piece, up to a quarter of
        # the budget; longer ones share the rest, every n-th piece of theirs
        whole, total = 0, 0
        for spelling, _ in kept:
            if total + len(spelling) > _PIECES_WHOLE:
                break
            whole, total = whole + 1, total + len(spelling)
        rest = sum(len(s) for s, _ in kept[whole:])
        step = 1 if total + rest <= _PIECES_KEPT else _prime_to_step(-(-rest // (_PIECES_KEPT - _PIECES_WHOLE)))
        if step == 1:
            whole = len(kept)
        #: the shortest run always found, of the longest secrets (MIN_QUOTE when every piece is kept)
        self.guaranteed_run = GRAM + STEP * step - 1
        # one text holding them all, NUL between spellings (a widening stops at its spelling's ends)
        self._joined = "\x00".join(s for s, _ in kept)
        self._starts = [0]
        for spelling, _ in kept:
            self._starts.append(self._starts[-1] + len(spelling) + 1)
        self._encoded = [encoded for _, encoded in kept]
        #: a piece -> where it first is in _joined (read backwards: the first place written last wins)
        joined, split = self._joined, self._starts[whole]
        places = itertools.chain(range(len(joined) - GRAM, split - 1, -step), range(split - GRAM - 1, -1, -1))
        # a call's password or key is looked through directly: making the dict cost 40 us a call
        self._pieces = {joined[at:at + GRAM]: at for at in places} if len(joined) > _SEARCHED else None

    def __bool__(self) -> bool:
        return bool(self._joined)

    def found_in(self, low: str) -> bool:
        """Whether ``low`` (``comparable``) holds a piece of a secret where it is read."""
        read = _EVERY_STEP.findall(low)
        if self._pieces is None:
            return any(map(self._joined.__contains__, read))
        return not self._pieces.keys().isdisjoint(read)

    def _place(self, piece: str) -> int:
        """Where ``piece`` first is in the spellings (-1: nowhere)."""
        return self._joined.find(piece) if self._pieces is None else self._pieces.get(piece, -1)

    def holding(self, texts: Sequence[str], joined: str | None = None) -> set[int]:
        """The indexes of ``texts`` (each lowered; ``joined``: those joined by NUL, when made
        already) that may hold a run: none when they hold no piece joined (one pass), else each
        text read on its own."""
        if not self.found_in(comparable("\x00".join(texts) if joined is None else joined, lowered=True)):
            return set()
        return {index for index, text in enumerate(texts)
                if len(text) >= MIN_QUOTE and self.found_in(comparable(text, lowered=True))}

    def spans(self, text: str) -> list[tuple[int, int]] | None:
        """The runs of at least ``guaranteed_run`` characters ``text`` shares with a spelling, each
        as wide as it goes (over the encoded text around a run of an encoding), in order; None when
        a text has too many places sharing a piece with a secret to widen each (take it out whole)."""
        low = comparable(text)
        read = _EVERY_STEP.findall(low)
        places = [index * STEP for index, piece in enumerate(read) if self._place(piece) >= 0]
        if len(places) > _WIDENED:
            return None
        spans: list[tuple[int, int]] = []
        done = 0
        for at in places:
            if at < done:
                continue  # inside the run just taken out
            other = self._place(low[at:at + GRAM])
            which = self._spelling_at(other)
            start, end = self._starts[which], self._starts[which + 1] - 1
            left = _shared_before(low, at, self._joined, other, min(at - done, other - start))
            right = _shared_after(low, at + GRAM, self._joined, other + GRAM, end - other - GRAM)
            run = (at - left, at + GRAM + right)
            if run[1] - run[0] >= MIN_QUOTE:
                spans.append(_widened_over_encoding(text, run, done) if self._encoded[which] else run)
                done = spans[-1][1]
        return spans

    def _spelling_at(self, place: int) -> int:
        low, high = 0, len(self._starts) - 1
        while high - low > 1:  # bisect, by hand: the last start at or before ``place``
            middle = (low + high) // 2
            if self._starts[middle] <= place:
                low = middle
            else:
                high = middle
        return low

    def out_of(self, text: str, replacement: str) -> str:
        """``text`` with each run (``spans``) replaced; ``replacement`` alone when it has too many."""
        spans = self.spans(text)
        if spans is None:
            return replacement
        if not spans:
            return text
        out, done = [], 0
        for start, end in spans:
            out += [text[done:start], replacement]
            done = end
        return "".join(out) + text[done:]


def _shared_after(a: str, i: int, b: str, j: int, most: int) -> int:
    """How many characters ``a`` from ``i`` and ``b`` from ``j`` share (at most ``most``): found by
    halving with slice comparisons, so a long run costs its length a few times in C."""
    low, high = 0, max(0, min(most, len(a) - i, len(b) - j))
    while low < high:
        middle = (low + high + 1) // 2
        if a[i + low:i + middle] == b[j + low:j + middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _shared_before(a: str, i: int, b: str, j: int, most: int) -> int:
    """How many characters ``a`` before ``i`` and ``b`` before ``j`` share (at most ``most``)."""
    low, high = 0, max(0, min(most, i, j))
    while low < high:
        middle = (low + high + 1) // 2
        if a[i - middle:i - low] == b[j - middle:j - low]:
            low = middle
        else:
            high = middle - 1
    return low


def _widened_over_encoding(text: str, run: tuple[int, int], done: int) -> tuple[int, int]:
    start, end = run
    while start > done and _ENCODED_CHAR.match(text, start - 1):
        start -= 1
    while end < len(text) and _ENCODED_CHAR.match(text, end):
        end += 1
    return start, end
