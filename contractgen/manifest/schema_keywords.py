"""Which keys of an embedded schema object are JSON Schema 2020-12 keywords, and the error for every
other key: validators silently ignore a keyword they do not know, so the guard would check less than
the author wrote. Annotations by convention (``x-`` extensions, a short documented list) are accepted.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from ..runtime.pointer import escape_token
from .describe import did_you_mean
from .report import Reporter

#: Every keyword of the standard 2020-12 vocabularies: core, applicator, unevaluated, validation,
#: meta-data, format-annotation and content.
KEYWORDS_2020_12 = frozenset(
    {
        # core
        "$schema",
        "$id",
        "$ref",
        "$anchor",
        "$dynamicRef",
        "$dynamicAnchor",
        "$vocabulary",
        "$comment",
        "$defs",
        # applicator
        "allOf",
        "anyOf",
        "oneOf",
        "not",
        "if",
        "then",
        "else",
        "dependentSchemas",
        "prefixItems",
        "items",
        "contains",
        "properties",
        "patternProperties",
        "additionalProperties",
        "propertyNames",
        # unevaluated
        "unevaluatedItems",
        "unevaluatedProperties",
        # validation
        "type",
        "enum",
        "const",
        "multipleOf",
        "maximum",
        "exclusiveMaximum",
        "minimum",
        "exclusiveMinimum",
        "maxLength",
        "minLength",
        "pattern",
        "maxItems",
        "minItems",
        "uniqueItems",
        "maxContains",
        "minContains",
        "maxProperties",
        "minProperties",
        "required",
        "dependentRequired",
        # meta-data
        "title",
        "description",
        "default",
        "deprecated",
        "readOnly",
        "writeOnly",
        "examples",
        # format-annotation
        "format",
        # content
        "contentEncoding",
        "contentMediaType",
        "contentSchema",
    }
)
#: The 2020-12 keywords that judge a value (core, meta-data and content keywords only describe or name)
ASSERTION_KEYWORDS = frozenset(
    k for k in KEYWORDS_2020_12
    if not k.startswith("$") and not k.startswith("content")
    and k not in {"title", "description", "default", "deprecated", "readOnly", "writeOnly", "examples"}
)
_BY_FOLDED_NAME = {k.lower(): k for k in ASSERTION_KEYWORDS}
#: Older-draft keywords that keep their meaning in 2020-12: ``$ref: '#/definitions/x'`` is a plain
#: JSON pointer, so a ``definitions`` section still resolves (many real schemas use it).
ACCEPTED_LEGACY_KEYWORDS = frozenset({"definitions"})
#: Non-2020-12 keywords authors carry over from OpenAPI 3.0, and what to write instead.
FOREIGN_KEYWORDS = {
    "nullable": 'JSON Schema has no `nullable`; use `type: [string, "null"]`',
    "example": "use `examples: [...]` (a list) instead of `example`",
    "x-nullable": 'use `type: [..., "null"]` instead',
    "allowed_values": "JSON Schema has no `allowed_values`: list the values under `enum: [...]`",
}
#: Annotations by convention outside 2020-12: they describe, never constrain, so no validator
#: reading them or not changes what the guard accepts. ``example`` gets a style warning (its
#: 2020-12 spelling is ``examples``); the editor annotations of VS Code are accepted as they are.
ANNOTATION_KEYWORDS = frozenset(
    {
        "example",
        "markdownDescription",
        "enumDescriptions",
        "markdownEnumDescriptions",
        "deprecationMessage",
    }
)
EXTENSION_PREFIX = "x-"
#: Every schema key datamodel-code-generator 0.89 reads to choose a type, an import, a base class,
#: a field or member name, or a class-level attribute (found in its parser and model sources). A
#: contract's types come from its JSON Schema alone: one of these made a generated module import an
#: arbitrary module. ``generator_keys`` finds and strips them.
GENERATOR_STEERING_KEYS = frozenset(
    {
        "customTypePath",  # a dotted path imported as the field's type
        "customBasePath",  # dotted paths imported as the model's base classes
        "x-python-type",  # a Python type expression, imported
        "x-python-import",  # a module + name to import for the type
        "x-python-unserializable",
        "x-python-union-branch",
        "x-is-base-class",  # makes the model a base class
        "x-is-classvar",  # makes a field a ClassVar (never validated)
        "x-enum-varnames",  # enum member names
        "x-enumNames",
        "x-enum-descriptions",
        "x-enum-field-as-literal",  # Literal or Enum class
        "x-propertyNames",  # read as propertyNames
        "x-datamodel-code-generator-read-as-const",
        "x-datamodel-code-generator-field-name",
        "default_factory",  # a callable written into the field
        "discriminator",  # OpenAPI: changes how unions are typed
    }
)
STEERING_HINT = (
    "remove it: the generated types follow from the JSON Schema keywords alone "
    "(a note for people can go under `$comment`)"
)


_IGNORED = "validators ignore it, so the guard would not check what it says"


class LegacyKeyword(NamedTuple):
    draft: str
    effect: str  # what 2020-12 validators do with it
    hint: str


#: Older-draft keywords whose meaning 2020-12 dropped or split. ``dependencies`` is the dangerous
#: one: measured with jsonschema 4.26 and jsonschema-rs 0.61, the first ignores it under 2020-12
#: while the second still applies it, so a value's validity would depend on the backend.
LEGACY_KEYWORDS = {
    "dependencies": LegacyKeyword(
        "draft-07",
        "validators disagree: some ignore it, some still apply it, so what the guard accepts "
        "would depend on the backend",
        "",  # chosen from the value: see _dependencies_hint
    ),
    "additionalItems": LegacyKeyword(
        "draft 2019-09",
        _IGNORED,
        "rename it `items`: next to `prefixItems`, `items` says what may follow them",
    ),
    "$recursiveRef": LegacyKeyword(
        "draft 2019-09", _IGNORED, "use `$dynamicRef` with a `$dynamicAnchor`"
    ),
    "$recursiveAnchor": LegacyKeyword(
        "draft 2019-09", _IGNORED, "use `$dynamicAnchor: NAME` and `$dynamicRef`"
    ),
    "divisibleBy": LegacyKeyword("draft-03", _IGNORED, "rename it `multipleOf`"),
    "disallow": LegacyKeyword(
        "draft-03", _IGNORED, "write `not: {type: ...}` for the types to refuse"
    ),
    "extends": LegacyKeyword(
        "draft-03", _IGNORED, "write `allOf: [...]` with the schemas it extends"
    ),
}
#: Older-draft *values* of 2020-12 keywords, which the 2020-12 meta-schema rejects: the hint for the
#: error names the 2020-12 form.
LEGACY_VALUE_HINTS = {
    "exclusiveMinimum": "draft-04 boolean form: write `exclusiveMinimum: <bound>` (a number) "
    "in place of `minimum: <bound>` + `exclusiveMinimum: true`",
    "exclusiveMaximum": "draft-04 boolean form: write `exclusiveMaximum: <bound>` (a number) "
    "in place of `maximum: <bound>` + `exclusiveMaximum: true`",
    "required": "draft-03 form `required: true` on a property: list its name in the parent "
    "object's `required: [...]` instead",
}
FLOW_SPLIT_HINT = (
    "an unquoted comma or colon in a YAML flow mapping splits the value: quote the string before it"
)
_WHITESPACE = re.compile(r"\s")
_CANDIDATES = sorted(KEYWORDS_2020_12 | ACCEPTED_LEGACY_KEYWORDS)


def is_keyword(key: str) -> bool:
    """A key the 2020-12 vocabularies define, an accepted older one, or an ``x-`` extension that
    does not steer the code generator."""
    return (
        key in KEYWORDS_2020_12
        or key in ACCEPTED_LEGACY_KEYWORDS
        or key.startswith(EXTENSION_PREFIX)
        and key not in FOREIGN_KEYWORDS
        and key not in GENERATOR_STEERING_KEYS
    )


def extension_spelling_a_keyword(key: str) -> str | None:
    """The 2020-12 keyword that an ``x-`` key spells (``x-maxLength``, ``x-required``, ``x-Pattern``),
    in any case and with ``-`` or ``_`` between its words; None for any other key (a key that steers
    the code generator, such as ``x-propertyNames``, is reported as that)."""
    if not key.startswith(EXTENSION_PREFIX) or key in GENERATOR_STEERING_KEYS:
        return None
    return _BY_FOLDED_NAME.get(key[len(EXTENSION_PREFIX):].replace("-", "").replace("_", "").lower())


def check_keywords(report: Reporter, pointer: str, schema: dict[str, Any]) -> None:
    """One error per key of the schema object at ``pointer`` that no 2020-12 validator reads (or
    that steers the code generator); a style warning for annotations in a foreign spelling."""
    yaml_source = not report.item.path.endswith(".json")
    previous: str | None = None
    for key, value in schema.items():
        where = f"{pointer}/{escape_token(key)}"
        if (meant := extension_spelling_a_keyword(key)) is not None:
            report.error(
                where,
                f"extension {key!r} spells the keyword {meant!r}, yet no validator reads an `x-` key "
                "(so the guard would not check what it says)",
                "unknown-schema-keyword",
                hint="list the property's name in the parent's `required: [...]`"
                if meant == "required" and isinstance(value, bool)
                else f"write `{meant}` for the guard to check it, or remove {key!r}",
                key=True,
            )
        elif is_keyword(key) or key in ANNOTATION_KEYWORDS and key not in FOREIGN_KEYWORDS:
            pass
        elif key in GENERATOR_STEERING_KEYS:
            report.error(
                where,
                f"{key!r} steers the Python code generator (it chooses types, imports or base "
                "classes outside the contract)",
                "generator-steering-key",
                hint=STEERING_HINT,
                key=True,
            )
        elif key in ANNOTATION_KEYWORDS:
            report.warning(
                where,
                f"{key!r} is not a JSON Schema 2020-12 keyword (an annotation: it changes nothing)",
                "foreign-annotation",
                hint=FOREIGN_KEYWORDS[key],
                key=True,
            )
        elif key in LEGACY_KEYWORDS:
            legacy = LEGACY_KEYWORDS[key]
            report.error(
                where,
                f"{legacy.draft} keyword {key!r} is not part of JSON Schema 2020-12 "
                f"({legacy.effect})",
                "legacy-schema-keyword",
                hint=legacy.hint or _dependencies_hint(value),
                key=True,
            )
        else:
            report.error(
                where,
                f"unknown JSON Schema keyword {key!r} "
                f"({_IGNORED})",
                "unknown-schema-keyword",
                hint=_unknown_hint(key, value, previous, schema, yaml_source),
                key=True,
            )
        previous = key


def _unknown_hint(
    key: str, value: Any, previous: str | None, schema: dict[str, Any], yaml_source: bool
) -> str:
    if key in FOREIGN_KEYWORDS:
        return FOREIGN_KEYWORDS[key]
    if yaml_source and (value is None or _WHITESPACE.search(key)):
        # `{description: Amount refunded, in cents.}` reads as description 'Amount refunded'
        # plus a key 'in cents.' with no value
        before = previous is not None and isinstance(schema.get(previous), str)
        return FLOW_SPLIT_HINT + (f" (the value of {previous!r})" if before else "")
    close = did_you_mean(key, _CANDIDATES, cutoff=0.8)
    if close:
        return close
    if isinstance(value, dict) and ("type" in value or "description" in value):
        return f"if {key!r} is a property, declare it under `properties`"
    return f"remove it, or rename it `{EXTENSION_PREFIX}{key}` if it is a vendor extension"


def _dependencies_hint(value: Any) -> str:
    entries = value.values() if isinstance(value, dict) else []
    lists = [v for v in entries if isinstance(v, list)]
    schemas = [v for v in entries if not isinstance(v, list)]
    if lists and not schemas:
        return "rename it `dependentRequired` (a property name -> the names it requires)"
    if schemas and not lists:
        return "rename it `dependentSchemas` (a property name -> the schema it adds)"
    return "split it: lists of names go under `dependentRequired`, schemas under `dependentSchemas`"


__all__ = [
    "ACCEPTED_LEGACY_KEYWORDS",
    "ANNOTATION_KEYWORDS",
    "ASSERTION_KEYWORDS",
    "FOREIGN_KEYWORDS",
    "GENERATOR_STEERING_KEYS",
    "KEYWORDS_2020_12",
    "LEGACY_KEYWORDS",
    "LEGACY_VALUE_HINTS",
    "check_keywords",
    "extension_spelling_a_keyword",
    "is_keyword",
]
