"""The caps on bytes -> value, in one place: every manifest, import source and git blob passes here.

A file's size is checked with ``stat`` before it is read (and never more than the cap is read); a JSON
value is checked for nesting depth, number of values and integer length whichever parser made it,
so no fallback path skips a cap.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

MAX_MANIFEST_BYTES = 1_000_000
#: values in one manifest after alias expansion; real manifests hold a few thousand
MAX_VALUES = 200_000
#: nesting depth of mappings and sequences
MAX_DEPTH = 64
#: digits of one integer literal (Python refuses to convert more than 4,300; real schemas use < 20)
MAX_INT_DIGITS = 400


class CapExceeded(ValueError):
    """A value over one of the caps: ``code`` names the cap, ``hint`` says how to get under it."""

    def __init__(self, message: str, code: str, hint: str, pointer: str = "") -> None:
        super().__init__(message)
        self.message, self.code, self.hint, self.pointer = message, code, hint, pointer


DEPTH_HINT = "flatten the schema with $defs and $ref"
VALUES_HINT = "avoid nested YAML anchors and aliases (&name / *name); write the values out"
INT_HINT = "write a number JSON tools can represent (at most 400 digits), or a string"
SURROGATE_HINT = ("a \\uD800-\\uDFFF escape stands for half a character: write the character itself, or "
                  "both halves of its pair in JSON (YAML never joins them: write \\U0001F600 there)")


def file_size_problem(path: Path, limit: int = MAX_MANIFEST_BYTES) -> int | None:
    """The size of ``path`` when it is over ``limit`` (checked with ``stat``, nothing read), else None.

    Raises ``OSError`` when the file cannot be inspected."""
    size = os.stat(path).st_size
    return size if size > limit else None


def read_capped(path: Path, limit: int = MAX_MANIFEST_BYTES) -> bytes | int:
    """The bytes of ``path``, or its size (an ``int``) when over ``limit``: checked before reading, and
    the read stops after ``limit + 1`` bytes in case the file grew or is not a regular file.

    Raises ``OSError`` when the file cannot be read."""
    size = file_size_problem(path, limit)
    if size is not None:
        return size
    with open(path, "rb") as handle:
        data = handle.read(limit + 1)
    return len(data) if len(data) > limit else data


def capped_int(text: str) -> int:
    """``json.loads``'s ``parse_int``: an integer literal within ``MAX_INT_DIGITS`` digits."""
    digits = len(text.lstrip("+-"))
    if digits > MAX_INT_DIGITS:
        raise CapExceeded(f"expected an integer of at most {MAX_INT_DIGITS} digits (got {digits} digits)",
                          "number-too-long", INT_HINT)
    return int(text)


def loads_json(text: str) -> Any:
    """``json.loads`` with every cap checked; raises ``CapExceeded`` or ``json.JSONDecodeError``."""
    try:
        value = json.loads(text, parse_int=capped_int)
    except RecursionError:
        raise CapExceeded(f"expected mappings and lists nested at most {MAX_DEPTH} deep (got deeper)",
                          "too-deep", DEPTH_HINT) from None
    check_tree(value)
    return value


def _lone_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _surrogate_at(text: str) -> str:
    return next(f"\\u{ord(c):04x}" for c in text if "\ud800" <= c <= "\udfff")


def check_tree(value: Any) -> None:
    """Raise ``CapExceeded`` (with the pointer where it happened) when ``value`` is nested deeper than
    ``MAX_DEPTH``, holds more than ``MAX_VALUES`` values, an integer longer than ``MAX_INT_DIGITS`` or a
    lone surrogate in a string or key (JSON's ``"\\ud800"``, YAML's too: no encoder can write it).
    Iterative, so a deep value cannot exhaust the stack here."""
    from ..runtime.pointer import escape_token

    budget = MAX_VALUES
    stack: list[tuple[Any, str, int]] = [(value, "", 0)]
    while stack:
        node, pointer, depth = stack.pop()
        budget -= 1
        if budget < 0:
            raise CapExceeded(f"expected at most {MAX_VALUES:,} values (got more)", "too-many-values",
                              "split the definitions into several files", pointer)
        if depth > MAX_DEPTH:
            raise CapExceeded(f"expected mappings and lists nested at most {MAX_DEPTH} deep (got deeper)",
                              "too-deep", DEPTH_HINT, pointer)
        if isinstance(node, str) and not node.isascii() and _lone_surrogate(node):
            raise CapExceeded(f"expected text (got a lone surrogate {_surrogate_at(node)} that no UTF-8 "
                              f"encoder can write)", "lone-surrogate", SURROGATE_HINT, pointer)
        if isinstance(node, Mapping):
            for key in node:
                if isinstance(key, str) and not key.isascii() and _lone_surrogate(key):
                    raise CapExceeded(f"expected a key of text (got a lone surrogate {_surrogate_at(key)} that "
                                      f"no UTF-8 encoder can write)", "lone-surrogate", SURROGATE_HINT,
                                      f"{pointer}/{escape_token(key)}")
            stack.extend((v, f"{pointer}/{escape_token(str(k))}", depth + 1) for k, v in node.items())
        elif isinstance(node, (list, tuple)):
            stack.extend((v, f"{pointer}/{i}", depth + 1) for i, v in enumerate(node))
        elif isinstance(node, int) and not isinstance(node, bool) and node.bit_length() > MAX_INT_DIGITS * 3.33:
            raise CapExceeded(f"expected an integer of at most {MAX_INT_DIGITS} digits (got more)",
                              "number-too-long", INT_HINT, pointer)
