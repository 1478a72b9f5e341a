"""The secrets one call sent, taken out of what the implementation writes itself.

Redaction by schema covers every value the guard echoes. What the implementation writes (an
exception's text, notes, chain and group members; a ToolError's message, field, upstream text and
partial results) is free text that no schema describes, so the values the call sent at sensitive
positions (as redaction decides them) are looked for there and replaced by ``[redacted]``, in the
spellings a tool may give them: any case, JSON- or repr-escaped, percent-encoded. Text is scrubbed
before any cap cuts it, so a cut never leaves a secret's prefix.
"""

from __future__ import annotations

import base64
import bisect
import collections
import contextlib
import html
import itertools
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any
from urllib.parse import quote, quote_plus, unquote

from .jsonvalue import JSON_SCALARS, MISSING, names_within, shortened, thaw
from .patterns import matches_any
from .pointer import resolve_pointer
from .quotes import GRAM, MIN_QUOTE, QuoteIndex, comparable
from .redaction import REDACTED, echo_at, redact, sensitive_name
from .schema_resolve import marked_member_names, marked_member_patterns, marks_anything
from .secret_positions import MAX_NODES, SecretPositions
from .wording import Violation, one_edit_apart

#: Characters a sent value needs to be looked for: shorter ones would scrub ordinary words.
MIN_SECRET = 4
#: A shorter value of digits alone (a CVV, a short PIN) is looked for as a whole number.
MIN_DIGITS = 3
#: Secret texts looked for in what the tool writes: each costs a pass of its spellings, and past
#: this many (4,096 took 1.2 s per MB written) a call's texts are withheld instead (``WITHHELD``).
SECRETS_CAP = 256
#: What the copy a call's secrets are read from shows where redaction hid a value only for being
#: where no schema describes it (``redaction.redact``'s ``astray``): it may be a secret sent astray.
ASTRAY = "[redacted: astray]"
#: What stands for a text that may hold one of more secrets than a scrubber looks for.
WITHHELD = f"[withheld: the call sent more than {SECRETS_CAP} secret values, too many to take out of this text]"
#: What every cap puts where it cut a text, and how far back a cut secret's start is looked for.
CUT = "…"
CUT_WINDOW = 300
#: Characters of a secret's start, cut off by a cap, that are taken out with it.
MIN_CUT = 3
#: The fewest characters of a secret's start or end that are taken out where a tool quotes only
#: them (``key[:16]``): with a quarter of the secret's length (``piece_length``).
MIN_PIECE = 8
#: Members looked at when collecting them (bounded work on a huge call).
_WALK_CAP = 100_000
#: Distinct member names judged for a secret-looking one before a call counts as one that may hold
#: a secret (its shortened copy is then read): judging a name costs microseconds, and a call of
#: 700,000 distinct names (10 MB) took 7 s, an ok call on an open schema too.
_NAMES_JUDGED = 5_000
#: Texts of a call compared with each other for one sent twice (a bigger call has its secrets found).
_COMPARED = 64
#: Members and containers read of a shortened copy (at most _WALK_CAP members, so fewer containers):
#: enough to read it whole. _collect stopped at _WALK_CAP, and a secret in a big call's first record
#: (read last) was never found.
_KEPT_COPY_READS = 3 * _WALK_CAP
#: Characters compared when looking for texts that all but spell a secret (``_near_misses``): 250
#: texts beside 250 secrets of 10,000 characters took 1.8 s; past this a text is taken out whole.
_NEAR_WORK = 20_000_000
#: Members of each array or object looked at: as many as an explanation examines (schema_check).
_MEMBER_CAP = 1000
#: Members of a call its secrets are looked for in (a shortened copy, shared fairly among nested
#: containers): redacting a member costs about 10 us (its schema, its name), and a copy of 100,000
#: took 0.7 s on a call of 200 records of 1,000 members with one secret-looking name among them.
_KEPT_MEMBERS = 10_000


def piece_length(length: int) -> int:
    """Characters of the start or end of a secret of ``length`` characters that tell enough of it to
    be taken out: at least ``MIN_PIECE`` (shorter pieces are ordinary words: a secret may start with
    ``pass``) and at least a quarter of it: 10 characters of a 40-character key (60 bits of a random
    one) tell it, while what long secrets of a kind share is shorter than a quarter of them (a JWT's
    usual 36-character header, a PEM key's first line), and stays where a tool writes it of its own.
    A secret no longer than that has no piece but itself."""
    return max(MIN_PIECE, -(-length // 4))


def _longest_first(text: str) -> tuple[int, str]:
    return -len(text), text


def _by_lowered(spellings: Iterable[str]) -> dict[str, list[str]]:
    """Each spelling lowered -> the spellings it lowers from (in the order given)."""
    lowered: dict[str, list[str]] = {}
    for spelling in spellings:
        lowered.setdefault(spelling.lower(), []).append(spelling)
    return lowered


class SecretsWithheld(ValueError):
    """An ok output that may quote one of the secrets a call sent, among more than are looked for."""


class Scrubber:
    """Replaces the given secret texts, in every spelling above, wherever they appear. Made with
    ``withhold`` (more secrets than ``SECRETS_CAP``), it looks for none and fails closed: every text
    long enough to hold one of them becomes ``WITHHELD``."""

    __slots__ = ("_by_prefix", "_compiled", "_encoded", "_lowered", "_numbers", "_piece_only", "_pieces",
                 "_prefixes", "_quotes", "_secrets", "_shortest", "_spellings")

    def __init__(self, secrets: Iterable[str], withhold: bool = False) -> None:
        secrets = list(secrets)
        #: with ``withhold``, the fewest characters a text holding one of them has (else None)
        self._shortest: int | None = None
        if withhold:
            # no spelling is shorter than half the secret with its whitespace collapsed (a base64
            # core of a longer text, a near miss), a quoted start or end shorter than a quarter
            # (``piece_length``) or than a run of MIN_QUOTE (``quotes``), and a short number is
            # looked for as itself
            self._shortest = max(MIN_DIGITS, min((min((len(" ".join(s.split())) + 1) // 2, piece_length(len(s)),
                                                      MIN_QUOTE) for s in secrets), default=MIN_DIGITS))
            secrets = []
        self._secrets = sorted({s.lower() for s in secrets if len(s) >= MIN_SECRET}, key=len, reverse=True)
        spellings: set[str] = set()
        numbers: set[str] = set()
        self._encoded: set[str] = set()
        #: a lowered piece (a spelling's start or end) -> the lowered spellings it starts (True) or ends
        self._pieces: dict[str, list[tuple[str, bool]]] = {}
        pieces: set[str] = set()
        runs: list[tuple[str, bool]] = []
        for secret in secrets:
            if MIN_DIGITS <= len(secret) < MIN_SECRET and secret.isdigit() and secret.isascii():
                numbers.add(secret)
            else:
                encoded = _base64_spellings(secret)  # once: a long secret's encodings cost most here
                spellings.update(s for s in _spellings(secret, encoded) if len(s) >= MIN_SECRET)
                self._encoded.update(encoded)
                if len(secret) > MIN_QUOTE:
                    runs.extend(_run_spellings(secret))
                for piece, spelling, starts in _piece_spellings(secret):
                    pieces.add(piece)
                    self._pieces.setdefault(piece.lower(), []).append((spelling.lower(), starts))
        #: runs of MIN_QUOTE characters anywhere in a secret (``key[5:30]``), in its piecewise spellings
        quotes = QuoteIndex(runs) if runs else None
        self._quotes: QuoteIndex | None = quotes if quotes else None
        #: pieces that are no whole spelling: replaced only as widened (``_without_pieces``)
        self._piece_only = frozenset(pieces - spellings)
        self._spellings = sorted(spellings | pieces, key=_longest_first)
        self._numbers = sorted(numbers)
        self._lowered = _by_lowered(self._spellings)
        self._by_prefix: dict[str, list[str]] | None = None  # made when many spellings are looked for
        self._prefixes: re.Pattern[str] | None = None
        self._compiled: dict[tuple[bool, frozenset[str]], re.Pattern[str]] = {}  # (encoded?, found) -> pattern

    def __bool__(self) -> bool:
        return bool(self._spellings or self._numbers) or self._shortest is not None or self._quotes is not None

    def withholds(self, value: Any) -> bool:
        """Whether ``value`` (a text or a JSON value) holds a text this scrubber withholds."""
        if self._shortest is None:
            return False
        texts: list[str] = []
        _strings(value, texts)
        return any(map(self._withheld, texts))

    def _withheld(self, text: str) -> bool:
        # a text cut by a cap may end in a secret's first MIN_CUT characters
        return len(text) >= (self._shortest or 0) or CUT in text and len(text) > MIN_CUT

    def text(self, text: str) -> str:
        """``text`` with every secret replaced."""
        if self._shortest is not None and isinstance(text, str):
            return WITHHELD if self._withheld(text) else text
        if not isinstance(text, str) or not (self._spellings or self._numbers or self._quotes is not None):
            return text
        present = self._present(text.lower())
        numbers = self._numbers_in(text)
        if present or numbers:
            if any(s in self._encoded for s in present):
                text = self._without_encoded(text, present)
            text = self._pattern(present - self._piece_only, numbers).sub(REDACTED, text)
            pieces = [s for s in present if s.lower() in self._pieces]
            if pieces:
                text = self._without_pieces(text, pieces)
        if self._quotes is not None:
            text = self._quotes.out_of(text, REDACTED)
        return self._cut_prefixes(text) if CUT in text else text

    def _without_pieces(self, text: str, pieces: list[str]) -> str:
        """``text`` with each quoted start or end of a secret (one of ``pieces``, those of them it
        holds) replaced, widened by hand to as much of the secret as it quotes: the piece alone would
        leave the rest of a longer quote (``key[:20]`` past its first 10 characters). One pass: a
        widened quote is skipped, and a start is widened no further back than the last one, so a
        text costs its length and each quote the secret's at most (10,000-character secrets stay
        cheap)."""
        out, done = [], 0
        pattern = self._pattern(frozenset(pieces), [])
        match = pattern.search(text)
        while match is not None:
            start, end = match.span()
            low_piece = match.group().lower()
            widest_start, widest_end = start, end
            for spelling, starts in self._pieces.get(low_piece, ()):
                if starts:  # the spelling's start: read on while the text goes on spelling it
                    i, j = end, len(low_piece)
                    while i < len(text) and j < len(spelling) and text[i].lower() == spelling[j]:
                        i, j = i + 1, j + 1
                    widest_end = max(widest_end, i)
                else:  # its end: read back
                    i, j = start, len(spelling) - len(low_piece)
                    while i > done and j > 0 and text[i - 1].lower() == spelling[j - 1]:
                        i, j = i - 1, j - 1
                    widest_start = min(widest_start, i)
            out += [text[done:widest_start], REDACTED]
            done = widest_end
            match = pattern.search(text, done)
        return "".join(out) + text[done:]

    def _present(self, low: str) -> frozenset[str]:
        """The spellings that occur in ``low`` (a lowered text). Looking for each in turn costs one
        pass of the text per spelling: 256 secrets (2,500 spellings) over a result of 100,000
        strings took 23 s. Past a few dozen, one pattern of a piece of each (_PREFIX characters, the
        one fewest other spellings hold: 256 keys sharing their first characters were each looked
        for whenever one was there, 0.3 s over 100,000 strings) finds which may occur (a trie, which
        re reads in one pass), and only those are looked for. Making that pattern costs about a
        millisecond (four secrets sent, some 150 spellings), so a short text (``_SCAN_WORK``) is
        still looked through spelling by spelling: the same answer, each search a pass in C."""
        if len(self._lowered) <= _SCANNED or len(self._lowered) * len(low) <= _SCAN_WORK:
            return frozenset(s for low_spelling in self._lowered if low_spelling in low
                             for s in self._lowered[low_spelling])
        if self._by_prefix is None or self._prefixes is None:
            self._by_prefix = {}
            for low_spelling, key in _rarest_pieces(self._lowered):
                self._by_prefix.setdefault(key, []).append(low_spelling)
            self._prefixes = re.compile(_trie_pattern(self._by_prefix))
        # every place a key starts (overlapping ones too), each read as its own key and the shorter
        # keys it begins with (the trie reads the longest)
        found = {key[:length] for key in set(self._prefixes.findall(low)) for length in range(MIN_DIGITS, _PREFIX + 1)}
        return frozenset(s for prefix in found for low_spelling in self._by_prefix.get(prefix, ())
                         if low_spelling in low for s in self._lowered[low_spelling])

    def _numbers_in(self, text: str) -> list[str]:
        """The short numbers (a CVV) that occur in ``text`` as whole numbers."""
        if len(self._numbers) <= _SCANNED:
            return [n for n in self._numbers if n in text]
        return sorted(set(_THREE_DIGITS.findall(text)).intersection(self._numbers))

    def _pattern(self, present: frozenset[str], numbers: list[str], encoded: bool = False) -> re.Pattern[str]:
        """One pattern for the spellings found in a text (and its numbers; ``encoded``: its base64
        spellings alone): a pattern of them all took 6 s over 1 MB with 1,000 of them."""
        key = (encoded, present | frozenset(numbers))
        compiled = self._compiled.get(key)
        if compiled is None:
            alternatives = [re.escape(s) for s in sorted(present, key=_longest_first)
                            if (s in self._encoded) is encoded]
            alternatives += [rf"(?<![0-9]){n}(?![0-9])" for n in numbers]
            if len(self._compiled) >= 64:
                self._compiled.clear()
            compiled = self._compiled[key] = re.compile("|".join(alternatives) or "(?!)", re.IGNORECASE)
        return compiled

    def _without_encoded(self, text: str, present: frozenset[str]) -> str:
        """``text`` with each base64 text holding a secret's encoding replaced whole: its edges
        would tell the secret's first and last bytes. Widened by hand (a pattern widening on both
        sides takes quadratic time on a long encoded text)."""
        pieces, last = [], 0
        for match in self._pattern(present, [], encoded=True).finditer(text):
            start, end = match.start(), match.end()
            if start < last:
                continue
            while start > last and text[start - 1] in _BASE64_CHARS:
                start -= 1
            while end < len(text) and (text[end] in _BASE64_CHARS or text[end] == "="):
                end += 1
            pieces += [text[last:start], REDACTED]
            last = end
        return "".join(pieces) + text[last:] if pieces else text

    def _cut_prefixes(self, text: str) -> str:
        """``text`` without the start of a secret that a cap cut off (``…`` right after it)."""
        pieces = text.split(CUT)
        for i, piece in enumerate(pieces[:-1]):
            tail = piece[-CUT_WINDOW:].lower()
            for secret in self._secrets:
                length = next((k for k in range(min(len(secret) - 1, len(tail)), MIN_CUT - 1, -1)
                               if tail.endswith(secret[:k])), 0)
                if length:
                    pieces[i] = piece[:-length] + REDACTED
                    break
        return CUT.join(pieces)

    def value(self, value: Any, depth: int = 0) -> Any:
        """A copy of a JSON-like value with every secret replaced in its strings and keys (each text
        this scrubber withholds replaced by ``WITHHELD``: the value keeps its shape, as a notice's
        list of objects must)."""
        if self._shortest is not None:
            texts: list[str] = []
            _strings(value, texts)
            if not any(map(self._withheld, texts)):
                return value
            return _rebuilt(value, iter([WITHHELD if self._withheld(text) else text for text in texts]))
        if not self:
            return value
        if isinstance(value, str):
            return self.text(value)
        if depth > 256:
            return value
        if depth == 0:
            # its texts are looked through at once, and the few secrets found in them replaced
            texts = []
            _strings(value, texts)
            joined = "\x00".join(texts)
            lowered = list(map(str.lower, texts))  # (lowering may change a length: 'İ' is two)
            low = "\x00".join(lowered)
            narrowed = self._only(self._present(low), self._numbers_in(joined), CUT in joined)
            # a run of a secret quoted anywhere (``quotes``): the texts that may hold one
            quoting = set() if self._quotes is None else self._quotes.holding(lowered, low)
            spelt = bool(narrowed._spellings or narrowed._numbers)
            if not spelt and not quoting:
                return value
            holding = narrowed._holding(lowered, low) if spelt else set()
            if holding is not None:
                holding |= quoting
                # only the texts holding one are scrubbed one by one: scrubbing every text of a
                # result of 100,000 strings took 0.35-0.5 s
                if not holding:
                    return value
                replaced = iter([narrowed.text(text) if index in holding else text
                                 for index, text in enumerate(texts)])
                return _rebuilt(value, replaced)
            if narrowed is not self:
                return narrowed.value(value, 1)
        if isinstance(value, Mapping):
            return {self.text(k) if isinstance(k, str) else k: self.value(v, depth + 1) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.value(v, depth + 1) for v in value]
        return value

    def _holding(self, lowered: list[str], low: str) -> set[int] | None:
        """The indexes of the texts (``lowered``, ``low`` those joined by NUL) that ``text`` would
        change: those holding a lowered spelling (what ``_present`` asks) or a short number whole,
        or cut by a cap; found in one pass over ``low``. None when a spelling holds the NUL itself
        (a match could run into the next text), or there are too many spellings for one pattern
        (see ``_pattern``)."""
        if len(self._lowered) > _SCANNED or "\x00" in "".join(self._lowered):
            return None
        alternatives = [re.escape(s) for s in sorted(self._lowered, key=_longest_first)]
        alternatives += [rf"(?<![0-9]){n}(?![0-9])" for n in self._numbers] + [re.escape(CUT)]
        ends = list(itertools.accumulate(len(text) + 1 for text in lowered))  # where each text's NUL is
        return {bisect.bisect_right(ends, match.start()) for match in re.finditer("|".join(alternatives), low)}

    def _only(self, present: frozenset[str], numbers: list[str], cut: bool) -> Scrubber:
        """This scrubber looking for ``present`` and ``numbers`` alone (``cut``: a cap cut a text, whose
        secret's start is looked for among every secret)."""
        narrowed = Scrubber(())
        narrowed._spellings = sorted(present, key=_longest_first)
        narrowed._lowered = _by_lowered(narrowed._spellings)
        narrowed._numbers = numbers
        narrowed._encoded = self._encoded & present
        narrowed._pieces = self._pieces
        narrowed._piece_only = self._piece_only
        narrowed._secrets = self._secrets if cut else []
        narrowed._quotes = self._quotes
        if cut and not (narrowed._spellings or narrowed._numbers):
            return self  # nothing found whole, but a start before a cut may be: the full walk
        return narrowed

    def violation(self, violation: Violation) -> Violation:
        """A copy of ``violation`` with every secret replaced in what it shows."""
        return Violation(self.text(violation.field), violation.constraint, self.text(violation.message),
                         expected=None if violation.expected is None else self.text(violation.expected),
                         attempted=violation.attempted if violation.attempted is MISSING
                         else self.value(violation.attempted),
                         did_you_mean=None if violation.did_you_mean is None else self.text(violation.did_you_mean),
                         secondary=violation.secondary)


NO_SECRETS = Scrubber(())
#: Spellings looked for one pass each; more are first narrowed by their first _PREFIX characters.
_SCANNED = 40
#: Spellings times characters of a text past which the spellings that may occur are first narrowed
#: (``Scrubber._present``): a short result beside a few secrets cost 1.3 ms in making the pattern.
_SCAN_WORK = 50_000
_PREFIX = 6
_THREE_DIGITS = re.compile(r"(?<![0-9])[0-9]{3}(?![0-9])")
_PIECES_READ = 64


def _rarest_pieces(spellings: Iterable[str]) -> Iterator[tuple[str, str]]:
    """(spelling, the piece of _PREFIX characters among its first _PIECES_READ that the fewest of
    ``spellings`` hold; a shorter spelling is its own piece). Only its start is read: every piece of
    ten 10,000-character secrets' spellings took 3.7 s."""
    pieces = {spelling: {spelling[i:i + _PREFIX] for i in range(max(1, min(len(spelling) - _PREFIX + 1, _PIECES_READ)))}
              for spelling in spellings}
    held = collections.Counter(itertools.chain.from_iterable(pieces.values()))
    for spelling, own in pieces.items():
        yield spelling, min(sorted(own), key=held.__getitem__)


def _trie_pattern(by_prefix: Mapping[str, Any]) -> str:
    """A pattern matching any key of ``by_prefix``, written as a trie (``ab(?:c|d)``): re tries each
    alternative of a flat one at every position (6 s over 1 MB for 1,000 of them), a trie's
    branches once per character. The keys are at most _PREFIX characters, so it nests that deep."""
    root: dict[str, Any] = {}
    for key in by_prefix:
        node = root
        for char in key:
            node = node.setdefault(char, {})
        node[""] = {}

    def written(node: dict[str, Any]) -> str:
        branches = [re.escape(char) + written(child) for char, child in sorted(node.items()) if char]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if "" in node else body
    return "(?=(" + written(root) + "))"


def _rebuilt(value: Any, texts: Iterator[str], depth: int = 0) -> Any:
    """A copy of ``value`` whose strings and keys are the next of ``texts``, read in the order
    ``_strings`` gives them."""
    if isinstance(value, str):
        return next(texts)
    if depth <= 256 and isinstance(value, Mapping):
        # a key is read before its member (a dict display evaluates the key first)
        return {next(texts) if isinstance(key, str) else key: _rebuilt(member, texts, depth + 1)
                for key, member in value.items()}
    if depth <= 256 and isinstance(value, (list, tuple)):
        return [next(texts) if type(member) is str else _rebuilt(member, texts, depth + 1) for member in value]
    return value


def _strings(value: Any, found: list[str], depth: int = 0) -> None:
    """Every string and string key in ``value``, as ``Scrubber.value`` reads them."""
    if isinstance(value, str):
        found.append(value)
    elif depth <= 256 and isinstance(value, Mapping):
        for key, member in value.items():
            if isinstance(key, str):
                found.append(key)
            _strings(member, found, depth + 1)
    elif depth <= 256 and isinstance(value, (list, tuple)):
        for member in value:
            _strings(member, found, depth + 1)


_PLAIN = re.compile(r"[A-Za-z0-9_.~-]+")


#: The spellings (see ``_spellings``) whose start and end spell the secret's start and end: each of
#: them escapes or encodes character by character (hex last: the others are its escaped spellings).
_PIECEWISE: tuple[Callable[[str], str], ...] = (
    lambda s: s, lambda s: json.dumps(s)[1:-1], lambda s: json.dumps(s, ensure_ascii=False)[1:-1],
    lambda s: json.dumps(s)[1:-1].replace("/", "\\/"), html.escape, lambda s: html.escape(s, quote=False),
    lambda s: quote(s, safe="", errors="surrogatepass"), lambda s: quote(s, errors="surrogatepass"),
    lambda s: quote_plus(s, errors="surrogatepass"), lambda s: s.encode("utf-8", "surrogatepass").hex())


def _piece_spellings(secret: str) -> Iterator[tuple[str, str, bool]]:
    """(piece, spelling, whether it starts it) for the secret's start and end of ``piece_length``
    characters, in each spelling that escapes character by character: a tool quoting only
    ``key[:16]`` or ``key[-12:]`` tells that much of it. None for a secret no longer than a piece."""
    length = piece_length(len(secret))
    if len(secret) <= length:
        return
    escapes = _PIECEWISE if not _PLAIN.fullmatch(secret) else (_PIECEWISE[0], _PIECEWISE[-1])
    for escape in escapes:
        spelling = escape(secret)
        start, end = escape(secret[:length]), escape(secret[-length:])
        if spelling.startswith(start):
            yield start, spelling, True
        if spelling.endswith(end):
            yield end, spelling, False


def _run_spellings(secret: str) -> Iterator[tuple[str, bool]]:
    """(spelling, whether it encodes) for each spelling of ``secret`` in which a run of its
    characters is spelt as a run of the spelling: the escapes of ``_PIECEWISE`` (as is, JSON, HTML,
    percent; a plain secret's are itself), hex, and base64 read from each of the three places a
    byte can start in a group (``key[5:30]`` encoded shares its whole groups with one of them; the
    URL-safe alphabet is read as the standard one, ``quotes.comparable``)."""
    escapes = _PIECEWISE[:-1] if not _PLAIN.fullmatch(secret) else _PIECEWISE[:1]
    for escape in escapes:
        yield escape(secret), False
    yield _PIECEWISE[-1](secret), True
    data = secret.encode("utf-8", "surrogatepass")
    for offset in range(3):
        yield base64.b64encode(data[offset:]).decode("ascii"), True


def _spellings(secret: str, base64_spelt: set[str] | None = None) -> set[str]:
    """The secret as text may carry it: as is, whitespace collapsed, JSON- (also with ``\\/``, as
    PHP writes it), repr- and HTML-escaped, percent-encoded (``/`` kept or not), and each of those
    escaped once more (a KeyError of a tool's JSON text); hex-encoded; and base64-encoded, alone or
    inside a longer encoded text (``Basic <base64 of user:password>`` in an upstream's echo of its
    request). ``base64_spelt``: those base64 spellings, when already made (a long secret's cost most)."""
    encoded = (_base64_spellings(secret) if base64_spelt is None else base64_spelt) | {_PIECEWISE[-1](secret)}
    if _PLAIN.fullmatch(secret):  # every escape leaves it as it is
        return {secret} | encoded
    once = {escape(secret) for escape in _PIECEWISE[:-1]} | {" ".join(secret.split()), repr(secret)[1:-1]}
    return once | {repr(s)[1:-1] for s in once} | {json.dumps(s)[1:-1] for s in once} | encoded


_BASE64_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-")
#: Characters of base64 a secret's encoding inside a longer one must keep to be looked for (6 bytes):
#: shorter runs would match ordinary encoded data.
_MIN_BASE64 = 8


def _base64_spellings(secret: str) -> set[str]:
    """The base64 texts (standard and URL-safe alphabets) that spell ``secret``: its own encoding,
    and for each of the three places it can start in a longer encoded text, the part of the
    encoding its bytes alone decide (the first and last groups of four mix in their neighbours)."""
    data = secret.encode("utf-8", "surrogatepass")
    found: set[str] = set()
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        found.add(encode(data).decode("ascii"))
        for offset in range(3):
            text = encode(b"\0" * offset + data).decode("ascii")
            end = len(text) if (offset + len(data)) % 3 == 0 else len(text) - 4
            core = text[4 if offset else 0:end]
            if len(core) >= _MIN_BASE64:
                found.add(core)
    return found


def secrets_sent(arguments: Any, schema: Any, resources: Mapping[str, Any] | None = None) -> Scrubber:
    """A scrubber for what ``arguments`` hold at the positions ``schema`` makes sensitive (marked
    ``writeOnly`` / ``x-sensitive`` through any reference or combinator, or under a secret-looking
    name); NO_SECRETS when there are none or the arguments cannot be read."""
    try:
        if not may_hold_secrets(arguments, schema, resources):
            return NO_SECRETS
    except Exception:  # noqa: BLE001 - arguments that raise when read hold nothing we can look for
        return NO_SECRETS
    return _secrets_in(arguments, schema, resources)


def _secrets_in(arguments: Any, schema: Any, resources: Mapping[str, Any] | None) -> Scrubber:
    try:
        named = _named_secrets(arguments, schema, resources)
        kept = shortened(arguments, _MEMBER_CAP, _KEPT_MEMBERS)[0]
        # The pre-check on the whole call may have given up on its size alone. Redaction reads only
        # this copy, so where the copy has no mark and no secret-looking name it hides nothing: the
        # copy is read whole before redacting it, which cost 0.4 s on a call of 1,000 objects of
        # 1,000 members.
        shown = redact(kept, schema, schema, resources=resources, astray=ASTRAY) \
            if may_hold_secrets(kept, schema, resources, cap=_KEPT_COPY_READS) else kept
    except Exception:  # noqa: BLE001
        return NO_SECRETS
    return secrets_between(arguments, shown, named)


def _named_secrets(arguments: Any, schema: Any, resources: Mapping[str, Any] | None) -> list[str]:
    """The texts a call sent under a name the schema marks where it declares it (in ``properties``,
    or a ``patternProperties`` pattern the name matches), or under a secret-looking name, wherever
    they are in the call: the copy redaction reads is shortened, and a password sent after 1,000
    other members was cut from it, never found, and echoed by the tool in its ok output. Names are
    matched by set operations; at most ``_NAMES_JUDGED`` distinct ones are judged for a
    secret-looking look (or a marked pattern), in the order sent."""
    wanted = set(marked_member_names(schema, resources))
    patterns = marked_member_patterns(schema, resources)

    def secret_name(name: str) -> bool:
        # a pattern that cannot be judged (an odd name) counts as matching: the careful side
        return sensitive_name(name) or bool(patterns) and matches_any(patterns, name) is not False
    judged: set[str] = set()
    found: list[str] = []
    for node in _objects(arguments, _WALK_CAP):
        if node is None:
            break
        if type(node) is dict and _STR_ONLY.issuperset(map(type, node)):
            room = _NAMES_JUDGED - len(judged)
            fresh = list(itertools.islice((k for k in node if k not in judged), room)) if room > 0 else []
            judged.update(fresh)
            wanted.update(filter(secret_name, fresh))
            hits: Iterable[Any] = node.keys() & wanted
        else:  # the caller's own str type: read as plain text, its hashing and equality never run
            hits = [key for key in itertools.islice(node, _MEMBER_CAP)
                    if isinstance(key, str) and _wanted(str.__str__(key), wanted, judged, secret_name)]
        for key in hits:
            with contextlib.suppress(Exception):  # a member that raises when read holds nothing to look for
                _texts(node[key], found, cap=_MEMBER_CAP)
    return found


def _wanted(name: str, wanted: set[str], judged: set[str], secret_name: Callable[[str], bool]) -> bool:
    if name in wanted:
        return True
    if name in judged or len(judged) >= _NAMES_JUDGED:
        return False
    judged.add(name)
    if secret_name(name):
        wanted.add(name)
        return True
    return False


_STR_ONLY = frozenset({str})


def may_hold_secrets(arguments: Any, schema: Any, resources: Mapping[str, Any] | None,
                      cap: int = _WALK_CAP) -> bool:
    """Whether redaction could hide anything of ``arguments``: the schema marks a position (kept per
    schema), or a key at any depth has a secret-looking name; True too past ``cap`` members and
    containers read. Cheaper than redacting to find out."""
    if marks_anything(schema, resources):
        return True
    if type(arguments) is dict and JSON_SCALARS.issuperset(map(type, arguments.values())):
        # the usual call, flat: its names alone (the walk below would say the same, slower)
        return len(arguments) > _NAMES_JUDGED or any(map(sensitive_name, arguments))
    names_judged: set[str] = set()  # an array of records repeats the same names in every record
    other_names = 0  # names of the caller's own str type, or not str, judged one by one
    for node in _objects(arguments, cap):
        if node is None:
            return True  # too big to look through: redact it
        if type(node) is dict and _STR_ONLY.issuperset(map(type, node)):
            # plain str names only: a subclass's own hashing and equality never run
            fresh = node.keys() - names_judged
            if len(names_judged) + len(fresh) + other_names > _NAMES_JUDGED or any(map(sensitive_name, fresh)):
                return True  # too many names to judge: redact it
            names_judged |= fresh
        else:
            other_names += len(node)
            if len(names_judged) + other_names > _NAMES_JUDGED:
                return True
            for key in node:
                if sensitive_name(key):
                    return True
    return False


def _objects(value: Any, cap: int) -> Iterator[Mapping[Any, Any] | None]:
    """Every object in ``value`` (itself included), reading at most ``cap`` members and containers
    (members are what costs: 1,000 lists of 1,000 took seconds); None last where the cap cut it."""
    todo, seen = [value], 0
    while todo:
        node = todo.pop()
        seen += 1
        if isinstance(node, Mapping):
            seen += len(node)
            members: Iterable[Any] = node.values()
        elif isinstance(node, (list, tuple)):
            seen += len(node)
            members = node
        else:
            continue
        if seen > cap:
            yield None
            return
        if isinstance(node, Mapping):
            yield node
        # a scalar member (the usual one) is told apart by its exact type: an ABC check costs more
        todo.extend(value for value in members
                    if type(value) not in JSON_SCALARS and isinstance(value, (Mapping, list, tuple)))


def echoed_secrets(arguments: Any, violations: Sequence[Violation], schema: Any,
                   resources: Mapping[str, Any] | None = None) -> Scrubber:
    """``secrets_sent``, for an explanation of ``arguments``, where it may matter. Redaction hides a
    secret where it was sent; what it cannot know is the same text sent again elsewhere (as a key,
    in a field that is no secret). So only a call that may hold a secret at all, and holds a text
    twice that the violations show, pays for finding its secrets: most bad calls hold none."""
    if not isinstance(arguments, Mapping):
        return NO_SECRETS
    try:
        if not may_hold_secrets(arguments, schema, resources):
            return NO_SECRETS
        found: list[str] = []
        _texts(arguments, found, cap=_COMPARED + 1)
        if len(found) <= _COMPARED:  # else too many to compare: find the secrets
            texts = [t.lower() for t in found]
            shown = " ".join(_violation_texts(violations)).lower()
            joined = "\x00".join(texts)  # one count finds a text again, alone or inside a longer one
            # a text the violations show that the call holds twice: again, inside a longer text,
            # or all but spelling another (what is shown is looked at first: it is the short list)
            twice = any((joined.count(t) > 1 if "\x00" not in t else sum(t in other for other in texts) > 1)
                        or any(_one_off(t, other) for other in texts if -1 <= len(other) - len(t) <= 1)
                        for t in texts
                        if _may_be_secret(t) and t in shown) or _shares_a_run(texts, shown)
            if not twice and CUT not in shown:  # a cap may have cut one
                return NO_SECRETS
    except Exception:  # noqa: BLE001 - arguments that raise when read hold nothing we can look for
        return NO_SECRETS
    return _secrets_in(arguments, schema, resources)


#: Characters of a call's texts compared for a run two of them share (``_shares_a_run``): past
#: this the call's secrets are found (the careful answer), as for more than _COMPARED texts.
_RUNS_COMPARED = 64_000


def _shares_a_run(texts: list[str], shown: str) -> bool:
    """Whether a text of the call the violations show shares a piece that may start a run of
    MIN_QUOTE characters with another text of the call (``"x" + key[4:28] + "y"`` in a field beside
    the key: echoed whole in "attempted"). True past _RUNS_COMPARED characters."""
    long = [comparable(t) for t in texts if len(t) >= MIN_QUOTE]
    if len(long) < 2:
        return False
    if sum(map(len, long)) > _RUNS_COMPARED:
        return True
    owners: dict[str, int] = {}  # a piece -> the one text holding it, or -1 when two or more do
    for index, text in enumerate(long):
        for piece in {text[i:i + GRAM] for i in range(len(text) - GRAM + 1)}:
            owners[piece] = index if owners.setdefault(piece, index) == index else -1
    shown = comparable(shown)
    return any(owners.get(text[i:i + GRAM]) == -1 for text in long if text in shown
               for i in range(len(text) - GRAM + 1))


#: Texts of a call times characters the tool wrote that ``quotes_arguments`` compares (each text in
#: some 25 spellings, a pass of what was written each): 1,000 notes beside partial results of
#: 10,000 rows took 11 s, 3,000 beside 40,000 rows 146 s, in a tool whose schema marks nothing.
_GATE_WORK = 2_000_000


def quotes_arguments(arguments: Any, written: Iterable[Any]) -> bool:
    """Whether ``written`` (texts and JSON values) may hold a text of ``arguments`` long enough to be a
    secret, in any spelling: a cheap test before finding which of them are secrets. True when
    either cannot be read, or the arguments are too big to read whole here (the careful answer: a
    password read after their first 10,000 texts was never looked for in a ToolError's message), and
    when comparing them would cost more than finding the secrets (``_GATE_WORK``)."""
    try:
        found: list[str] = []
        if not _texts(arguments, found, cap=_MEMBER_CAP * 10):
            return True  # too big to read whole: a secret may be past what was read
        texts = {t for t in found if _may_be_secret(t)}
        if not texts:
            return False
        shown = json.dumps([w for w in written if w is not MISSING], default=str, ensure_ascii=False).lower()
        shown += " " + json.dumps(shown, ensure_ascii=False)  # escaped once more, as JSON quotes it
        if len(texts) * len(shown) > _GATE_WORK:
            return True  # each text is looked for in some 25 spellings: finding the secrets is cheaper
        if CUT in shown or any(t.lower() in shown or _spelt_in(t, shown)
                               or any(p.lower() in shown for p, _, _ in _piece_spellings(t)) for t in texts):
            return True
        # a run of MIN_QUOTE characters of one of them, anywhere (``quotes``)
        runs = QuoteIndex(spelling for t in texts if len(t) > MIN_QUOTE for spelling in _run_spellings(t))
        return bool(runs) and bool(runs.found_in(comparable(shown)))
    except Exception:  # noqa: BLE001
        return True


def _spelt_in(text: str, shown: str) -> bool:
    return any(s.lower() in shown for s in _spellings(text))


def _may_be_secret(text: str) -> bool:
    """Long enough to be looked for: MIN_SECRET characters, or MIN_DIGITS digits (a CVV)."""
    return len(text) >= MIN_SECRET or len(text) >= MIN_DIGITS and text.isdigit()


def _one_off(a: str, b: str) -> bool:
    return len(a) >= MIN_SECRET and abs(len(a) - len(b)) <= 1 and a != b and one_edit_apart(a, b)


def _violation_texts(violations: Sequence[Violation]) -> Iterator[str]:
    for v in violations:
        yield from (v.field, v.message, v.expected or "", v.did_you_mean or "")
        if v.attempted is not MISSING and v.attempted != REDACTED:
            yield v.attempted if isinstance(v.attempted, str) else json.dumps(v.attempted, default=str)


def secrets_between(sent: Any, shown: Any, named: Iterable[str] = ()) -> Scrubber:
    """A scrubber for what of ``sent`` its redacted copy ``shown`` hides, and for the texts ``named``
    (sent under a marked or secret-looking name). Those and what a mark hid are secrets: every one
    is looked for, and past ``SECRETS_CAP`` of them (a short password beside 300 sent keys was
    pushed out and came back) the texts that may hold one are withheld instead. What is hidden only
    for being where no schema describes it (``ASTRAY``: a value that may be a secret sent astray)
    fills the room left, the longest first: 300 long undeclared texts beside a password crowded it
    out before."""
    found: list[str] = []
    astray: list[str] = []
    try:
        _collect(sent, shown, found, astray)
    except Exception:  # noqa: BLE001 - a value that raises when read holds nothing we can look for
        return NO_SECRETS
    secrets, withhold = _secret_texts(sent, itertools.chain(named, found), astray)
    return Scrubber(secrets, withhold=withhold) if secrets else NO_SECRETS


def _secret_texts(sent: Any, found: Iterable[str], astray: list[str]) -> tuple[list[str], bool]:
    """The texts a scrubber for ``sent`` looks for (``found`` and what fits of ``astray``, and their
    near misses), and whether it withholds instead (see ``secrets_between``)."""
    secrets = sorted({f for f in found if _may_be_secret(f)}, key=_longest_first)
    if len(secrets) > SECRETS_CAP:
        # looking for each costs a pass of its spellings over every text: the texts are withheld
        return secrets, True
    room = SECRETS_CAP - len(secrets)
    secrets += sorted({f for f in astray if _may_be_secret(f)} - set(secrets), key=_longest_first)[:room]
    if not secrets:
        return [], False
    try:
        near = _near_misses(sent, secrets)
    except Exception:  # noqa: BLE001 - a value that raises when read again: its secrets still go
        near = []
    return secrets + near, False


def _near_misses(sent: Any, secrets: list[str]) -> list[str]:
    """The other texts of ``sent`` that all but spell a secret or tell a piece of it: one edit or swap
    away from it, or any piece of it of MIN_SECRET characters (a key ``hunter2`` or ``nter`` beside
    the password ``hunter22``); shown, they would tell it."""
    texts: list[str] = []
    _texts(sent, texts, cap=_COMPARED * 4)
    lowered = [s.lower() for s in secrets]
    known = set(lowered)
    each = sum(map(len, lowered))  # characters compared per text, at most
    work = 0
    near = []
    for text in {t for t in texts if len(t) >= MIN_SECRET}:
        low = text.lower()
        if low in known:
            continue  # a secret itself
        work += each + len(low) * len(lowered)
        if work > _NEAR_WORK:
            near.append(text)  # too long to compare with every secret: taken out like one
        # any piece of MIN_SECRET characters or more: a key that was a third of the password was
        # named in "unknown argument '...'" (half was the bound)
        elif any(low in s or abs(len(low) - len(s)) <= 1 and one_edit_apart(low, s) for s in lowered):
            near.append(text)
    return near


def _collect(sent: Any, shown: Any, found: list[str], astray: list[str]) -> None:
    """The texts of ``sent`` where its redacted copy ``shown`` says it was hidden: in ``astray``
    where it says ``ASTRAY``, else in ``found``."""
    todo = [(sent, shown)]
    visited = 0
    while todo and len(found) + len(astray) < _KEPT_MEMBERS and visited < _KEPT_COPY_READS:
        sent, shown = todo.pop()
        visited += 1
        if isinstance(shown, str) and shown in (REDACTED, "…", ASTRAY) and sent != shown:
            # as many texts as the copy keeps members: a value hidden whole is read as sent, and
            # 100 records of 1,000 members hidden whole were read to their end (0.4 s)
            _texts(sent, astray if shown == ASTRAY else found, cap=_KEPT_MEMBERS - len(found) - len(astray))
        elif isinstance(sent, Mapping) and isinstance(shown, Mapping):
            # the members the shortened copy kept: walking the sent ones it cut cost 1.7 s for
            # 1,000 objects of 1,000 members, and nothing was hidden there to find
            todo.extend((sent[key], value) for key, value in shown.items() if key in sent)
        elif isinstance(sent, (list, tuple)) and isinstance(shown, list):
            todo.extend(zip(sent, shown))


def _texts(value: Any, found: list[str], cap: int = _WALK_CAP) -> bool:
    """Every string, key and number inside a hidden value, as the text a tool might write; whether
    ``cap`` left none of it unread."""
    todo = [value]
    seen = 0
    while todo and seen < cap:
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
    return not todo


def output_scrub(schema: Any, resources: Mapping[str, Any] | None = None,
                 output_schema: Any = None) -> Callable[[Any, Any], Any] | None:
    """For a tool whose calls may carry a secret, ``scrub(arguments, output)``: the output with the
    call's secrets taken out of its strings and keys, as from error text (a tool may echo a password
    in its own result: ``{"msg": f"logged in as {pw}"}``); the output itself when the call sent none.
    ``SecretsWithheld`` when the call sent more secrets than are looked for and the output holds a
    text long enough to quote one (the guard refuses the result, naming why). A value ``output_schema`` marks sensitive is withheld as ``[redacted]`` first: check refuses such
    a mark (``sensitive-output``), and where check was skipped the mark still holds.

    None when neither can happen, so the happy path pays nothing: the input schema marks nothing,
    declares no secret-looking name, and lets in no member it does not declare (where a model could
    send ``password`` unasked), and the output schema marks nothing. Decided once per schema."""
    marked = marks_anything(schema, resources)
    withheld = output_schema is not None and marks_anything(output_schema, resources)
    declared = _declared_names(schema)
    if not marked and not withheld and not any(sensitive_name(name) for name in declared) and _closed(schema):
        return None
    positions = SecretPositions(schema, resources)
    #: where only a name can mark a secret, a call using plain names only (one pass in C) sent none:
    #: asked here, ahead of the plan that asks it too, it saves two frames, 5% of a corpus tool's call
    plain_names = positions.plain_names if not positions.marks and positions.readable else None

    def scrub(arguments: Any, output: Any) -> Any:
        if withheld:
            output = redact(output, output_schema, output_schema, resources=resources)
        elif plain_names is not None and names_within(arguments, plain_names, MAX_NODES):
            return output
        sent = _planned_secrets(positions, arguments)
        if sent is None:
            found = secrets_sent(arguments, schema, resources)
        elif not sent[0] or not sent[1] and _unchanged_by(sent[0], output):
            return output  # no secret sent, or none the output's texts are long enough to hold
        else:
            found = Scrubber(*sent)
        if found.withholds(output):
            raise SecretsWithheld(f"the call sent more than {SECRETS_CAP} secret values, too many to make "
                                  "sure the result repeats none of them")
        return found.value(output) if found else output

    #: the names a call may use and send no secret (the output left as it is): the plan asks it inline
    scrub.plain_names = None if withheld else plain_names  # type: ignore[attr-defined]
    return scrub


def _planned_secrets(positions: SecretPositions, arguments: Any) -> tuple[list[str], bool] | None:
    """What ``secrets_sent`` would look for in a call (``_secret_texts``), read at the positions the
    schema's plan names; None where the plan cannot tell (then ``secrets_sent`` reads the call)."""
    values = positions(arguments)
    if values is None:
        return None
    if not values:
        return [], False
    if shortened(arguments, _MEMBER_CAP, _KEPT_MEMBERS)[1]:
        return None  # redaction reads a shortened copy of the call: its own reading
    texts: list[str] = []
    for value in values:
        if not _texts(value, texts, cap=_MEMBER_CAP):
            return None  # a value bigger than what is read of it
    return _secret_texts(arguments, texts, [])


def _unchanged_by(secrets: list[str], output: Any) -> bool:
    """Whether a scrubber for ``secrets`` (not withholding) leaves every text of ``output`` as it is,
    told by length alone. It can never say so of a text the scrubber would change: ``Scrubber.text``
    changes a text only where a pattern matches it (IGNORECASE matches one character of the text per
    character of the pattern, and ``quotes`` compares place for place), or where a cap's ``CUT``
    is. Each pattern is a spelling of a secret, never shorter than ``_shortest_match``: a short
    number is itself, every other spelling is kept only from MIN_SECRET characters and escapes or
    encodes the secret (whitespace collapsed at the shortest), a base64 core or a piece has 8
    characters at least, and a quoted run MIN_QUOTE."""
    shortest = min(map(_shortest_match, secrets))
    texts: list[str] = []
    _strings(output, texts)
    return all(len(text) < shortest and CUT not in text for text in texts)


def _shortest_match(secret: str) -> int:
    """The fewest characters of a text a scrubber looking for ``secret`` changes (see above)."""
    if MIN_DIGITS <= len(secret) < MIN_SECRET and secret.isdigit() and secret.isascii():
        return MIN_DIGITS
    return max(MIN_SECRET, min(len(" ".join(secret.split())), _MIN_BASE64, MIN_PIECE))


def _subschemas(schema: Any) -> Iterator[Mapping[str, Any]]:
    todo, seen = [schema], 0
    while todo and seen < _WALK_CAP:
        node = todo.pop()
        seen += 1
        if isinstance(node, Mapping):
            yield node
            todo.extend(v for v in node.values() if isinstance(v, (Mapping, list)))
        elif isinstance(node, list):
            todo.extend(v for v in node if isinstance(v, (Mapping, list)))


def _declared_names(schema: Any) -> set[str]:
    return {str(name) for node in _subschemas(schema) if isinstance(node.get("properties"), Mapping)
            for name in node["properties"]}


def _closed(schema: Any) -> bool:
    """Whether no object the schema describes takes members it does not declare (a careful answer:
    every object position closed by ``additionalProperties: false`` without ``patternProperties``,
    no combinator to reason through, and references only to a place in the schema itself, whose
    every subschema is read here: ``$defs`` of closed objects behind ``$ref`` made two bundled tools
    pay for a walk of every call's names)."""
    if not isinstance(schema, Mapping):
        return False
    for node in _subschemas(schema):
        if any(key in node for key in ("$dynamicRef", "$recursiveRef", "allOf", "anyOf", "oneOf", "not", "if",
                                       "dependentSchemas", "patternProperties", "unevaluatedProperties")):
            return False
        if "$ref" in node and not _points_inside(schema, node["$ref"]) or "$id" in node and node is not schema:
            return False  # read elsewhere, or in another resource's scope
        types = node.get("type")
        objects = types == "object" or isinstance(types, list) and "object" in types or "properties" in node
        if objects and node.get("additionalProperties") is not False:
            return False
    return schema.get("type") == "object" or "properties" in schema


def _points_inside(schema: Mapping[str, Any], ref: Any) -> bool:
    """Whether ``ref`` is a JSON pointer to a place in ``schema`` itself."""
    return isinstance(ref, str) and (ref == "#" or ref.startswith("#/")) and \
        resolve_pointer(schema, unquote(ref[1:])) is not MISSING


def arguments_shown(tool: Any, arguments: Any, limit: int) -> str:
    """The arguments of a call of ``tool`` as JSON, for a trace or a span (``shown_arguments``)."""
    shown = shown_arguments(tool, arguments, limit)
    return shown if isinstance(shown, str) else json.dumps(shown, sort_keys=True, default=str, ensure_ascii=False)


def shown_arguments(tool: Any, arguments: Any, limit: int) -> Any:
    """The arguments of a call of ``tool`` as a trace or a framework's callbacks may see them: what
    the input schema marks sensitive (and every sensitively named key) replaced, long values capped;
    arguments too long to show whole are summarised (size and key names) before any redaction walks
    them (walking 100,000 members took seconds). A secret also sent where it is not one (as a key,
    in another field) is taken out there too. Exact JSON types only (subclasses read through their
    base types). ``"[unrecordable]"`` for arguments that cannot be read."""
    check = getattr(getattr(tool, "_compiled", None), "input", None)
    try:
        shown = check.echo(arguments, (), limit=limit) if check is not None else \
            echo_at(arguments, (), tool.input_schema, limit=limit)
        # read through base types: the caller's str or dict subclasses reached a framework's
        # callbacks and the trace's sorting, where their own __repr__, __lt__ or __hash__ ran
        shown = thaw(shown)
        return shown if type(shown) is str else secrets_between(arguments, shown).value(shown)
    except Exception:  # noqa: BLE001 - never let an odd argument break the trace
        return "[unrecordable]"
