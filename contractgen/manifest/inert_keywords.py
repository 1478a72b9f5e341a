"""Keywords that can never judge a value: ``type`` beside them excludes the kind they judge, or the
keyword they work with is missing.

``{type: integer, pattern: "^[0-9]{4}$"}`` reads as "four digits", yet ``pattern`` judges strings
only: the guard accepts 12345, and the description still shows the pattern to the model. A keyword
of one kind of value (string, number, object, array; a 2020-12 ``format`` judges strings) on a node
whose ``type`` names none of that kind is a constraint the author wrote and nothing enforces, so
``check`` refuses it. So is a keyword 2020-12 reads only beside another one: ``minContains`` and
``maxContains`` count what ``contains`` matches, ``then`` and ``else`` apply by the verdict of ``if``,
and ``if`` alone asserts nothing; validators skip each without a word.
"""

from __future__ import annotations

from typing import Any

from ..runtime.pointer import escape_token
from .fast_validate import STANDARD_FORMATS
from .report import Reporter

#: the keywords that judge only one kind of value, by that kind
KIND_KEYWORDS: dict[str, frozenset[str]] = {
    "string": frozenset({"minLength", "maxLength", "pattern"}),
    "number": frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}),
    "object": frozenset({"properties", "required", "additionalProperties", "patternProperties", "propertyNames",
                         "minProperties", "maxProperties", "dependentRequired", "dependentSchemas",
                         "unevaluatedProperties"}),
    "array": frozenset({"items", "prefixItems", "contains", "minContains", "maxContains", "minItems", "maxItems",
                        "uniqueItems", "unevaluatedItems"}),
}
_KIND_OF_TYPE = {"integer": "number", "number": "number", "string": "string", "object": "object", "array": "array"}


#: keyword -> the keywords of which one must stand beside it for it to judge anything, and a hint
PARTNERS: dict[str, tuple[tuple[str, ...], str]] = {
    "minContains": (("contains",), "it counts the items `contains` matches"),
    "maxContains": (("contains",), "it counts the items `contains` matches"),
    "then": (("if",), "it applies to a value that passes the `if` beside it"),
    "else": (("if",), "it applies to a value that fails the `if` beside it"),
    "if": (("then", "else"), "it only chooses whether `then` or `else` applies"),
}
_PARTNER_HINTS = {
    "minContains": "add `contains:` with the schema of the items to count, or use `minItems` to count every item",
    "maxContains": "add `contains:` with the schema of the items to count, or use `maxItems` to count every item",
    "then": "add `if:` with the condition; for a rule that always holds, put its keywords in this schema (or "
            "`allOf`)",
    "else": "add `if:` with the condition; for a rule that always holds, put its keywords in this schema (or "
            "`allOf`)",
    "if": "add `then:` (what must hold when `if` passes) or `else:` (when it fails), or drop `if`",
}


def check_keyword_partners(report: Reporter, pointer: str, node: dict[str, Any]) -> None:
    """Report each keyword of ``node`` that judges nothing without a partner keyword beside it."""
    for keyword, (partners, reason) in PARTNERS.items():
        if keyword not in node or any(partner in node for partner in partners):
            continue
        wanted = " or ".join(f"`{partner}`" for partner in partners)
        report.error(
            f"{pointer}/{escape_token(keyword)}",
            f"expected {wanted} beside `{keyword}` (got `{keyword}` alone: {reason}, so the guard never "
            "checks it)",
            "keyword-without-partner",
            hint=_PARTNER_HINTS[keyword],
            key=True,
        )


def check_inert_keywords(report: Reporter, pointer: str, node: dict[str, Any]) -> None:
    """Report each keyword of ``node`` that judges a kind of value its ``type`` excludes."""
    declared = node.get("type")
    listed = declared if isinstance(declared, list) else [declared]
    names = [name for name in listed if isinstance(name, str)]
    if not names or len(names) != len(listed):
        return  # no type (every kind passes) or a malformed one (the meta-schema check reports it)
    kinds = {_KIND_OF_TYPE.get(name) for name in names}
    shown = names[0] if len(names) == 1 else " or ".join(names)
    for kind, keywords in KIND_KEYWORDS.items():
        if kind in kinds:
            continue
        judging = keywords.intersection(node)
        if kind == "string" and node.get("format") in STANDARD_FORMATS:
            judging |= {"format"}
        for keyword in sorted(judging):
            report.error(
                f"{pointer}/{escape_token(keyword)}",
                f"expected keywords that can judge a value of type {shown} (got `{keyword}`, which judges "
                f"{'numbers' if kind == 'number' else kind + 's'} only: the guard never checks it here)",
                "keyword-never-applies",
                hint=f"drop `{keyword}`, or add '{'number' if kind == 'number' else kind}' to `type` if such "
                     "values are meant" + ("; for digits in a string, keep `type: string` with the pattern"
                                           if keyword == "pattern" else ""),
                key=True,
            )
