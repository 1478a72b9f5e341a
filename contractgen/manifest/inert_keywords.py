"""Keywords that can never judge a value because ``type`` beside them excludes the kind they judge.

``{type: integer, pattern: "^[0-9]{4}$"}`` reads as "four digits", yet ``pattern`` judges strings
only: the guard accepts 12345, and the description still shows the pattern to the model. A keyword
of one kind of value (string, number, object, array) on a node whose ``type`` names none of that kind
is a constraint the author wrote and nothing enforces, so ``check`` refuses it.
"""

from __future__ import annotations

from typing import Any

from ..runtime.pointer import escape_token
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


def check_inert_keywords(report: Reporter, pointer: str, node: dict[str, Any]) -> None:
    """Report each keyword of ``node`` that judges a kind of value its ``type`` excludes."""
    declared = node.get("type")
    names = declared if isinstance(declared, list) else [declared]
    if not names or not all(isinstance(name, str) for name in names):
        return  # no type (every kind passes) or a malformed one (the meta-schema check reports it)
    kinds = {_KIND_OF_TYPE.get(name) for name in names}
    shown = names[0] if len(names) == 1 else " or ".join(names)
    for kind, keywords in KIND_KEYWORDS.items():
        if kind in kinds:
            continue
        for keyword in sorted(keywords.intersection(node)):
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
