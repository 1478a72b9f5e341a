"""What the prover knows of ECMA-262 patterns: strings a pattern matches (``regex_samples``, its
shortest match), and whether every string one pattern matches is matched by another.

Samples are built from a Python spelling of the pattern and each is kept only when the guard's
validator says the pattern matches it. Inclusion is decided for a small subset of ECMA-262 where
the answer is exact, with greenery's finite automata; everything else stays undecided.

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

from ..runtime.patterns import is_valid_pattern, pattern_matches

try:  # Python 3.11+ keeps sre_parse as re._parser
    from re import _parser as sre_parse  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover
    import sre_parse  # type: ignore[no-redef]
from re import _constants as sre_constants  # type: ignore[attr-defined]

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


# --- strings matching a regular expression --------------------------------------------------

_CATEGORY_CHARS = {
    sre_constants.CATEGORY_DIGIT: "05", sre_constants.CATEGORY_NOT_DIGIT: "a-",
    sre_constants.CATEGORY_SPACE: " ", sre_constants.CATEGORY_NOT_SPACE: "aZ",
    sre_constants.CATEGORY_WORD: "aZ_0", sre_constants.CATEGORY_NOT_WORD: "-!",
}
_PROBE_ALPHABET = "aZ0_-. /@:+!x9Az"


def shortest_match(pattern: str) -> int | None:
    """The length of the shortest string ``pattern`` can match, read from its Python spelling; None
    when that reading could differ from the guard's (a pattern the guard refuses, a backreference, an
    empty class) or Python cannot parse it."""
    spelled = python_spelling(pattern)
    if spelled is None or not is_valid_pattern(pattern) or _WIDTH_UNSAFE.search(pattern):
        return None
    try:
        return int(sre_parse.parse(spelled).getwidth()[0])
    except Exception:  # noqa: BLE001 - any regex Python cannot parse tells us nothing
        return None


#: backreferences (an unset group matches nothing in jsonschema-rs, the empty string in ECMA-262)
#: and ``[]`` (an empty class in ECMA-262, the start of a class holding ``]`` in Python)
_WIDTH_UNSAFE = re.compile(r"\\[1-9]|\\k<|\[\^?\]")


def python_spelling(pattern: str) -> str | None:
    """``pattern`` in Python's ``re`` syntax, for building candidate strings: ``\\p{..}`` becomes a
    class of ASCII letters (``\\P{..}`` of digits and a space), ``\\u{..}`` and ``\\cX`` the character
    they name, ``(?<name>`` and ``\\k<name>`` Python's named groups. Approximate by design: a sample is
    only used once the guard's validator says the pattern matches it. None when it cannot be
    spelled (an unterminated escape, a code point out of range)."""
    out: list[str] = []
    i, in_class = 0, False
    while i < len(pattern):
        char = pattern[i]
        if char == "\\" and i + 1 < len(pattern):
            spelled, i = _escape_spelling(pattern, i, in_class)
            if spelled is None:
                return None
            out.append(spelled)
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif pattern.startswith("(?<", i) and not pattern.startswith(("(?<=", "(?<!"), i):
            out.append("(?P<")
            i += 3
            continue
        out.append(char)
        i += 1
    return "".join(out)


def _escape_spelling(pattern: str, i: int, in_class: bool) -> tuple[str | None, int]:
    """(the Python spelling of the escape at ``pattern[i]``, the index after it)."""
    kind = pattern[i + 1]
    braced = pattern.startswith("{", i + 2)
    if kind in "pPu" and braced or kind == "k" and pattern.startswith("<", i + 2):
        end = pattern.find("}" if braced else ">", i + 3)
        if end < 0:
            return None, i
        inside = pattern[i + 3:end]
        if kind == "k":
            return f"(?P={inside})", end + 1
        if kind == "u":
            try:
                code = int(inside, 16)
            except ValueError:
                return None, i
            return (re.escape(chr(code)) if code <= 0x10FFFF else None), end + 1
        letters = "a-zA-Z" if kind == "p" else "0-9 "
        return (letters if in_class else f"[{letters}]"), end + 1
    control = pattern[i + 2:i + 3]
    if kind == "c" and control.isascii() and control.isalpha():
        return re.escape(chr(ord(control) % 32)), i + 3
    return pattern[i:i + 2], i + 2


def regex_samples(pattern: str, limit: int = 8) -> list[str]:
    """Up to ``limit`` distinct short strings that ``pattern`` matches, as the guard's validator
    judges (built from the Python spelling of the pattern, each one checked)."""
    spelled = python_spelling(pattern)
    if spelled is None or not is_valid_pattern(pattern):
        return []
    try:
        parsed = sre_parse.parse(spelled)
    except (re.error, RecursionError, OverflowError):
        return []
    found: list[str] = []
    for variant in range(limit * 4):
        try:
            text = _emit(parsed, variant, {})
        except (_Unsupported, RecursionError, IndexError):
            continue
        if text not in found and pattern_matches(pattern, text) is True:
            found.append(text)
        if len(found) >= limit:
            break
    return found


class _Unsupported(Exception):
    pass


def _emit(parsed: Any, variant: int, groups: dict[int, str]) -> str:
    out: list[str] = []
    for position, (op, arg) in enumerate(parsed):
        salt = variant + position
        if op is sre_constants.LITERAL:
            out.append(chr(arg))
        elif op is sre_constants.NOT_LITERAL:
            out.append(next(c for c in _PROBE_ALPHABET if ord(c) != arg))
        elif op is sre_constants.ANY:
            out.append("ax"[salt % 2])
        elif op is sre_constants.IN:
            out.append(_pick_in(arg, salt))
        elif op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT):
            low, high, body = arg
            extra = (0, 0, 1, 3)[variant % 4]
            count = min(low + extra, high) if high != sre_constants.MAXREPEAT else low + extra
            out.extend(_emit(body, variant // 3, groups) for _ in range(min(count, 50)))
        elif op is sre_constants.SUBPATTERN:
            group, _add, _del, body = arg
            text = _emit(body, variant, groups)
            if group is not None:
                groups[group] = text
            out.append(text)
        elif op is sre_constants.BRANCH:
            _, branches = arg
            out.append(_emit(branches[variant % len(branches)], variant // len(branches), groups))
        elif op is sre_constants.GROUPREF:
            out.append(groups.get(arg, ""))
        elif op in (sre_constants.AT, sre_constants.ASSERT, sre_constants.ASSERT_NOT):
            continue  # anchors and lookarounds: emit nothing, verification decides
        else:
            raise _Unsupported(str(op))
    return "".join(out)


def _pick_in(items: list[tuple[Any, Any]], salt: int) -> str:
    negate = any(op is sre_constants.NEGATE for op, _ in items)
    options: list[str] = []
    for op, arg in items:
        if op is sre_constants.LITERAL:
            options.append(chr(arg))
        elif op is sre_constants.RANGE:
            low, high = arg
            options.extend({chr(low), chr(high)})
        elif op is sre_constants.CATEGORY:
            options.extend(_CATEGORY_CHARS.get(arg, "a"))
    if negate:
        options = [c for c in _PROBE_ALPHABET if c not in options]
    if not options:
        raise _Unsupported("empty class")
    options = sorted(set(options))
    return options[salt % len(options)]
