"""Annotations that read as a guarantee the guard never keeps: the content keywords of a string, and
``readOnly`` on what the caller sends.

``contentEncoding: base64``, ``contentMediaType: application/json`` and ``contentSchema`` say what a
string holds, yet 2020-12 makes them annotations: no validator (jsonschema, jsonschema-rs, the
generated models) decodes the string or checks its content, so ``"not base64 {"`` passes and the
description still shows the model the promise. ``check`` refuses them, with a hint that says how to
write the same guarantee in keywords the guard enforces (a ``pattern`` for the alphabet of an
encoding, the structure itself in place of a string of JSON).

``readOnly: true`` tells the caller it may not send a value ("managed by the owning authority"), yet
an input schema holds only what the caller sends, and validators accept the value anyway. The mark
in the output is where it belongs; ``writeOnly`` in the output is ``sensitive-output``
(secrets_shown).
"""

from __future__ import annotations

from typing import Any

from ..runtime.pointer import escape_token
from .describe import show
from .report import Reporter

#: ``pattern``s that accept exactly the strings of an encoding (RFC 4648; base64url with or without
#: its padding): the guard enforces these, so the hint can offer them in place of ``contentEncoding``
ENCODING_PATTERNS = {
    "base64": "^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$",
    "base64url": "^(?:[A-Za-z0-9_-]{4})*(?:[A-Za-z0-9_-]{2}(?:==)?|[A-Za-z0-9_-]{3}=?)?$",
    "base16": "^(?:[0-9A-Fa-f]{2})*$",
}
CONTENT_KEYWORDS = ("contentEncoding", "contentMediaType", "contentSchema")


def check_content_keywords(report: Reporter, pointer: str, node: dict[str, Any]) -> None:
    """Report each content keyword of ``node``: a constraint on a string's content that nothing checks."""
    for keyword in CONTENT_KEYWORDS:
        if keyword not in node:
            continue
        shown = f"`{keyword}`" if keyword == "contentSchema" else f"`{keyword}: {show(node[keyword])}`"
        report.error(
            f"{pointer}/{escape_token(keyword)}",
            f"expected keywords the guard enforces (got {shown}, an annotation: no validator decodes or "
            "parses the string, so any string passes while the description promises its content)",
            "content-not-enforced",
            hint=_content_hint(keyword, node),
            key=True,
        )


def _content_hint(keyword: str, node: dict[str, Any]) -> str:
    if keyword == "contentEncoding":
        encoding = node[keyword]
        pattern = ENCODING_PATTERNS.get(encoding.lower()) if isinstance(encoding, str) else None
        if pattern is not None:
            return f"replace it with `pattern: '{pattern}'`, which the guard checks"
        return "drop it, and state the alphabet of the encoding with a `pattern` the guard checks"
    media = node.get("contentMediaType")
    if keyword == "contentSchema" or isinstance(media, str) and media.split(";")[0].strip().lower().endswith(
            ("/json", "+json")):
        return ("declare the structure itself in the schema (`type: object` with its `properties`, or the "
                "type it is) instead of a string of JSON: the model sends it as JSON and the guard checks it")
    return "drop it, and say the media type in `description`; a `pattern` can state what the guard should check"


READ_ONLY_HINT = ("remove the property from `input` (a value the tool sets itself belongs in `output`), or drop "
                  "`readOnly` if the caller may send it")


def check_read_only_input(report: Reporter, base: str, walk: list[tuple[str, dict[str, Any]]]) -> None:
    """Report each ``readOnly: true`` in an input schema: a value the caller is told not to send,
    which the guard accepts."""
    for pointer, sub in walk:
        if sub.get("readOnly") is True:
            report.error(
                f"{base}{pointer}/readOnly",
                "expected no `readOnly: true` in the input, which holds only what the caller sends (got it "
                "here: it tells the model not to send this value, yet the guard accepts it)",
                "read-only-input",
                hint=READ_ONLY_HINT,
                key=True,
            )
