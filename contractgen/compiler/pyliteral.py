"""Python source for data: turn JSON values and runtime contract dataclasses into literal expressions.

Every string from a manifest reaches generated code through ``py_literal`` and nowhere else, so quotes,
backslashes, newlines, ``{{ }}`` or ``__import__('os')`` arrive as data, never as code. Invisible and
bidirectional control characters are escaped so the generated source shows exactly what it holds.
"""

from __future__ import annotations

import dataclasses
import math
import unicodedata
from collections.abc import Mapping
from typing import Any

# Categories written as escapes: controls, format characters (incl. bidi overrides), separators,
# surrogates, private use and unassigned code points; and every space but " " (U+00A0, U+3000 ...).
_ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})
_SIMPLE_ESCAPES = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def escape_text(text: str) -> str:
    """``text`` as the inside of a double-quoted Python string literal: the one escaping function for
    every piece of text that reaches generated code (string literals, docstrings and comments alike).

    The result is one line of printable characters with no ``"`` and no lone backslash, so it cannot end
    a string, a docstring or a comment early, and ``ast.literal_eval('"' + result + '"') == text``.
    """
    out = []
    for char in text:
        if char in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[char])
        elif char == '"':
            out.append('\\"')
        elif unicodedata.category(char) in _ESCAPED_CATEGORIES or char == "\x7f" or (
                char != " " and unicodedata.category(char) == "Zs"):  # U+00A0 looks like a space
            code = ord(char)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000
                       else f"\\U{code:08x}")
        else:
            out.append(char)
    return "".join(out)


def py_str(text: str) -> str:
    """A double-quoted Python string literal for ``text`` (the quote style ``ruff format`` prefers)."""
    return f'"{escape_text(text)}"'


def py_literal(value: Any, used_types: set[str] | None = None) -> str:
    """Source for a JSON-like value, or for a (frozen) dataclass tree of them such as ``Contract``.

    The names of the dataclasses written are added to ``used_types`` (the module must import them).
    """
    if isinstance(value, Code):
        return str(value)
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        return repr(int(value))
    if isinstance(value, float):
        if math.isnan(value):
            return 'float("nan")'
        if math.isinf(value):
            return 'float("inf")' if value > 0 else 'float("-inf")'
        return repr(value)
    if isinstance(value, str):
        return py_str(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        if used_types is not None:
            used_types.add(type(value).__name__)
        return _dataclass_literal(value, used_types)
    if isinstance(value, Mapping):
        items = ", ".join(f"{py_literal(str(k))}: {py_literal(v, used_types)}" for k, v in value.items())
        return "{" + items + "}"
    if isinstance(value, tuple):
        if len(value) == 1:
            return "(" + py_literal(value[0], used_types) + ",)"
        return "(" + ", ".join(py_literal(v, used_types) for v in value) + ")"
    if isinstance(value, list):
        return "[" + ", ".join(py_literal(v, used_types) for v in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} as a Python literal")


class Code(str):
    """Source text to emit as is (a name defined elsewhere in the module), not as a string literal."""


def py_call(value: Any, overrides: Mapping[str, str], used_types: set[str] | None = None) -> str:
    """Like ``py_literal`` for a dataclass, with some fields written as the given source instead."""
    if used_types is not None:
        used_types.add(type(value).__name__)
    return _dataclass_literal(value, used_types, overrides)


def _dataclass_literal(value: Any, used_types: set[str] | None, overrides: Mapping[str, str] | None = None) -> str:
    """``Name(field=...)`` with only the fields that differ from their defaults (keeps modules short)."""
    parts = []
    for f in dataclasses.fields(value):
        if overrides and f.name in overrides:
            parts.append(f"{f.name}={overrides[f.name]}")
            continue
        current = getattr(value, f.name)
        if f.default is not dataclasses.MISSING and _same(current, f.default):
            continue
        if f.default_factory is not dataclasses.MISSING and _same(current, f.default_factory()):
            continue
        parts.append(f"{f.name}={py_literal(current, used_types)}")
    return f"{type(value).__name__}(" + ", ".join(parts) + ")"


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def json_plain(value: Any) -> Any:
    """A plain ``dict``/``list`` copy of a JSON value held in read-only mappings and tuples."""
    if isinstance(value, Mapping):
        return {str(k): json_plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_plain(v) for v in value]
    return value


def py_text_block(text: str) -> str:
    """A multi-line string as parenthesised implicit concatenation, one source line per text line."""
    lines = text.splitlines(keepends=True)
    if len(lines) <= 1:
        return py_str(text)
    return "(\n" + "".join(f"    {py_str(line)}\n" for line in lines) + ")"
