"""Model-facing wording of schema violations: the Violation record, messages, expectations,
did-you-mean and the summary line."""

from __future__ import annotations

import contextvars
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .jsonvalue import MISSING, json_type
from .pointer import cap_pointer, escape_token
from .schema_resolve import lists_secrets
from .schema_walk import expand, is_marked
from .visible import escaped, visible

EXPECTED_CAP = 240
#: How many allowed values or keys a message lists; a longer list keeps the ones closest to what
#: was sent and says how many it left out.
LIST_CAP = 10
_COMPARED = 64  # characters compared per value: edit distance is quadratic
_RANKED_AT_MOST = 2000  # values ranked by closeness; the rest of a huge enum counts as left out
#: Character comparisons (edit-distance cells, a did-you-mean name comparison counted alike) that
#: ranking values by closeness and did-you-mean may spend on one call's explanation, all violations together
#: (about 50 ms here); past it lists keep their declared order and only the cheap did-you-mean tiers
#: run. Without it one call naming 50 unknown keys against 2,000 declared ones, or a value against
#: an enum of 10,000 long strings, took seconds.
SIMILARITY_BUDGET = 200_000
_budget: contextvars.ContextVar[list[int] | None] = contextvars.ContextVar("similarity_budget", default=None)


class similarity_budget:  # (lower case: read as a function, ``with similarity_budget():``)
    """Bound the similarity work of everything explained inside (one call's explanation). A class,
    not a generator: entered once per bad call, the generator's frame cost a microsecond."""

    __slots__ = ("_cells", "_token")

    def __init__(self, cells: int = SIMILARITY_BUDGET) -> None:
        self._cells = cells

    def __enter__(self) -> None:
        self._token = _budget.set([self._cells])

    def __exit__(self, *_: object) -> None:
        _budget.reset(self._token)


def open_budget() -> contextvars.Token[list[int] | None]:
    """``similarity_budget()`` entered, without the protocol's three calls (a plan's echoes enter one
    per bad call): end it with ``close_budget(token)``, in a ``finally``."""
    return _budget.set([SIMILARITY_BUDGET])


close_budget = _budget.reset


def _spend(cells: int) -> bool:
    """Take ``cells`` from the current budget (a fresh one per ranking outside any); False when it
    cannot pay, and nothing is taken."""
    left = _budget.get()
    if left is None:
        return cells <= SIMILARITY_BUDGET
    return _take(left, cells)


def _take(left: list[int], cells: int) -> bool:
    """``_spend`` from the budget ``left``."""
    if left[0] < cells:
        left[0] = 0  # once short, stay short: later, cheaper items must not reorder the lists
        return False
    left[0] -= cells
    return True


@dataclass(frozen=True, slots=True)
class Subject:
    """Who the checked value belongs to, for the wording: the caller's arguments or the tool's result."""

    noun: str  # "argument": "unknown argument 'x'", "missing required argument 'x'"
    whole: str  # "the arguments": the label of the value itself


ARGUMENTS = Subject("argument", "the arguments")
RESULT = Subject("result field", "the result")

#: Rank of each keyword when listing violations: what the caller most likely got wrong comes first.
RANK = {"additionalProperties": 0, "unevaluatedProperties": 0, "propertyNames": 0,
         "required": 1, "dependentRequired": 1, "type": 2, "const": 3, "enum": 3,
         "anyOf": 5, "oneOf": 5, "allOf": 5, "not": 5, "if": 5, "then": 5, "else": 5,
         "$ref": 5, "$dynamicRef": 5, "false": 5}


@dataclass(slots=True)
class Violation:
    """One reason a value fails its schema, in model-facing terms."""

    field: str  # JSON pointer into the checked value
    constraint: str  # the JSON Schema keyword that failed
    message: str
    expected: str | None = None
    attempted: Any = MISSING  # already redacted and capped; MISSING when nothing was sent
    did_you_mean: str | None = None
    #: a consequence of another violation (a key only a failing shape declares): listed after the rest
    secondary: bool = False

    @property
    def rank(self) -> int:
        return rank_of(self)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"field": cap_pointer(self.field), "constraint": self.constraint,
                               "message": self.message}
        if self.expected:
            out["expected"] = self.expected
        if self.attempted is not MISSING:
            out["attempted"] = self.attempted
        if self.did_you_mean:
            out["did_you_mean"] = self.did_you_mean
        return out


def rank_of(violation: Violation) -> int:
    return RANK.get(violation.constraint, 4) + (10 if violation.secondary else 0)


def _norm(name: str) -> str:
    """The form names are matched in: no case, no separators, no hidden characters (``amount`` is
    what a model meant by ``amount<U+200B>``)."""
    return visible(name).lower().replace("_", "").replace("-", "")


def _common_start(a: str, b: str) -> int:
    """How many leading characters ``a`` and ``b`` share, found by halving with slice comparisons
    (in C): a loop over the characters took seconds for 250 pairs of 10,000-character texts."""
    low, high = 0, min(len(a), len(b))
    if high <= 32:  # names: a character loop is quicker than slicing
        while low < high and a[low] == b[low]:
            low += 1
        return low
    while low < high:
        middle = (low + high + 1) // 2
        if a[low:middle] == b[low:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def one_edit_apart(a: str, b: str) -> bool:
    """One insertion, deletion, substitution or adjacent swap turns a into b."""
    if abs(len(a) - len(b)) > 1 or a == b:
        return False
    if len(a) > len(b):
        a, b = b, a
    i = _common_start(a, b)
    if len(a) == len(b):
        return a[i + 1:] == b[i + 1:] or (
            i + 1 < len(a) and a[i] == b[i + 1] and a[i + 1] == b[i] and a[i + 2:] == b[i + 2:])
    return a[i:] == b[i + 1:]


def did_you_mean(key: str, known: Sequence[str], cutoff: float | None = 0.6) -> str | None:
    """The known name the caller most likely meant: same name modulo case/separators, one typo
    away, or (last) the most ``similarity`` at ``cutoff`` or above, the first declared on a tie
    (skipped when ``cutoff`` is None)."""
    left = _budget.get()  # (_spend, written out: two calls of it were a tenth of a guess)
    if not known or (4 * len(known) > SIMILARITY_BUDGET if left is None else not _take(left, 4 * len(known))):
        return None  # normalising a name costs about four cells
    names = known if type(known) is tuple else tuple(known)
    declared = _DECLARED.get(names)
    if declared is None:  # the declared names come back call after call: read once
        if len(_DECLARED) >= 256:
            _DECLARED.clear()
        declared = _DECLARED[names] = _Declared(names)
    norm = _norm(key)
    same = declared.first_by_norm.get(norm)
    if same is not None:
        return same
    size = len(norm)
    near = declared.near.get(size)
    if near is None:
        near = declared.near_to(size)
    if near:
        # one edit leaves at most one character of the one that is not in the other at all: for an
        # ASCII form, the characters missing from a declared one are counted in C (bytes.translate)
        plain = norm.encode() if norm.isascii() else None
        for name, other, letters in near:
            if (plain is None or len(plain.translate(None, letters)) <= 1) and one_edit_apart(norm, other):
                return name
    length = len(key)
    if length > 64 or cutoff is None or (length * declared.compared > SIMILARITY_BUDGET if left is None
                                         else not _take(left, length * declared.compared)):
        return None
    candidates = declared.candidates.get((length, cutoff))
    if candidates is None:
        candidates = declared.candidates_for(length, cutoff)
    # an ASCII name's letters found in a declared name bound their common subsequence: counted in C
    # (bytes.translate), it skips the comparisons that could not win (most names share few letters)
    sent = key.encode() if key.isascii() else None
    best: str | None = None
    best_score = cutoff
    for name, letters, total, needed in candidates:
        if sent is not None:  # (a score is 2 * common / total, so a bound on common bounds it)
            common = length - len(sent.translate(None, letters))
            if common < needed or best is not None and 2 * min(common, total - length) / total <= best_score:
                continue
        score = 2 * _common_subsequence(name, key) / total
        if score > best_score or best is None and score >= cutoff:
            best, best_score = name, score
    return best


class _Declared:
    """What ``did_you_mean`` reads of a tuple of declared names, kept: their normalised forms, the first
    name of each form, the characters compared per character sent (the similarity budget's unit), and,
    per length of what was sent, the names within one edit of it and those similar enough to compare."""

    __slots__ = ("candidates", "compared", "first_by_norm", "names", "near", "norms")

    def __init__(self, names: tuple[str, ...]) -> None:
        self.names = names
        self.norms = tuple(_norm(name) for name in names)
        self.first_by_norm = dict(zip(reversed(self.norms), reversed(names)))
        self.compared = sum(min(len(name), 64) for name in names)
        #: per normalised length sent: (name, its normalised form, that form's bytes) of those one letter
        #: longer or shorter at most
        self.near: dict[int, tuple[tuple[str, str, bytes], ...]] = {}
        #: per (length sent, cutoff): (name, its UTF-8 bytes, the two lengths' total, the fewest common
        #: characters that reach the cutoff) of the names long enough to reach it, in declared order
        self.candidates: dict[tuple[int, float], tuple[tuple[str, bytes, int, int], ...]] = {}

    def near_to(self, size: int) -> tuple[tuple[str, str, bytes], ...]:
        """The names whose normalised form may be one edit from one of ``size`` characters, kept, with
        that form and its UTF-8 bytes."""
        if len(self.near) >= 256:
            self.near.clear()
        found = self.near[size] = tuple((name, norm, norm.encode("utf-8", "surrogatepass"))
                                        for name, norm in zip(self.names, self.norms)
                                        if size - 1 <= len(norm) <= size + 1)
        return found

    def candidates_for(self, length: int, cutoff: float) -> tuple[tuple[str, bytes, int, int], ...]:
        """The names a name of ``length`` characters may reach ``cutoff`` with, kept: those where even
        all of the shorter one would do, with the fewest common characters for a score of ``cutoff``
        (found by the very division the score is, so a count below it scores below the cutoff)."""
        if len(self.candidates) >= 256:
            self.candidates.clear()
        found = []
        for name in self.names:
            total = length + len(name)
            shorter = min(length, len(name))
            if 2 * shorter < cutoff * total:  # even all of the shorter one would not do
                continue
            # (none below shorter + 1 where the product and the quotient round apart: never reached)
            needed = next((common for common in range(shorter + 1) if 2 * common / total >= cutoff), shorter + 1)
            found.append((name, name.encode("utf-8", "surrogatepass"), total, needed))
        self.candidates[(length, cutoff)] = candidates = tuple(found)
        return candidates


def similarity(a: str, b: str) -> float:
    """How alike two names are: twice their longest common subsequence over their total length (1.0
    equal, 0.0 nothing in common). A dropped, added or swapped letter keeps most of it."""
    total = len(a) + len(b)
    return 2 * _common_subsequence(a, b) / total if total else 1.0


def _common_subsequence(pattern: str, text: str) -> int:
    """The length of the longest common subsequence of ``pattern`` and ``text``, by the bit-parallel
    algorithm (Hyyro 2004): a few integer operations per character of ``text``, whatever the length
    of ``pattern``, instead of a table cell per pair of characters. Bit i of ``row`` is cleared
    once a common subsequence ending at ``pattern[i]`` grows; the cleared bits count the LCS."""
    masks = _MASKS.get(pattern)
    if masks is None:
        masks = {}
        for index, char in enumerate(pattern):
            masks[char] = masks.get(char, 0) | 1 << index
        if len(_MASKS) >= 4096:  # names repeat call after call; odd ones must not pile up
            _MASKS.clear()
        _MASKS[pattern] = masks
    full = (1 << len(pattern)) - 1
    row = full
    for char in text:
        match = masks.get(char)
        if match:
            low = row & match
            row = (row + low) | (row - low)  # carries past the top bit never reach the bits below
    return len(pattern) - (row & full).bit_count()


_MASKS: dict[str, dict[str, int]] = {}  # per pattern: each character's positions as bits
#: per tuple of declared names: what ``did_you_mean`` reads of them
_DECLARED: dict[tuple[str, ...], _Declared] = {}


#: A notice names an undeclared argument only when it is this close to a declared one.
NEAR_MISS_CUTOFF = 0.8


def near_miss_notice(key: str, meant: str) -> dict[str, str]:
    """The ok envelope's notice for an undeclared argument that looks like a misspelt declared one."""
    return {"field": cap_pointer("/" + escape_token(key)),
            "message": f"'{clip(key)}' is not a declared argument; did you mean '{meant}'? The call went "
                       f"ahead without '{meant}' (the schema accepts other keys); call again with "
                       f"'{meant}' if that is what you meant.",
            "did_you_mean": meant}


def field_label(ptr: str, subject: Subject = ARGUMENTS) -> str:
    return f"'{clip(ptr.lstrip('/'))}'" if ptr else subject.whole


def edit_distance(a: str, b: str, limit: int) -> int:
    """Levenshtein distance of ``a`` and ``b``, or ``limit`` when it is at least that (early stop)."""
    if abs(len(a) - len(b)) >= limit:
        return limit
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        if min(current) >= limit:
            return limit
        previous = current
    return min(previous[-1], limit)


def closest_first(options: Sequence[Any], sent: Any, cap: int = LIST_CAP) -> tuple[list[Any], int]:
    """At most ``cap`` of ``options`` to show, and how many were left out.

    A short list is shown whole and in order. A longer one keeps the values closest (by edit
    distance) to what was sent, closest first, so the value the caller needed is not the one cut.
    """
    if len(options) <= cap:
        return list(options), 0
    if not isinstance(sent, str):
        return list(options[:cap]), len(options) - cap
    target = sent[:_COMPARED]
    ranked: list[tuple[int, int]] = []  # (distance, index), the best ``cap`` so far
    worst = _COMPARED + 1
    for index, option in enumerate(options[:_RANKED_AT_MOST]):
        text = (option if isinstance(option, str) else short(option, _COMPARED))[:_COMPARED]
        if not _spend(max(len(target), 1) * max(len(text), 1)):
            if not ranked:
                return list(options[:cap]), len(options) - cap
            break  # the values compared so far are ranked; the rest count as left out
        distance = edit_distance(target, text, worst if len(ranked) >= cap else _COMPARED + 1)
        if len(ranked) < cap or distance < worst:
            ranked.append((distance, index))
            ranked.sort()
            del ranked[cap:]
            worst = ranked[-1][0] if len(ranked) >= cap else _COMPARED + 1
    return [options[i] for _, i in ranked], len(options) - len(ranked)


def listed(options: Sequence[Any], sent: Any = MISSING, cap: int = LIST_CAP, *, quoted: bool = True) -> str:
    """``a, b, c`` or, for a cut list, the closest values then ``(and N more)``; ``quoted=False``
    lists names (keys) as they are."""
    if len(options) <= cap:  # the common case, on the bad-argument path: no ranking
        return ", ".join([short(o, 30) for o in options] if quoted else [clip(str(o), 40) for o in options])
    shown, more = closest_first(options, sent, cap)
    text = ", ".join(short(o, 30) if quoted else clip(str(o), 40) for o in shown)
    if more:
        text += f" (and {more} more" + ("; the closest to what was sent are listed)" if isinstance(sent, str) else ")")
    return text


def clip(text: str, limit: int = 60) -> str:
    """``text`` cut to ``limit`` characters, its hidden characters shown as escapes (``escaped``)."""
    text = escaped(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def short(value: Any, limit: int = 40) -> str:
    if type(value) is str and len(value) < limit - 2 and value.isascii() and value.isprintable() \
            and '"' not in value and "\\" not in value:
        return f'"{value}"'  # what json.dumps would give, without its cost
    if type(value) is int or value is None or type(value) is bool:
        return "null" if value is None else ("true" if value is True else "false" if value is False else str(value))
    text = escaped(json.dumps(value, ensure_ascii=False, default=lambda o: f"<{type(o).__name__}>"))
    return text if len(text) <= limit else text[: limit - 1] + "…"


#: What stands for the allowed values of a sensitive position.
HIDDEN_VALUES = "not shown: the field is sensitive"
#: What stands for the details of a violation inside a sensitive value (its keys are part of it).
HIDDEN_DETAILS = "details not shown: the field is sensitive"


def keyword_message(keyword: str, here: str, node: Any, sent: Any, details: Any,
                    subject: Subject = ARGUMENTS, *, hidden: bool = False, label: str | None = None) -> str:
    """The one-line message for a failed keyword; ``hidden``: the position is sensitive, so neither
    its allowed values nor anything ranked by what was sent are shown. ``label``: what failed, when
    not the value at ``here`` (a member name ``propertyNames`` refuses)."""
    plural = label is None and not here and subject is ARGUMENTS  # "the arguments are", never "is"
    label = field_label(here, subject) if label is None else label
    node = node if isinstance(node, Mapping) else {}
    if hidden and keyword in ("enum", "const"):
        return f"{label} must be {'one of the allowed values' if keyword == 'enum' else 'the one allowed value'}" \
               f" ({HIDDEN_VALUES})"
    if keyword == "type":
        want = node.get("type")
        want_text = " or ".join(want) if isinstance(want, (list, tuple)) else str(want)
        if type(sent) is float and not math.isfinite(sent):  # a model's NaN or Infinity: "(got number)" said nothing
            named = "NaN" if math.isnan(sent) else "Infinity" if sent > 0 else "-Infinity"
            return f"{label} must be a finite {want_text} (got {named}, which JSON has no number for); send a finite number"
        return f"{label} must be of type {want_text} (got {json_type(sent)})"
    if keyword == "enum":
        return f"{label} must be one of: {listed(list(node.get('enum', ())), sent)}"
    if keyword == "const":
        return f"{label} must be exactly {short(node.get('const'))}"
    bounds = {"minimum": ">= {}", "maximum": "<= {}", "exclusiveMinimum": "> {}",
              "exclusiveMaximum": "< {}", "multipleOf": "a multiple of {}",
              "minLength": "at least {} characters long", "maxLength": "at most {} characters long",
              "minItems": "at least {} items", "maxItems": "at most {} items",
              "minProperties": "at least {} keys", "maxProperties": "at most {} keys",
              "minContains": "at least {} matching items", "maxContains": "at most {} matching items",
              "pattern": "a string matching {}", "format": "a valid {}"}
    if keyword in bounds and keyword in node:
        limit = node[keyword]
        shown = short(limit, 60) if keyword == "pattern" else str(limit)
        return f"{label} must be {bounds[keyword].format(shown)}"
    if keyword == "uniqueItems":
        return f"{label} must not contain duplicate items"
    if keyword == "anyOf":
        return f"{label} {'match' if plural else 'matches'} none of the allowed shapes (anyOf)"
    if keyword == "oneOf":
        return f"{label} must match exactly one of the allowed shapes (oneOf)"
    if keyword == "not":
        return f"{label} {'have' if plural else 'has'} a value that is explicitly not allowed (not)"
    if keyword == "contains":
        return f"{label} must contain at least one matching item"
    if keyword == "dependentRequired":
        return f"{label} {'are' if plural else 'is'} missing a key required together with another key " \
               "(dependentRequired)"
    if keyword == "false" or keyword == "falseSchema":
        return f"{label} {'are' if plural else 'is'} not allowed here"
    return f"{label} {'violate' if plural else 'violates'} the '{keyword}' constraint"


def describe(node: Any, root: Any = None, sent: Any = MISSING, *, hidden: bool = False) -> str | None:
    """What the schema expects at a node: type, enum/const, bounds, description and examples.

    A long enum keeps the values closest to ``sent`` (when given) and says how many it left out.
    At a sensitive position (``hidden``, or a node marked ``writeOnly`` / ``x-sensitive``) the
    allowed values and examples are not shown: they may be the secrets themselves.
    """
    if node is True:
        return "any value"
    if node is False:
        return "no value (not allowed)"
    if not isinstance(node, Mapping):
        return None
    parts: list[str] = []
    merged: dict[str, Any] = {}
    for n in expand(node, root) if root is not None else [node]:
        if isinstance(n, Mapping):
            for k, v in n.items():
                merged.setdefault(k, v)
    hidden = hidden or is_marked(merged) or root is not None and any(
        lists_secrets(n, root) for n in expand(node, root))
    typ = merged.get("type")
    if typ is not None:
        parts.append(" or ".join(typ) if isinstance(typ, (list, tuple)) else str(typ))
    if "enum" in merged or "const" in merged and hidden:
        parts.append(f"one of the allowed values ({HIDDEN_VALUES})" if hidden
                     else "one of " + listed(list(merged["enum"]), sent))
    elif "const" in merged:
        parts.append("exactly " + short(merged["const"]))
    for key, text in (("minimum", ">= {}"), ("exclusiveMinimum", "> {}"), ("maximum", "<= {}"),
                      ("exclusiveMaximum", "< {}"), ("multipleOf", "multiple of {}"),
                      ("minLength", "min length {}"), ("maxLength", "max length {}"),
                      ("minItems", "min {} items"), ("maxItems", "max {} items"),
                      ("pattern", "matching {}"), ("format", "format {}")):
        if key in merged and not isinstance(merged[key], (Mapping, list, tuple)):
            value = merged[key]
            parts.append(text.format(short(value, 60) if key == "pattern" else value))
    if merged.get("uniqueItems") is True:
        parts.append("no duplicates")
    text = ", ".join(parts)
    description = merged.get("description")
    if isinstance(description, str) and description:
        text = f"{text}: {description}" if text else description
    examples = merged.get("examples")
    if isinstance(examples, (list, tuple)) and examples and not hidden:
        text += f" (e.g. {short(examples[0], 60)})"
    text = text.strip()
    if not text:
        return None
    return text if len(text) <= EXPECTED_CAP else text[: EXPECTED_CAP - 1] + "…"


def first_lines(violations: Sequence[Violation], limit: int) -> str:
    """A message naming the first violation and how many more there are, within ``limit``."""
    if not violations:
        return "The arguments do not match the tool's input schema."
    return summary_line(violations[0].message, len(violations) - 1, limit)


#: what a summary line says before the first violation's message
SUMMARY_HEAD = "Invalid arguments: "


def summary_line(first: str, more: int, limit: int) -> str:
    """``first_lines`` of a first violation's message and ``more`` violations after it."""
    text = SUMMARY_HEAD + first + summary_tail(first, more)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def summary_tail(first: str, more: int) -> str:
    """What a summary line says after the first violation's message ``first``: printable ASCII
    without a character JSON escapes."""
    tail = "" if first.endswith(("?", ".", "!")) else "."
    if more:
        tail += f" {more} more problem{'s' if more > 1 else ''} in 'violations'."
    return tail + " Fix the arguments and call again."
