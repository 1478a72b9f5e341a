"""Model-facing prose holds only text a reviewer can see: no hidden or direction-changing characters.

Descriptions, summaries, titles, error messages and migration notes reach the model word for word. A
Unicode tag character (U+E0000-U+E007F, "ASCII smuggling"), a zero-width space, a bidirectional
override (U+202E) or a terminal escape is invisible or reordered in an editor and in a review diff,
yet the model reads it: hidden instructions would reach every caller of the tool.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import Any

from ..runtime.pointer import escape_token
from .report import Reporter

#: keys whose string value is prose a model reads (``removed`` / ``changed`` map names to prose)
PROSE_KEYS = frozenset({"summary", "description", "title", "message", "meaning", "notes", "$comment"})
_PROSE_MAPS = frozenset({"removed", "changed"})
#: keys whose value is data sent or served as given, never prose (a schema's values, an example call)
_DATA_KEYS = frozenset({"enum", "const", "default", "example", "examples", "arguments", "result", "meta"})
#: layout characters prose may hold; U+200D joins emoji sequences (visible as one picture)
_ALLOWED = frozenset("\n\t\r\u200d")


def hidden_character(text: str) -> str | None:
    """The first character of ``text`` a reader cannot see (control, format, private use), or None."""
    if text.isprintable():
        return None
    for char in text:
        if char not in _ALLOWED and unicodedata.category(char) in ("Cc", "Cf", "Co", "Zl", "Zp"):
            return char
    return None


def check_hidden_text(report: Reporter, data: Mapping[str, Any]) -> None:
    """A warning at every prose string holding a hidden character (``check --strict`` fails on it):
    it is shown with its name, so a reviewer sees what the model would read."""
    stack: list[tuple[Any, str, str]] = [(data, "", "")]
    while stack:
        node, pointer, key = stack.pop()
        if isinstance(node, str):
            char = hidden_character(node) if key in PROSE_KEYS else None
            if char is not None:
                name = unicodedata.name(char, f"U+{ord(char):04X}")
                report.warning(pointer, f"expected text a reader can see (got {repr(char)[1:-1]}, {name}, "
                             f"which is invisible or reorders text in editors and reviews, while the model "
                             f"reads it)", "hidden-text",
                             hint="remove the character, or write what it should say in plain text")
        elif isinstance(node, Mapping):
            for child_key, value in node.items():
                if child_key in _DATA_KEYS and not (child_key == "examples" and pointer == ""):
                    continue
                child = f"{pointer}/{escape_token(str(child_key))}"
                stack.append((value, child, "description" if key in _PROSE_MAPS else str(child_key)))
        elif isinstance(node, list):
            stack.extend((value, f"{pointer}/{index}", key) for index, value in enumerate(node))
