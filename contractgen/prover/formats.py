"""Which string formats contain which, as data: every email address is an idn-email address, every
hostname an idn-hostname, every URI an IRI and a URI reference, and so on (the formats' RFCs), with
texts of the wider format that the narrower one refuses, to show the difference.

The containment is by definition, so a narrower-to-wider input format is a widening. A witness
counts only when the reference validator's format checker confirms both halves; it judges every
format the guard asserts as the guard does (jsonschema-rs), so the verdict is the same on every
machine (jsonschema alone asserts ``hostname`` or the URI formats only with optional packages, and
reads ``email`` and ``idn-email`` alike). ``unconfirmed_format_gap`` says so should a gap text ever
fail to show the difference.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: (narrower, wider) -> texts of the wider format the narrower one refuses (its RFC's grammar: ASCII
#: only for email, hostname and the URI formats; a scheme for uri and iri)
INCLUSIONS: Mapping[tuple[str, str], tuple[str, ...]] = {
    ("email", "idn-email"): ("用户@例子.广告", "josé@example.com"),
    ("hostname", "idn-hostname"): ("例子.广告", "bücher.example"),
    ("uri", "iri"): ("https://例子.广告/", "https://example.com/ä"),
    ("uri-reference", "iri-reference"): ("/ä", "https://example.com/ä"),
    ("uri", "uri-reference"): ("/x", "x"),
    ("iri", "iri-reference"): ("/ä", "/x"),
    ("uri", "iri-reference"): ("/ä", "/x", "https://example.com/ä"),
}


def format_includes(wider: Any, narrower: Any) -> bool:
    """Whether every string of format ``narrower`` is a string of format ``wider``."""
    return isinstance(wider, str) and (narrower == wider or (narrower, wider) in INCLUSIONS)


def _checker(checker: Any) -> Any:
    if checker is None:
        from ..runtime.reference_validator import format_checker

        checker = format_checker()
    return checker


def format_gap(narrower: Any, wider: Any) -> tuple[str, ...]:
    """Texts of format ``wider`` that format ``narrower`` refuses (none when it does not contain it)."""
    return INCLUSIONS.get((narrower, wider), ()) if isinstance(narrower, str) and isinstance(wider, str) else ()


def unconfirmed_format_gap(narrower: str, wider: str, checker: Any = None) -> str | None:
    """Why none of the gap's texts can be confirmed by the format ``checker`` (the reference
    validator's by default), or None when one can."""
    checker = _checker(checker)
    texts = format_gap(narrower, wider)
    if not texts:
        return None
    for text in texts:
        if checker.conforms(text, wider) and not checker.conforms(text, narrower):
            return None
    return (f"by definition {wider} admits texts {narrower} refuses (such as {texts[0]!r}), but the reference "
            f"validator's format checker accepts them as {narrower} too, so it cannot confirm one")
