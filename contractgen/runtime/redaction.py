"""What never reaches a model: values marked sensitive are redacted, echoed values are capped."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

from .schema_walk import child_nodes, expand, is_marked

#: Names redacted even without ``writeOnly`` / ``x-sensitive``: echoing these is never worth it.
SENSITIVE_NAME = re.compile(r"pass(word|wd|phrase)|secret|token|api[_-]?key|authorization|"
                             r"credential|private[_-]?key|cookie|session[_-]?id", re.IGNORECASE)

REDACTED = "[redacted]"

ATTEMPTED_CAP = 100  # characters of an echoed string value


def redact(value: Any, node: Any, root: Any, depth: int = 0) -> Any:
    """``value`` with every part its schema marks sensitive replaced by ``[redacted]``."""
    nodes = expand(node, root) if node is not None else []
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
            children = [c for n in nodes for c in child_nodes(n, str(k))]
            sub = children[0] if len(children) == 1 else ({"allOf": children} if children else None)
            out[k] = redact(v, sub, root, depth + 1)
        return out
    if isinstance(value, (list, tuple)):
        result = []
        for i, v in enumerate(value):
            children = [c for n in nodes for c in child_nodes(n, str(i))]
            sub = children[0] if len(children) == 1 else ({"allOf": children} if children else None)
            result.append(redact(v, sub, root, depth + 1))
        return result
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
