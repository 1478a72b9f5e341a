"""What never reaches a model: values marked sensitive are redacted, echoed values are capped."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from typing import Any

from .schema_resolve import applicable, children, marked_on_the_way, nodes_at
from .schema_walk import is_marked

#: Names redacted even without ``writeOnly`` / ``x-sensitive``: echoing these is never worth it.
SENSITIVE_NAME = re.compile(r"pass(word|wd|phrase)|secret|token|api[_-]?key|authorization|"
                             r"credential|private[_-]?key|cookie|session[_-]?id", re.IGNORECASE)

REDACTED = "[redacted]"

ATTEMPTED_CAP = 100  # characters of an echoed string value


def redact(value: Any, node: Any, root: Any, depth: int = 0) -> Any:
    """``value`` with every part its schema marks sensitive replaced by ``[redacted]``.

    ``node`` is one schema for the value's position (or a list of them); every schema that applies
    there through references, anchors, combinators or ``dependentSchemas`` is taken into account."""
    return _redact(value, applicable(node if isinstance(node, list) else ([] if node is None else [node]), root),
                   root, depth)


def redact_at(value: Any, parts: Iterable[str], root: Any) -> Any:
    """``value`` sent at the instance position ``parts`` of ``root``, redacted by its resolved schema."""
    if marked_on_the_way(root, parts):
        return REDACTED
    return _redact(value, nodes_at(root, parts), root, 0)


def _redact(value: Any, nodes: list[Any], root: Any, depth: int) -> Any:
    if any(is_marked(n) for n in nodes):
        return REDACTED
    if depth > 20:
        return "…"
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            if SENSITIVE_NAME.search(str(k)):
                out[k] = REDACTED
                continue
            out[k] = _redact(v, applicable([c for n in nodes for c in children(n, str(k))], root), root, depth + 1)
        return out
    if isinstance(value, (list, tuple)):
        return [_redact(v, applicable([c for n in nodes for c in children(n, str(i))], root), root, depth + 1)
                for i, v in enumerate(value)]
    return value


def cap_value(value: Any, limit: int = ATTEMPTED_CAP) -> Any:
    """A copy of a JSON value short enough to echo: long strings cut, big containers summarised."""
    if isinstance(value, str):
        return value if len(value) <= limit else value[:limit] + f"… ({len(value)} characters)"
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)  # NaN and infinities are not JSON: echo them as text
    if isinstance(value, (bool, int, float)) or value is None:
        if isinstance(value, int) and not isinstance(value, bool) and abs(value).bit_length() > 3 * limit:
            # (str() of an int past 4,300 digits raises; the bit length says "long" without it)
            return f"an integer with about {int(abs(value).bit_length() * math.log10(2)) + 1} digits"
        return value
    if isinstance(value, (Mapping, list, tuple)):
        try:
            text = json.dumps(value, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError):  # not JSON (NaN, sets...): summarise instead of echoing
            text = None
        if text is not None and len(text) <= limit:
            return value
        if isinstance(value, Mapping):
            keys = ", ".join(str(k) for k in list(value)[:5])
            return f"an object with {len(value)} keys ({keys}{', …' if len(value) > 5 else ''})"
        return f"an array of {len(value)} items"
    return f"a non-JSON value of type {type(value).__name__}"
