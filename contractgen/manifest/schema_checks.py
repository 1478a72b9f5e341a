"""Checks on the embedded ``input`` and ``output`` JSON Schemas: valid 2020-12, local ``$ref``
targets that exist, an object root, keywords no validator reads, and defaults/examples that match
their schema and show no secret.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

import jsonschema
from jsonschema.exceptions import best_match
from referencing.exceptions import Unresolvable

from ..runtime import reference_validator
from ..runtime.patterns import SEMANTICS, pattern_problem
from ..runtime.pointer import escape_token, unescape_token
from ..runtime.pointer import pointer as json_pointer
from ..runtime.reference_validator import PatternUndecided
from .closed_objects import check_closed_object
from .dead_names import check_dead_branches, check_dead_properties, names_checked_beside
from .describe import (
    TYPE_NAMES,
    TYPE_SYNONYMS,
    describe_validation_error,
    did_you_mean,
    json_type,
    show,
)
from .fast_validate import STANDARD_FORMATS, fast_validator
from .inert_keywords import check_inert_keywords, check_keyword_partners
from .model_formats import model_format_checker
from .number_checks import check_schema_numbers
from .report import Reporter
from .satisfiable import check_satisfiable
from .schema_keywords import LEGACY_KEYWORDS, LEGACY_VALUE_HINTS, check_keywords
from .schema_walk import (
    NAMED_SCHEMA_MAPS,
    definition_refs,
    deref,
    local_ref_pointer,
    resolve_local_ref,
    subschemas,
)
from .secrets_shown import (
    check_sensitive_headers,
    check_sensitive_output,
    check_sensitive_samples,
    check_unread_marks,
    samples,
)
from .unkept_annotations import check_content_keywords, check_read_only_input

_FORMAT_CHECKER = reference_validator.schema_format_checker()
_META_VALIDATOR = reference_validator.validator(jsonschema.Draft202012Validator.META_SCHEMA,
                                                format_checker=_FORMAT_CHECKER)

#: ``items: [a, b]`` is draft-07's tuple form; 2020-12 says ``prefixItems`` and reserves ``items``
#: for what follows them (its meta-schema rejects the array, so this is an error, not a warning).
TUPLE_ITEMS_HINT = (
    "a list under `items` is the draft-07 tuple form: in 2020-12 write it as `prefixItems: [...]` "
    "(and `items: false` to allow nothing after them)"
)
SENSITIVE_KEYWORD = "x-sensitive"
DIALECTS_2020_12 = (
    "https://json-schema.org/draft/2020-12/schema",
    "http://json-schema.org/draft/2020-12/schema",
)


def check_embedded_schema(report: Reporter, key: str, schema: Any) -> bool:
    """Report problems in ``/<key>``; return True when the schema is usable for validation."""
    base = f"/{key}"
    problems = _meta_problems(report, base, schema)
    if problems:
        # keyword problems do not depend on the meta-schema's: list them in the same run (once)
        reported = {d.pointer for d in report.diagnostics}
        keywords = Reporter(report.item)
        for pointer, sub in subschemas(schema):
            check_keywords(keywords, base + pointer, sub)
        report.diagnostics.extend(d for d in keywords.diagnostics if d.pointer not in reported)
        return False
    walk = list(subschemas(schema))  # walked once, read by every check below
    usable = _check_refs(report, base, schema, walk)
    root_type = schema.get("type")
    if root_type != "object":
        has_props = "properties" in schema
        report.error(
            f"{base}/type" if "type" in schema else base,
            "expected an object schema "
            f"(got {'type ' + show(root_type) if 'type' in schema else 'no type'})",
            "schema-not-object",
            hint="add `type: object` at the top of the schema"
            if has_props or "type" not in schema
            else "wrap the value in an object: `type: object`, `properties: {result: ...}`",
        )
    dialect = schema.get("$schema")
    if isinstance(dialect, str) and dialect.rstrip("#") not in DIALECTS_2020_12:
        report.warning(
            f"{base}/$schema",
            f"expected the JSON Schema 2020-12 dialect (got {show(dialect)}); "
            "contractgen reads every schema as 2020-12",
            "foreign-dialect",
            hint=f"remove `$schema`, or set it to {DIALECTS_2020_12[0]}",
        )
    for pointer, sub in walk:
        check_keywords(report, base + pointer, sub)
        check_schema_numbers(report, base + pointer, sub)
        _check_format(report, base + pointer, sub)
        check_satisfiable(report, base + pointer, sub)
        if key == "output":
            _check_client_patterns(report, base + pointer, sub)
        _check_required_listed(report, base + pointer, sub)
        check_closed_object(report, base, pointer, sub, schema)
        check_dead_branches(report, base, pointer, sub, schema)
        check_dead_properties(report, base, pointer, sub, schema)
        if pointer:  # the root must be an object, which schema-not-object already says
            check_inert_keywords(report, base + pointer, sub)
        check_keyword_partners(report, base + pointer, sub)
        check_content_keywords(report, base + pointer, sub)
        if SENSITIVE_KEYWORD in sub and not isinstance(sub[SENSITIVE_KEYWORD], bool):
            report.error(
                f"{base}{pointer}/{SENSITIVE_KEYWORD}",
                f"expected boolean (got {json_type(sub[SENSITIVE_KEYWORD])} "
                f"{show(sub[SENSITIVE_KEYWORD])})",
                "invalid-sensitive-flag",
                hint=f"write `{SENSITIVE_KEYWORD}: true`",
            )
    check_unread_marks(report, base, walk)
    if key == "input":
        check_read_only_input(report, base, walk)
    if usable:
        _check_instances(report, base, schema, walk)
        check_sensitive_samples(report, base, schema, walk)
        if key == "input":
            check_sensitive_headers(report, base, schema, walk)
        if key == "output":
            check_sensitive_output(report, base, walk)
    return usable and root_type == "object"


def meta_schema_errors(schema: Any) -> list[jsonschema.ValidationError]:
    """The 2020-12 meta-schema errors in ``schema``, as jsonschema reports them.

    jsonschema-rs answers "valid?" about 100x faster; jsonschema still decides every schema the
    fast check rejects (or cannot read), so the diagnostics are always jsonschema's.
    """
    if fast_meta_valid(schema):
        return []
    return list(_META_VALIDATOR.iter_errors(schema))


def fast_meta_valid(schema: Any) -> bool:
    """Whether jsonschema-rs accepts ``schema`` under the 2020-12 meta-schema, formats checked the
    way the reference validator's meta-schema reading does; False also when it cannot tell."""
    is_valid = _fast_meta_validator()
    return is_valid is not None and is_valid(schema)


@lru_cache(maxsize=1)
def _fast_meta_validator() -> Callable[[Any], bool] | None:
    return fast_validator(jsonschema.Draft202012Validator.META_SCHEMA, _FORMAT_CHECKER)


def _meta_problems(report: Reporter, base: str, schema: Any) -> bool:
    errors = meta_schema_errors(schema)
    seen: set[str] = set()
    for error in sorted(errors, key=lambda e: list(map(str, e.absolute_path))):
        pointer = base + json_pointer(_located(error))
        if pointer in seen:
            continue
        seen.add(pointer)
        deepest = best_match([error]) or error
        message, hint = describe_validation_error(deepest)
        if pointer.endswith("/type") or pointer.rsplit("/", 2)[-2:-1] == ["type"]:
            bad = error.instance
            if isinstance(bad, str):
                suggestion = TYPE_SYNONYMS.get(bad.lower())
                message = f"expected a JSON Schema type name (got {show(bad)})"
                hint = (
                    f"did you mean {suggestion!r}?"
                    + (
                        " (add `format: date-time`)"
                        if bad.lower() == "datetime"
                        else " (add `format: date`)"
                        if bad.lower() == "date"
                        else ""
                    )
                    if suggestion
                    else did_you_mean(bad, TYPE_NAMES) or f"use one of: {', '.join(TYPE_NAMES)}"
                )
        elif error.validator == "format" and error.validator_value == "regex":
            message = (f"expected a regular expression the guard's validator accepts "
                       f"({SEMANTICS}) (got {show(error.instance)})")
            hint = pattern_hint(error.instance)
        elif deepest.validator == "type" and not hint:
            keyword = pointer.rsplit("/", 1)[-1]
            kinds = " or ".join(_listed(deepest.validator_value))
            message = f"expected {keyword!r} to be {kinds} (got {show(error.instance)})"
            if _is_keyword_position(error.absolute_path):
                if keyword == "items" and isinstance(error.instance, list):
                    hint = TUPLE_ITEMS_HINT
                elif keyword in LEGACY_KEYWORDS and LEGACY_KEYWORDS[keyword].hint:
                    hint = LEGACY_KEYWORDS[keyword].hint
                elif keyword in LEGACY_VALUE_HINTS:
                    hint = LEGACY_VALUE_HINTS[keyword]
        report.error(
            pointer, f"invalid JSON Schema 2020-12: {message}", "invalid-schema", hint=hint
        )
    return bool(errors)


#: Python ``re`` spellings JSON Schema's dialect refuses, with what to write instead
_PYTHON_ONLY = (
    ("\\Z", "ECMA-262 has no `\\Z`: write `$`, which never matches before a final newline"),
    ("(?#", "remove the `(?#...)` comment: ECMA-262 has no inline comments"),
    ("[^]", "write `[\\s\\S]` for any character"),
)


def pattern_hint(pattern: Any) -> str:
    """A concrete fix for a pattern the validator refuses, else what dialect patterns are read in."""
    text = pattern if isinstance(pattern, str) else ""
    for spelling, fix in _PYTHON_ONLY:
        if spelling in text:
            return fix
    return ("JSON Schema patterns are ECMA-262 regular expressions (not Python's `re`); "
            "escape a literal `{`, `}` or `\\` with a backslash")


def _located(error: jsonschema.ValidationError) -> list[Any]:
    """Where the error is: a name refused by ``propertyNames`` (a ``patternProperties`` key that is
    no valid pattern) is reported at that name, not at the object holding it."""
    path = list(error.absolute_path)
    if "propertyNames" in error.absolute_schema_path and isinstance(error.instance, str):
        path.append(error.instance)
    return path


def _is_keyword_position(path: Sequence[Any]) -> bool:
    """Whether the last step of ``path`` is a keyword, not a property or definition name."""
    return len(path) < 2 or path[-2] not in NAMED_SCHEMA_MAPS


def _listed(value: Any) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]


def _check_refs(
    report: Reporter, base: str, schema: dict[str, Any], walk: list[tuple[str, dict[str, Any]]]
) -> bool:
    ok = True
    for pointer, sub in walk:
        if pointer and "$id" in sub:
            # An $id below the root starts a resource of its own, and validators resolve every
            # '#/...' below it against that resource; the model generator, the parameter listing
            # and diff resolve against the schema's root, so the two would read different targets.
            ok = False
            report.error(
                f"{base}{pointer}/$id",
                f"expected $id only at the root of {base[1:]} (got {show(sub['$id'])} on a subschema)",
                "embedded-id",
                hint="remove this $id: a $ref below it would be read against it by validators and "
                "against the schema's root by the generated model and diff; "
                "refer to the subschema as '#/$defs/NAME' instead",
            )
        for keyword in ("$ref", "$dynamicRef"):
            ref = sub.get(keyword)
            if not isinstance(ref, str):
                continue
            where = f"{base}{pointer}/{keyword}"
            if not ref.startswith("#"):
                ok = False
                report.error(
                    where,
                    f"expected a local reference starting with '#' (got {show(ref)})",
                    "non-local-ref",
                    hint="copy the definition under `$defs` in this schema "
                    "and refer to it as '#/$defs/NAME'",
                )
                continue
            target = resolve_local_ref(schema, ref)
            if target.found and keyword == "$ref" and (loop := _reference_loop(schema, sub)) is not None:
                ok = False
                report.error(
                    where,
                    "expected a $ref that reaches a schema "
                    f"(got a chain of references that loops without reaching one: {' -> '.join(loop)})",
                    "ref-cycle",
                    hint="give one schema on the chain keywords of its own (a type, properties...), "
                    "or refer to such a schema directly",
                )
                continue
            if target.found and isinstance(target.value, dict) and (data := _data_reached(schema, ref, walk)):
                ok = False
                report.error(
                    where,
                    f"expected a {keyword} to a schema (got {show(ref)}: it points inside {data}, which check "
                    "and the generated model read as data while validators follow it as a schema, so no "
                    "keyword there is checked)",
                    "ref-into-data",
                    hint="move the schema under `$defs` and refer to it as '#/$defs/NAME'",
                )
                continue
            if not target.found:
                ok = False
                report.error(
                    where,
                    "expected a $ref that resolves in this schema "
                    f"(got {show(ref)}: {target.problem})",
                    "unresolvable-ref",
                    hint=did_you_mean(ref, definition_refs(schema), cutoff=0.7)
                    or (
                        "define it under `$defs`"
                        if definition_refs(schema) == []
                        else f"existing definitions: {', '.join(definition_refs(schema))}"
                    ),
                )
    return ok


def _data_reached(schema: dict[str, Any], ref: str, walk: list[tuple[str, dict[str, Any]]]) -> str | None:
    """Where a local reference that resolves to an object lands outside every schema position
    (inside an ``x-`` extension, a ``default``, ``examples``, ``enum`` or ``const``, or on a map of
    names such as ``properties`` itself), shown as the key it enters there; None at a schema."""
    pointer = local_ref_pointer(schema, ref)
    positions = {at for at, _ in walk}
    if pointer is None or pointer in positions:
        return None
    tokens = pointer.split("/")
    inside = max((n for n in range(1, len(tokens)) if "/".join(tokens[:n]) in positions), default=1)
    return f"`{unescape_token(tokens[inside])}`" if inside < len(tokens) else "a value"


#: keys that say nothing about which values pass: a node holding only these and one reference (or
#: one single-branch combinator) is a plain step on a chain of references
_WRAPPER_KEYS = frozenset({"title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly",
                           "$comment", "$anchor", "$defs", "definitions", SENSITIVE_KEYWORD})


def _reference_loop(schema: dict[str, Any], start: dict[str, Any]) -> list[str] | None:
    """The refs of a chain from ``start`` that only ever reaches further references and comes back
    to a node it passed (validators then accept anything, and no model can be built); None when the
    chain reaches a schema of its own or a node that is not a plain step."""
    seen: set[int] = set()
    refs: list[str] = []
    node: Any = start
    while isinstance(node, dict) and id(node) not in seen:
        seen.add(id(node))
        rest = {k for k in node if k not in _WRAPPER_KEYS and not k.startswith("x-")}
        if rest == {"$ref"} and isinstance(node["$ref"], str):
            refs.append(node["$ref"])
            target = resolve_local_ref(schema, node["$ref"])
            node = target.value if target.found else None
        elif len(rest) == 1 and (key := next(iter(rest))) in ("allOf", "anyOf", "oneOf") \
                and isinstance(node[key], list) and len(node[key]) == 1:
            node = node[key][0]
        else:
            return None
    return refs if isinstance(node, dict) and refs else None


def _check_format(report: Reporter, pointer: str, sub: dict[str, Any]) -> None:
    """A misspelt format (``datetime``) silently checks nothing: the typed input model (and a guard
    built with ``formats=True``) would enforce the format the author meant, so a close match to a
    2020-12 format is an error. A format far from all of them is a custom annotation and passes."""
    value = sub.get("format")
    if not isinstance(value, str) or value in STANDARD_FORMATS:
        return
    close = did_you_mean(value.replace("_", "-"), STANDARD_FORMATS, cutoff=0.75)
    if close:
        report.error(
            f"{pointer}/format",
            f"unknown format {value!r} (no value is checked against it)",
            "unknown-format",
            hint=close,
        )


def _check_client_patterns(report: Reporter, pointer: str, sub: dict[str, Any]) -> None:
    """The official Python MCP client checks a tool's ``outputSchema`` with jsonschema and Python's
    ``re`` before it reads a result: a pattern only ECMA-262 accepts (``\\p{L}``, ``(?<name>...)``)
    makes it refuse every result of the tool ("Invalid schema for tool"). The guard is not weakened,
    so this is a warning."""
    found = [(f"{pointer}/pattern", sub["pattern"])] if isinstance(sub.get("pattern"), str) else []
    names = sub.get("patternProperties")
    if isinstance(names, dict):
        found += [(f"{pointer}/patternProperties/{escape_token(k)}", k) for k in names if isinstance(k, str)]
    for where, pattern in found:
        if pattern_problem(pattern) is not None or _python_compiles(pattern):
            continue
        report.warning(
            where,
            "a pattern Python's `re` cannot compile (got "
            f"{show(pattern)}): the official Python MCP client checks outputSchema with it and "
            "refuses every result of this tool",
            "output-pattern-not-portable",
            hint="write it in the syntax both dialects share (no `\\p{..}`, `\\u{..}`, `\\cX`, "
            "`(?<name>...)`), or leave it out of the output schema",
        )


def _python_compiles(pattern: str) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "possible nested set" and the like: still compiled
        try:
            re.compile(pattern)
        except (re.error, RecursionError, OverflowError):
            return False
    return True


def _check_required_listed(report: Reporter, pointer: str, sub: dict[str, Any]) -> None:
    """Every name ``required``, ``dependentRequired`` or ``dependentSchemas`` lists is a declared
    property: with ``additionalProperties: false`` an undeclared one can never be sent, so a required
    one refuses every value, a dependency on it refuses every value holding the name that triggers it,
    and a dependency triggered by it is a constraint that never applies (all errors); on an open
    object the name may still arrive undeclared (a warning). A closed object with branches is
    dead_names' (branch-never-holds)."""
    properties = sub.get("properties")
    if not isinstance(properties, dict) or not names_checked_beside(sub):
        return  # the property may be declared in a branch (dead_names judges a closed object's)
    # unevaluatedProperties: false closes the object as firmly unless something beside it may declare
    # (evaluate) a name: a conditional, a reference, a dependency's schema
    closed = sub.get("additionalProperties") is False or "additionalProperties" not in sub and \
        sub.get("unevaluatedProperties") is False and not _EVALUATING_BESIDE.intersection(sub)
    noun = "result field" if pointer.startswith("/output") else "argument"
    for where, name, role, effect in _listed_names(sub):
        if name in properties:
            continue
        text = (
            f"{role.format(noun=noun, name=repr(name))} is not among the properties "
            f"(expected one of: {', '.join(properties) or 'none'})"
        )
        hint = did_you_mean(name, properties) or f"declare {name!r} under `properties`"
        trigger = where.startswith("dependent") and where.count("/") == 1  # a key of the map, not a value
        if closed:
            report.error(f"{pointer}/{where}", f"{text}; with additionalProperties: false {effect}",
                         "required-not-declared", hint=hint, key=trigger)
        else:
            report.warning(f"{pointer}/{where}", text, "required-not-declared", hint=hint, key=trigger)


_EVALUATING_BESIDE = frozenset({"if", "then", "else", "$ref", "$dynamicRef", "dependentSchemas"})


def _listed_names(sub: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """(pointer below ``sub``, name, what lists it, what a closed object makes of it undeclared) for
    each property name ``required``, ``dependentRequired`` and ``dependentSchemas`` list."""
    found: list[tuple[str, str, str, str]] = []
    required = sub.get("required")
    if isinstance(required, list):
        found += [(f"required/{i}", name, "required {noun} {name}", "no value can pass")
                  for i, name in enumerate(required) if isinstance(name, str)]
    for keyword in ("dependentRequired", "dependentSchemas"):
        dependencies = sub.get(keyword)
        if not isinstance(dependencies, dict):
            continue
        for trigger, needs in dependencies.items():
            at = f"{keyword}/{escape_token(trigger)}"
            found.append((at, trigger, f"{{noun}} {{name}}, whose presence triggers `{keyword}`,",
                          "it is never sent, so the guard never checks what it triggers"))
            if keyword == "dependentRequired" and isinstance(needs, list):
                found += [(f"{at}/{i}", name, f"{{noun}} {{name}}, which {trigger!r} requires,",
                           f"no value holding {trigger!r} can pass")
                          for i, name in enumerate(needs) if isinstance(name, str)]
    return found


def _check_instances(
    report: Reporter, base: str, schema: dict[str, Any], walk: list[tuple[str, dict[str, Any]]]
) -> None:
    """``default`` and ``examples`` inside the schema must match the subschema they sit in."""
    # Built on first use: most schemas hold no default or example. (Construction cannot fail on a
    # schema that passed the meta-schema: it only reads a string ``$id``.)
    root: jsonschema.protocols.Validator | None = None
    for pointer, sub in walk:
        values = samples(pointer, sub)
        if not values:
            continue
        if root is None:
            root = reference_validator.validator(schema, format_checker=model_format_checker())
        validator = root.evolve(schema=sub)
        for where, value in values:
            try:
                errors = list(validator.iter_errors(value))
            except (
                Unresolvable,
                PatternUndecided,
                RecursionError,
                jsonschema.exceptions.SchemaError,
            ) as exc:
                report.error(
                    base + where,
                    f"cannot validate this value ({type(exc).__name__.lower()})",
                    "unvalidatable-value",
                )
                continue
            if errors:
                first = best_match(errors) or errors[0]
                message, hint = describe_validation_error(first)
                inner = json_pointer(first.absolute_path)
                kind = "default" if where.endswith("/default") else "example"
                report.error(
                    base + where + inner,
                    f"{kind} does not match its schema: {message}",
                    f"invalid-schema-{kind}",
                    hint=hint,
                )


def check_input_descriptions(report: Reporter, schema: dict[str, Any]) -> None:
    """Soft: every input property should tell the model what it means."""
    for pointer, sub in subschemas(schema):
        properties = sub.get("properties")
        if not isinstance(properties, dict):
            continue
        for name, prop in properties.items():
            if not isinstance(prop, dict):
                continue
            target = deref(schema, prop)
            if "description" in prop or isinstance(target, dict) and "description" in target:
                continue
            where = f"/input{pointer}/properties/{escape_token(name)}"
            report.warning(
                where,
                f"expected a description of argument {name!r} for the model (got none)",
                "missing-description",
                hint="add `description:` with its meaning, unit and format",
                key=True,
            )


__all__ = [
    "check_embedded_schema",
    "check_input_descriptions",
    "fast_meta_valid",
    "meta_schema_errors",
]
