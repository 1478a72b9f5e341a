"""Keys that steer datamodel-code-generator (types, imports, base classes, member names) instead of
describing values: where they sit in a schema (for ``check`` and ``import``), and the copy of a schema
the compiler hands the generator, which holds only JSON Schema 2020-12 keywords.
"""

from __future__ import annotations

import copy
from typing import Any

from ..runtime.pointer import escape_token
from .schema_keywords import ACCEPTED_LEGACY_KEYWORDS, GENERATOR_STEERING_KEYS, KEYWORDS_2020_12
from .schema_walk import subschemas

_GENERATOR_KEYWORDS = KEYWORDS_2020_12 | ACCEPTED_LEGACY_KEYWORDS


def generator_steering_keys(schema: Any) -> list[str]:
    """JSON pointers (relative to ``schema``) of every steering key at a schema position, in walk order.

    Property names, definition names and data (``default``, ``enum``, ``examples`` ...) are never
    schema positions, so a property *named* ``customTypePath`` is not reported.
    """
    return [
        f"{pointer}/{escape_token(key)}"
        for pointer, sub in subschemas(schema)
        for key in sub
        if key in GENERATOR_STEERING_KEYS
    ]


def generator_input(schema: Any) -> Any:
    """A copy of ``schema`` in which every schema object keeps only 2020-12 keywords (and
    ``definitions``): what the generator reads can then only describe values, even when ``check``
    was bypassed."""
    clean = copy.deepcopy(schema)
    for _, sub in subschemas(clean):  # the walk is collected before anything is removed
        for key in [k for k in sub if k not in _GENERATOR_KEYWORDS]:
            del sub[key]
    return clean


__all__ = ["GENERATOR_STEERING_KEYS", "generator_input", "generator_steering_keys"]
