"""Text a reader can see: the characters a model reads but an editor, a log and a review do not show.

Unicode tags (U+E0000-U+E007F) spell ASCII invisibly ("ASCII smuggling"), a run of variation selectors
can carry bytes, bidirectional overrides and isolates reorder what a reviewer reads, zero-width and
other format characters hide between letters, and control characters (a terminal escape) redraw a log.
The guard takes them out of every text it quotes to a model (``envelope.cap_text``, progress
messages); ``check`` refuses them in a manifest's prose (``manifest/text_checks.py``). Kept: the
joiners that shape visible text (emoji sequences, Persian and Indic scripts) and a subdivision flag's
tag sequence (the flags of England, Scotland and Wales), which shows as one picture.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from typing import Any

#: format characters that shape what is shown: kept
JOINERS = "\u200c\u200d"
#: direction marks: invisible, but they move only neutral characters next to them, never reorder a run
MARKS = "\u200e\u200f\u061c"

# Controls (Cc) but tab and line ends, format characters (Cf) but the joiners, line and paragraph
# separators (Zl, Zp), as of Unicode 15 (tests/test_visible_text.py compares them with unicodedata)
_HIDDEN = (r"\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\xad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2"
           r"\u180e\u200b\u200e\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
           r"\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
           r"\U000e0000-\U000e007f")
_FLAG = r"\U0001f3f4[\U000e0020-\U000e007e]+\U000e007f"  # black flag, tag letters, cancel tag
_SELECTOR_RUN = r"[\ufe00-\ufe0f\U000e0100-\U000e01ef]{2,}"  # one selector picks a glyph; more carry data
_FOUND = re.compile(f"({_FLAG})|[{_HIDDEN}]|{_SELECTOR_RUN}")


def hidden_runs(text: str) -> list[str]:
    """The hidden characters of ``text`` (a run of variation selectors as one), in order."""
    if text.isascii() and text.isprintable():
        return []
    return [match.group(0) for match in _FOUND.finditer(text) if match.group(1) is None]


def hidden_in(text: str) -> str | None:
    """The first hidden character of ``text`` (the first of a run of variation selectors), or None."""
    runs = hidden_runs(text)
    return runs[0][0] if runs else None


def visible(text: str) -> str:
    """``text`` without its hidden characters (``hidden_in``; tabs and line ends stay): what a reader of
    it sees is what a model reads. Printable ASCII comes back as it is, told in C."""
    if text.isascii() and text.isprintable():
        return text
    return _FOUND.sub(_kept, text)


def _kept(match: re.Match[str]) -> str:
    return match.group(1) or ""


def escaped(text: str) -> str:
    """``text`` with each hidden character written as its code point (``<U+200B>``): a name the reader
    must send back exactly (an argument's key, a value it sent) shows what it holds, where ``visible``
    would show another name. No backslash: ``A:\\u001f`` read as a Windows path to every scan for
    internals. Printable ASCII comes back as it is, told in C."""
    if text.isascii() and text.isprintable():
        return text
    return _FOUND.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    return match.group(1) or "".join(f"<U+{ord(c):04X}>" for c in match.group(0))


def char_name(char: str) -> str:
    """How a report names a character: its Unicode name, or its code point (a control has no name)."""
    return unicodedata.name(char, f"U+{ord(char):04X}")


def _holds_hidden(value: Any) -> bool:
    """Whether a text anywhere in ``value`` (a key too) holds a hidden character."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            if hidden_in(node) is not None:
                return True
        elif isinstance(node, Mapping):
            stack.extend(node.keys())
            stack.extend(node.values())
        elif isinstance(node, (list, tuple)):
            stack.extend(node)
    return False


def visible_json(value: Any) -> Any:
    """A JSON value (a quoted answer) with every text in it ``visible``, keys too; copied only where it
    changes. Anything else comes back as it is."""
    if isinstance(value, str):
        return visible(value)
    if not isinstance(value, (dict, list)) or not _holds_hidden(value):
        return value
    copy: dict[str, Any] = {"": value}
    stack: list[tuple[Any, Any]] = [(copy, "")]
    while stack:
        parent, key = stack.pop()
        node = parent[key]
        if isinstance(node, str):
            parent[key] = visible(node)
        elif isinstance(node, dict):
            node = parent[key] = {visible(k) if isinstance(k, str) else k: v for k, v in node.items()}
            stack.extend((node, child) for child in node)
        elif isinstance(node, list):
            node = parent[key] = list(node)
            stack.extend((node, index) for index in range(len(node)))
    return copy[""]


#: a schema's prose; its values (``enum``, ``const``, ``default``, examples) are data and stay as they are
_PROSE = frozenset({"description", "title", "$comment"})
DATA_KEYWORDS = frozenset({"enum", "const", "default", "examples", "example"})
#: keywords whose keys are names (a property called ``enum`` is a schema, not a list of values)
_NAMED = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})


def visible_schema(schema: Any) -> Any:
    """``schema`` (a JSON Schema, or a tool definition around one) with its prose made ``visible``,
    copied only where it changes; values are data and keep their characters."""
    if not _holds_hidden(schema):
        return schema
    copy: dict[str, Any] = {"": schema}
    stack: list[tuple[Any, Any, bool]] = [(copy, "", False)]  # (parent, key, whose keys are names)
    while stack:
        parent, key, named = stack.pop()
        node = parent[key]
        if isinstance(node, Mapping):
            node = parent[key] = dict(node)
            for child, value in node.items():
                if not named and child in _PROSE and isinstance(value, str):
                    node[child] = visible(value)
                elif named or child not in DATA_KEYWORDS:
                    stack.append((node, child, not named and child in _NAMED))
        elif isinstance(node, list):
            node = parent[key] = list(node)
            stack.extend((node, index, False) for index in range(len(node)))
    return copy[""]
