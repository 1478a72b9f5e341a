"""Whether every string one ``pattern`` matches is matched by another, decided for a small subset of
ECMA-262 where the answer is exact, with greenery's finite automata; everything else stays undecided.

The subset: patterns anchored at both ends (``^...$``), built from ASCII literal characters, escaped
metacharacters, ``\\d`` and ``\\w`` (ASCII in ECMA-262, as the guard reads them), non-negated classes of
ASCII characters and ranges, groups (``(...)``, ``(?:...)``), alternation and greedy quantifiers
(``* + ? {n} {n,} {n,m}``). Left out, because the automaton would read them differently from the
guard: ``.`` and negated classes (line terminators, and code units against code points for
characters past the BMP), ``\\s``/``\\b``/Unicode escapes, lookaround, backreferences, lazy
quantifiers, non-ASCII text, and a quantified group holding a quantifier or an alternation (the
guard's backtracking limit could give up on a string the automaton matches).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

_META = set("\\^$.|?*+()[]{}/-")  # what ECMA-262 lets a pattern escape
_GREENERY_META = set("\\^$.|?*+()[]{}")  # what greenery needs escaped outside a class
_SHORTHANDS = {"d": "0-9", "w": "A-Za-z0-9_"}
_QUANTIFIER = re.compile(r"\{(\d{1,3})(,(\d{1,3})?)?\}")


def pattern_includes(outer: str, inner: str) -> bool | None:
    """True when every string ``inner`` matches is matched by ``outer``, False when some is not, None
    when either pattern is outside the subset (or greenery is not installed)."""
    return _includes(outer, inner)


#: longer bodies stay undecided: building and subtracting their automata can take seconds
MAX_BODY = 40


@lru_cache(maxsize=1024)
def _includes(outer: str, inner: str) -> bool | None:
    outer_body, inner_body = subset_body(outer), subset_body(inner)
    if outer_body is None or inner_body is None or max(len(outer_body), len(inner_body)) > MAX_BODY:
        return None
    try:
        from greenery import parse  # type: ignore[import-untyped,unused-ignore]
    except ImportError:  # pragma: no cover - greenery is a compiler dependency
        return None
    try:
        inner_fsm: Any = parse(inner_body).to_fsm()
        outer_fsm: Any = parse(outer_body).to_fsm()
        return bool(inner_fsm.difference(outer_fsm).empty())
    except Exception:  # noqa: BLE001 - a spelling greenery does not read: undecided, never a guess
        return None


def subset_body(pattern: str) -> str | None:
    """The pattern's body in greenery's spelling when the pattern is in the subset, else None."""
    if not (pattern.startswith("^") and pattern.endswith("$")) or len(pattern) < 2:
        return None
    body = pattern[1:-1]
    if _trailing_backslashes(body) % 2:
        return None  # the final "$" is escaped: a literal dollar, not an anchor
    out: list[str] = []
    groups: list[dict[str, bool]] = []  # per open group: holds a quantifier / an alternation
    index = 0
    last_atom_group: dict[str, bool] | None = None  # the group an atom just closed, if any
    while index < len(body):
        char = body[index]
        closed: dict[str, bool] | None = None
        if char == "\\":
            if index + 1 >= len(body):
                return None
            escaped = body[index + 1]
            if escaped in _SHORTHANDS:
                out.append(f"[{_SHORTHANDS[escaped]}]")
            elif escaped in _META:
                out.append(_literal(escaped))
            else:
                return None
            index += 2
        elif char == "[":
            end, text = _class(body, index)
            if end is None:
                return None
            out.append(text)
            index = end
        elif char == "(":
            if body.startswith("(?:", index):
                index += 3
            elif body.startswith("(?", index):
                return None
            else:
                index += 1
            out.append("(")
            groups.append({"quantifier": False, "alternation": False})
        elif char == ")":
            if not groups:
                return None
            closed = groups.pop()
            if groups:  # what the inner group holds, its parent holds too
                groups[-1]["quantifier"] |= closed["quantifier"]
                groups[-1]["alternation"] |= closed["alternation"]
            out.append(")")
            index += 1
        elif char == "|":
            if not groups:
                return None  # ^a|b$ is (^a)|(b$): the anchors belong to the alternatives
            groups[-1]["alternation"] = True
            out.append("|")
            index += 1
        elif char in "*+?{":
            match = _QUANTIFIER.match(body, index) if char == "{" else None
            if char == "{" and match is None:
                return None
            if not out or out[-1] in ("(", "|"):
                return None
            if last_atom_group is not None and (last_atom_group["quantifier"] or last_atom_group["alternation"]):
                return None  # a nested quantifier: the guard could give up where the automaton matches
            if match is not None:
                low, high = match.group(1), match.group(3)
                if high is not None and int(high) < int(low):
                    return None
                out.append(match.group(0))
                index = match.end()
            else:
                out.append(char)
                index += 1
            if index < len(body) and body[index] in "*+?{":
                return None  # lazy or stacked quantifiers
            if groups:
                groups[-1]["quantifier"] = True
        elif char in "^$.":
            return None
        elif " " <= char <= "~":
            out.append(_literal(char))
            index += 1
        else:
            return None
        last_atom_group = closed
    return "".join(out) if not groups else None


def _class(body: str, start: int) -> tuple[int | None, str]:
    """The end of the class opening at ``start`` and its greenery spelling (None: outside the subset)."""
    index = start + 1
    if index < len(body) and body[index] in "^]":
        return None, ""  # negated, or ']' first (an empty class in ECMA-262)
    parts: list[str] = []
    while index < len(body):
        char = body[index]
        if char == "]":
            return (index + 1, "[" + "".join(parts) + "]") if parts else (None, "")
        if char == "\\":
            if index + 1 >= len(body):
                return None, ""
            escaped = body[index + 1]
            if escaped in _SHORTHANDS:
                parts.append(_SHORTHANDS[escaped])
            elif escaped in _META:
                parts.append(_class_char(escaped))
            else:
                return None, ""
            index += 2
            continue
        if char == "[" or not (" " <= char <= "~"):
            return None, ""
        if char == "-" and parts and index + 1 < len(body) and body[index + 1] != "]":
            high = body[index + 1]
            low = parts[-1]
            if len(low) != 1 or high in "\\[]" or not (" " <= high <= "~") or high < low:
                return None, ""
            parts[-1] = f"{_class_char(low)}-{_class_char(high)}"
            index += 2
            continue
        parts.append(_class_char(char))
        index += 1
    return None, ""


def _literal(char: str) -> str:
    return "\\" + char if char in _GREENERY_META else char


def _class_char(char: str) -> str:
    return "\\" + char if char in "\\[]^-" else char


def _trailing_backslashes(text: str) -> int:
    return len(text) - len(text.rstrip("\\"))
