"""The reference validator (the ``jsonschema`` package) with the guard's readings of regexes and
``multipleOf``.

jsonschema runs ``pattern``, ``patternProperties``, ``additionalProperties``,
``unevaluatedProperties`` and ``format: regex`` with Python's ``re`` (``$`` matches before a final
newline, ``\\d`` matches any Unicode digit, ``\\p{L}`` is an error). Here each of them asks
``patterns.py`` instead, which answers as the guard's validator does; ``multipleOf`` and the formats
the guard asserts ask the guard's validator too (jsonschema divides in binary floating point, checks
``date-time``, ``hostname`` or ``uri`` only where optional packages happen to be installed, and takes
any text holding an @ for an ``email``). Imported only where jsonschema
is installed (the compiler extra, or the guard's fallback for a schema jsonschema-rs cannot compile).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import attrs
import jsonschema  # type: ignore[import-untyped,unused-ignore]
from jsonschema.exceptions import ValidationError  # type: ignore[import-untyped,unused-ignore]

from .patterns import pattern_matches, pattern_problem

_rs: Any
try:  # a declared dependency of the runtime; without it multipleOf keeps jsonschema's reading
    import jsonschema_rs as _rs
except ImportError:  # pragma: no cover - exercised in the no-extra install
    _rs = None


class PatternUndecided(ValueError):
    """The pattern's validator cannot tell whether it matches (a string it cannot read, a search it
    gave up): no verdict may rest on a guess."""


def _matches(pattern: str, text: str, strict: bool) -> bool:
    verdict = pattern_matches(pattern, text)
    if verdict is None:
        if strict:
            raise PatternUndecided(f"cannot tell whether {pattern!r} matches {text!r}")
        return False  # the guard refuses what it cannot judge (jsonschema-rs does the same)
    return verdict


def _pattern(strict: bool, validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[Any]:
    if validator.is_type(instance, "string") and not _matches(pattern, instance, strict):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(strict: bool, validator: Any, patterns: Mapping[str, Any], instance: Any,
                        schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if _matches(pattern, key, strict):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _by_pattern(schema: Mapping[str, Any], key: str, strict: bool) -> bool:
    return any(_matches(p, key, strict) for p in schema.get("patternProperties", {}))


def _additional_properties(strict: bool, validator: Any, additional: Any, instance: Any,
                           schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    properties = schema.get("properties", {})
    extras = {k for k in instance if k not in properties and not _by_pattern(schema, k, strict)}
    if validator.is_type(additional, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], additional, path=extra)
    elif not additional and extras:
        listed = ", ".join(repr(each) for each in sorted(extras, key=str))
        if "patternProperties" in schema:
            verb = "does" if len(extras) == 1 else "do"
            patterns = ", ".join(repr(each) for each in sorted(schema["patternProperties"]))
            yield ValidationError(f"{listed} {verb} not match any of the regexes: {patterns}")
        else:
            verb = "was" if len(extras) == 1 else "were"
            yield ValidationError(f"Additional properties are not allowed ({listed} {verb} unexpected)")


def _no_errors(errors: Iterator[Any]) -> bool:
    return next(errors, None) is None


def _evaluated_keys(validator: Any, instance: Any, schema: Any, strict: bool) -> list[str]:
    """The keys of ``instance`` that ``schema`` evaluates (jsonschema's own reading of
    ``unevaluatedProperties``, with ``patternProperties`` matched by ``patterns.py``)."""
    if validator.is_type(schema, "boolean"):
        return []
    keys: list[str] = []
    for keyword in ("$ref", "$dynamicRef"):
        reference = schema.get(keyword)
        if reference is not None:
            resolved = validator._resolver.lookup(reference)
            keys.extend(_evaluated_keys(validator.evolve(schema=resolved.contents, _resolver=resolved.resolver),
                                        instance, resolved.contents, strict))
    properties = schema.get("properties")
    if validator.is_type(properties, "object"):
        keys += properties.keys() & instance.keys()
    for keyword in ("additionalProperties", "unevaluatedProperties"):
        subschema = schema.get(keyword)
        if subschema is not None:
            keys += (k for k, v in instance.items() if _no_errors(validator.descend(v, subschema)))
    if "patternProperties" in schema:
        keys += (k for k in instance if _by_pattern(schema, k, strict))
    for name, subschema in (schema.get("dependentSchemas") or {}).items():
        if name in instance:
            keys += _evaluated_keys(validator, instance, subschema, strict)
    for keyword in ("allOf", "oneOf", "anyOf"):
        for subschema in schema.get(keyword, []):
            if _no_errors(validator.descend(instance, subschema)):
                keys += _evaluated_keys(validator, instance, subschema, strict)
    if "if" in schema:
        if validator.evolve(schema=schema["if"]).is_valid(instance):
            keys += _evaluated_keys(validator, instance, schema["if"], strict)
            if "then" in schema:
                keys += _evaluated_keys(validator, instance, schema["then"], strict)
        elif "else" in schema:
            keys += _evaluated_keys(validator, instance, schema["else"], strict)
    return keys


def _unevaluated_properties(strict: bool, validator: Any, unevaluated: Any, instance: Any,
                            schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    evaluated = set(_evaluated_keys(validator, instance, schema, strict))
    failing = [k for k in instance if k not in evaluated
               and not _no_errors(validator.descend(instance[k], unevaluated, path=k, schema_path=k))]
    if not failing:
        return
    listed = ", ".join(repr(each) for each in sorted(failing, key=str))
    verb = "was" if len(failing) == 1 else "were"
    if unevaluated is False:
        yield ValidationError(f"Unevaluated properties are not allowed ({listed} {verb} unexpected)")
    else:
        yield ValidationError(f"Unevaluated properties are not valid under the given schema "
                              f"({listed} {verb} unevaluated and invalid)")


@functools.lru_cache(maxsize=1024)
def _multiple_of_validator(divisor: float) -> Any:
    return _rs.validator_for({"multipleOf": divisor})


def _multiple_of(strict: bool, validator: Any, divisor: Any, instance: Any, schema: Any) -> Iterator[Any]:
    """``multipleOf`` as the guard's validator reads it: jsonschema divides in binary floating point,
    so 0.07 was no multiple of 0.01 there (and 0.3 none of 0.1) while the guard accepted both;
    check then refused an example the guard accepts, and a diff witness could rest on it."""
    if not validator.is_type(instance, "number") or not validator.is_type(divisor, "number"):
        return
    if _rs is None:  # pragma: no cover - see the import
        yield from jsonschema._keywords.multipleOf(  # type: ignore[attr-defined,unused-ignore]
            validator, divisor, instance, schema)
    elif not _multiple_of_validator(divisor).is_valid(instance):
        yield ValidationError(f"{instance!r} is not a multiple of {divisor!r}")


def _is_regex(instance: object) -> bool:
    return not isinstance(instance, str) or pattern_problem(instance) is None


#: The formats JSON Schema 2020-12 defines, other than ``regex``: the guard's validator asserts each
#: of them under ``formats=True``, and the reference validator asks it for its verdict, so a value
#: ``check`` accepts is one the guard accepts on every machine.
GUARD_FORMATS = (
    "date-time", "date", "time", "duration", "email", "idn-email", "hostname", "idn-hostname",
    "ipv4", "ipv6", "uri", "uri-reference", "iri", "iri-reference", "uuid", "uri-template",
    "json-pointer", "relative-json-pointer",
)


def _guard_format(name: str) -> Callable[[object], bool]:
    conforms = _rs.validator_for({"format": name}, validate_formats=True).is_valid

    def is_format(instance: object) -> bool:
        return not isinstance(instance, str) or bool(conforms(instance))

    return is_format


@functools.cache
def format_checker(base: Any = None) -> Any:
    """``base``'s format checker (default: 2020-12's) with ``regex`` judged by ``patterns.py`` and
    the guard's formats by the guard's validator."""
    base = base or jsonschema.Draft202012Validator
    # FormatChecker(names) looks each name up in jsonschema's global registry, which lacks the
    # formats whose optional packages are missing: start empty and copy base's own checks instead
    checker = jsonschema.FormatChecker(())
    checker.checkers.update(base.FORMAT_CHECKER.checkers)
    checker.checks("regex")(_is_regex)
    if _rs is not None:
        for name in GUARD_FORMATS:
            checker.checks(name)(_guard_format(name))
    return checker


@functools.cache
def schema_format_checker() -> Any:
    """The formats of the 2020-12 meta-schema as schemas are read: ``regex`` (``pattern``,
    ``patternProperties``) judged by ``patterns.py``, and no other. ``$ref``, ``$id`` and ``$schema``
    are ``uri-reference`` / ``uri`` there, yet validators resolve a ``$ref`` RFC 3986 refuses
    (``#/$defs/né``, ``#/$defs/a b``) by its text, as the guard does."""
    checker = jsonschema.FormatChecker(())
    checker.checks("regex")(_is_regex)
    return checker


@functools.cache
def validator_class(base: Any = None, *, strict: bool = True) -> Any:
    """``base`` (default: jsonschema's ``Draft202012Validator``) with every regex keyword judged by
    ``patterns.py``. ``strict``: a match the pattern's validator cannot judge raises
    ``PatternUndecided`` (for a verdict that must not guess); otherwise it counts as a mismatch, as
    the guard's validator counts it."""
    base = base or jsonschema.Draft202012Validator
    keywords: dict[str, Callable[..., Iterator[Any]]] = {"pattern": _pattern, "patternProperties": _pattern_properties,
                "additionalProperties": _additional_properties,
                "unevaluatedProperties": _unevaluated_properties, "multipleOf": _multiple_of}
    extended = jsonschema.validators.extend(base, {  # type: ignore[no-untyped-call,unused-ignore]
        name: functools.partial(function, strict) for name, function in keywords.items()
        if name in base.VALIDATORS})
    extended.FORMAT_CHECKER = format_checker(base)
    extended.evolve = functools.partialmethod(_evolve, base, strict)
    return extended


def _evolve(self: Any, base: Any, strict: bool, **changes: Any) -> Any:
    """jsonschema's ``evolve``, which picks the class of a subschema by its ``$schema`` (the stock
    2020-12 one for a subschema naming it): here that class's twin with the project's patterns."""
    schema = changes.setdefault("schema", self.schema)
    found = jsonschema.validators.validator_for(schema, default=type(self))
    target = type(self) if found in (type(self), base) else validator_class(found, strict=strict)
    for field in attrs.fields(type(self)):
        if field.init and field.alias not in changes:
            changes[field.alias] = getattr(self, field.name)
    return target(**changes)


def validator(schema: Any, *, formats: bool = True, **kwargs: Any) -> Any:
    """A 2020-12 reference validator for ``schema`` with the project's regex semantics, asserting
    the formats jsonschema can check when ``formats``."""
    cls = validator_class()
    if formats:
        kwargs.setdefault("format_checker", format_checker())
    return cls(schema, **kwargs)


__all__ = ["GUARD_FORMATS", "PatternUndecided", "format_checker", "schema_format_checker", "validator",
           "validator_class"]
