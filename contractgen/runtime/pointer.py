"""JSON pointers (RFC 6901): escaping one token, joining and splitting, resolving, capping for display.

The one implementation for the runtime, the manifest checks, the compiler and the diff: the runtime
may not import the compiler, so the helper lives here and the compiler side imports it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .jsonvalue import MISSING

POINTER_CAP = 200


def escape_token(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def unescape_token(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def pointer(parts: Iterable[Any]) -> str:
    """The pointer of a path of keys and indexes: ``("a/b", 0)`` -> ``/a~1b/0``."""
    tokens = [p if type(p) is str else str(p) for p in parts]
    if not tokens:
        return ""
    plain = "".join(tokens)  # on the error path: escape token by token only when needed
    if "~" in plain or "/" in plain:
        tokens = [escape_token(t) for t in tokens]
    return "/" + "/".join(tokens)


def pointer_parts(ptr: str) -> list[str]:
    """The unescaped tokens of a pointer (a leading ``#`` fragment marker is not accepted here)."""
    if not ptr:
        return []
    tokens = (ptr.removeprefix("/")).split("/")
    if "~" not in ptr:
        return tokens
    return [unescape_token(p) for p in tokens]


def resolve_pointer(document: Any, ptr: str) -> Any:
    """The value at ``ptr`` in ``document``, or MISSING."""
    node = document
    for part in pointer_parts(ptr):
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, (list, tuple)) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return MISSING
    return node


def cap_pointer(ptr: str) -> str:
    """Pointers echo caller-chosen key names: keep them short enough to show."""
    return ptr if len(ptr) <= POINTER_CAP else ptr[: POINTER_CAP - 1] + "…"
