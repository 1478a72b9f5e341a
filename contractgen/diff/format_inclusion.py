"""Which string formats contain which, as data: every email address is an idn-email address, every
hostname an idn-hostname, every URI an IRI and a URI reference, and so on (the formats' RFCs), with
texts of the wider format that the narrower one refuses, to show the difference.

The containment is by definition, so a narrower-to-wider input format is a widening whatever this
environment can check. Showing the difference is another matter: a witness counts only when
jsonschema's format checker confirms both halves, and it asserts ``hostname``, ``uri`` and the
``iri`` formats only with optional packages (``fqdn``, ``rfc3987``) and the ``idn-*`` ones only with
``idna``, and reads ``email`` and ``idn-email`` alike (an ``@`` is all it asks). ``unconfirmed_gap``
says which of these stands in the way, so a finding without a witness says why.
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


#: the optional package jsonschema asserts each format with (jsonschema's _format.py)
_PACKAGES: Mapping[str, str] = {"hostname": "fqdn", "idn-hostname": "idna", "uri": "rfc3987", "iri": "rfc3987",
                                "uri-reference": "rfc3987", "iri-reference": "rfc3987"}


def includes(wider: Any, narrower: Any) -> bool:
    """Whether every string of format ``narrower`` is a string of format ``wider``."""
    return isinstance(wider, str) and (narrower == wider or (narrower, wider) in INCLUSIONS)


def includes_here(wider: Any, narrower: Any, checker: Any = None) -> bool:
    """``includes``, as the witness check's jsonschema can see it: not when it asserts the wider
    format and not the narrower one (idn-hostname with idna, hostname without fqdn), for then a text
    that is no hostname passes the old check and fails the new one, and the proof must say so."""
    if not includes(wider, narrower):
        return False
    checkers = _checker(checker).checkers
    return narrower == wider or narrower in checkers or wider not in checkers


def unasserted(fmt: str, checker: Any = None) -> str | None:
    """Why jsonschema does not assert ``fmt`` here (the package it needs), or None when it does."""
    if fmt in _checker(checker).checkers:
        return None
    return f"jsonschema does not assert format {fmt!r} in this environment (it needs {_PACKAGES.get(fmt, 'an optional package')})"


def _checker(checker: Any) -> Any:
    if checker is None:
        from ..runtime.reference_validator import format_checker

        checker = format_checker()
    return checker


def gap(narrower: Any, wider: Any) -> tuple[str, ...]:
    """Texts of format ``wider`` that format ``narrower`` refuses (none when it does not contain it)."""
    return INCLUSIONS.get((narrower, wider), ()) if isinstance(narrower, str) and isinstance(wider, str) else ()


def unconfirmed_gap(narrower: str, wider: str, checker: Any = None) -> str | None:
    """Why none of the gap's texts can be confirmed by jsonschema's format ``checker`` (the reference
    validator's by default), or None when one can."""
    checker = _checker(checker)
    texts = gap(narrower, wider)
    if not texts:
        return None
    missing = [f for f in (narrower, wider) if f not in checker.checkers]
    if missing:
        packages = sorted({_PACKAGES.get(f, "an optional package") for f in missing})
        return (f"by definition {wider} admits texts {narrower} refuses (such as {texts[0]!r}), but jsonschema "
                f"does not assert format {' or '.join(repr(f) for f in missing)} in this environment (it needs "
                f"{' and '.join(packages)}), so it cannot confirm one")
    for text in texts:
        if checker.conforms(text, wider) and not checker.conforms(text, narrower):
            return None
    return (f"by definition {wider} admits texts {narrower} refuses (such as {texts[0]!r}), but jsonschema's "
            f"format checker accepts them as {narrower} too, so it cannot confirm one")
