"""Model-facing prose holds only text a reviewer can see: no hidden or direction-changing characters.

Descriptions, summaries, titles, error messages and migration notes reach the model word for word. A
Unicode tag character (U+E0000-U+E007F, "ASCII smuggling"), a run of variation selectors, a zero-width
space, a bidirectional override (U+202E) or a terminal escape is invisible or reordered in an editor
and in a review diff, yet the model reads it: hidden instructions would reach every caller of the tool.
Such a character is an error (the runtime's ``visible`` says which); a direction mark (it moves only
the neutral characters beside it) and a private-use character (shown as a box) are warnings.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple

from ..runtime.pointer import escape_token
from ..runtime.visible import DATA_KEYWORDS, MARKS, char_name, escaped, hidden_in, visible
from .report import Reporter

#: keys whose string value is prose a model reads (``removed`` / ``changed`` map names to prose)
PROSE_KEYS = frozenset({"summary", "description", "title", "message", "meaning", "notes", "$comment"})
_PROSE_MAPS = frozenset({"removed", "changed"})
#: keys whose value is data sent or served as given, never prose (a schema's values, an example call)
_DATA_KEYS = DATA_KEYWORDS | {"arguments", "result", "meta"}
_NO_MARKS = str.maketrans("", "", MARKS)


def hidden_character(text: str) -> str | None:
    """The first character of ``text`` a reader cannot see (``visible.hidden_in``, or private use), or None."""
    found = hidden_in(text)
    if found is not None and found in MARKS:  # a worse one further on is the one named
        found = hidden_in(text.translate(_NO_MARKS)) or found
    if found is not None or text.isprintable():
        return found
    return next((char for char in text if unicodedata.category(char) == "Co"), None)


class Prose(NamedTuple):
    """One prose string of a manifest, and where it sits: ``holder[at]`` (to replace it)."""

    pointer: str
    text: str
    holder: Any
    at: Any


def prose_strings(data: Mapping[str, Any]) -> Iterator[Prose]:
    """Every prose string of a manifest: what the model reads word for word (data, such as an enum
    value, a default or an example call, is not prose)."""
    stack: list[tuple[Any, Any, str, str]] = [({"": data}, "", "", "")]  # (holder, at, pointer, key)
    while stack:
        holder, at, pointer, key = stack.pop()
        node = holder[at]
        if isinstance(node, str):
            if key in PROSE_KEYS:
                yield Prose(pointer, node, holder, at)
        elif isinstance(node, Mapping):
            for child_key in node:
                if child_key in _DATA_KEYS and not (child_key == "examples" and pointer == ""):
                    continue
                child = f"{pointer}/{escape_token(str(child_key))}"
                stack.append((node, child_key, child, "description" if key in _PROSE_MAPS else str(child_key)))
        elif isinstance(node, list):
            stack.extend((node, index, f"{pointer}/{index}", key) for index in range(len(node)))


def declared_names(data: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """Every property name a manifest's schemas declare, with its pointer: a key of ``properties`` and
    an entry of ``required`` (data, such as a default or an example call, declares none)."""
    stack: list[tuple[Any, str, str]] = [(data, "", "")]  # (node, pointer, the key holding it)
    while stack:
        node, pointer, key = stack.pop()
        if isinstance(node, Mapping):
            for child_key, child in node.items():
                child_pointer = f"{pointer}/{escape_token(str(child_key))}"
                if key == "properties":  # a name; its value is a schema
                    yield child_pointer, str(child_key)
                    stack.append((child, child_pointer, ""))
                elif child_key not in _DATA_KEYS:
                    stack.append((child, child_pointer, str(child_key)))
        elif isinstance(node, list):
            for index, item in enumerate(node):
                if key == "required" and isinstance(item, str):
                    yield f"{pointer}/{index}", item
                stack.append((item, f"{pointer}/{index}", "" if key == "required" else key))


def check_hidden_text(report: Reporter, data: Mapping[str, Any]) -> None:
    """An error at every prose string holding a hidden character (a warning for a direction mark or a
    private-use character): it is shown with its name, so a reviewer sees what the model would read.
    A property name holding one is an error too: the model reads the name without it, so it sends a
    key the schema does not declare."""
    for pointer, name in declared_names(data):
        char = hidden_in(name)
        if char is not None:  # a direction mark too: the name cannot be sent back without it
            report.error(pointer, f"expected a property name a reader can see (got '{escaped(name)}', which "
                         f"holds {char_name(char)}: the model reads the name "
                         f"as '{visible(name)}' and cannot send it as declared)", "hidden-text",
                         hint="remove the character from the name")
    for pointer, text, _, _ in prose_strings(data):
        char = hidden_character(text)
        if char is not None:
            name = char_name(char)
            said = report.warning if char in MARKS or unicodedata.category(char) == "Co" else report.error
            said(pointer, f"expected text a reader can see (got {repr(char)[1:-1]}, {name}, which is "
                 f"invisible or reorders text in editors and reviews, while the model reads it)",
                 "hidden-text", hint="remove the character, or write what it should say in plain text")
