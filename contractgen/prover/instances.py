"""Instances of a schema: small valid JSON values built for it (the bases witnesses are mutated from),
and the reference verdict on a value (``accepts``/``rejects``) that every other module trusts.

Best effort by design: every value produced here is checked before it is used, by jsonschema with
the guard's regex semantics (``runtime/reference_validator.py``), so a wrong guess costs a retry,
never a false witness. Strings for a pattern come from ``regex.regex_samples``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping
from typing import Any

from ..runtime import reference_validator
from ..runtime.patterns import pattern_matches
from .regex import regex_samples

NOTHING: Any = object()  # no value could be built


def text_of(value: Any) -> str:
    """A JSON value's (or a schema's) text with its keys sorted: equal texts, equal JSON."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


FORMAT_SAMPLES: Mapping[str, str] = {
    "date-time": "2026-01-01T00:00:00Z", "date": "2026-01-01", "time": "12:00:00Z", "duration": "P1D",
    "email": "user@example.com", "idn-email": "user@example.com", "hostname": "example.com",
    "idn-hostname": "example.com", "ipv4": "192.0.2.1", "ipv6": "2001:db8::1",
    "uri": "https://example.com/", "uri-reference": "/x", "iri": "https://example.com/",
    "iri-reference": "/x", "uuid": "00000000-0000-4000-8000-000000000000", "regex": "^a$",
    "json-pointer": "/a", "relative-json-pointer": "0", "uri-template": "https://example.com/{x}",
}
#: Values that break common formats (used as witness candidates for format changes).
FORMAT_BREAKERS = ("not-a-valid-value", "x", "2026-13-45", "user@", "@example", "999.1.1.1", "0")

_VALIDATORS: dict[int, tuple[Any, Any]] = {}


def validator_for(schema: Mapping[str, Any]) -> Any:
    """A cached reference validator that also asserts formats jsonschema can check; its patterns
    are read as the guard reads them, and one it cannot judge raises (``PatternUndecided``)."""
    cached = _VALIDATORS.get(id(schema))
    if cached is not None and cached[0] is schema:
        return cached[1]
    made = reference_validator.validator(schema)
    _VALIDATORS[id(schema)] = (schema, made)
    return made


def forget_validators() -> None:
    """Drop the cached validators (a test that changes how formats are read builds them anew)."""
    _VALIDATORS.clear()


def verdict(schema: Mapping[str, Any], value: Any) -> bool | None:
    """The reference answer for ``value``, or None when it cannot decide (a pattern the guard's
    validator cannot judge, an unresolvable reference): no witness may rest on an error."""
    try:
        return bool(validator_for(schema).is_valid(value))
    except Exception:  # noqa: BLE001 - any failure to validate means "not proven either way"
        return None


def accepts(schema: Mapping[str, Any], value: Any) -> bool:
    return verdict(schema, value) is True


def rejects(schema: Mapping[str, Any], value: Any) -> bool:
    return verdict(schema, value) is False


def generate(schema: Any, depth: int = 0) -> Any:
    """A small value ``schema`` accepts, or NOTHING."""
    for candidate in candidates(schema, depth):
        if candidate is not NOTHING and accepts(schema, candidate):
            return candidate
    return NOTHING


def candidates(schema: Any, depth: int = 0) -> Iterator[Any]:
    """Plausible values for ``schema``, simplest first (unverified)."""
    if not isinstance(schema, Mapping) or depth > 10:
        yield NOTHING
        return
    if "const" in schema:
        yield schema["const"]
    for value in schema.get("enum", ()):
        yield value
    for value in schema.get("examples", ()) or ():
        yield value
    if "default" in schema:
        yield schema["default"]
    # a boolean branch or part: true adds nothing, false admits nothing (no candidate comes of it)
    for keyword in ("anyOf", "oneOf"):
        rest = {k: v for k, v in schema.items() if k not in ("anyOf", "oneOf")}
        for branch in schema.get(keyword, ()):
            if branch is not False:
                yield from candidates({**rest, **(branch if isinstance(branch, Mapping) else {})}, depth + 1)
    if "allOf" in schema and False not in schema["allOf"]:
        merged: dict[str, Any] = {k: v for k, v in schema.items() if k != "allOf"}
        for part in schema["allOf"]:
            if isinstance(part, Mapping):
                merged.update(part)
        yield from candidates(merged, depth + 1)
    for json_type in _type_order(schema):
        yield of_type(schema, json_type, depth)


def _type_order(schema: Mapping[str, Any]) -> list[str]:
    declared = schema.get("type")
    if declared is None:
        if "properties" in schema or "required" in schema:
            return ["object"]
        if "items" in schema:
            return ["array"]
        if any(k in schema for k in ("minLength", "maxLength", "pattern", "format")):
            return ["string"]
        if any(k in schema for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")):
            return ["number"]
        return ["string", "integer", "boolean", "null", "object", "array"]
    types = [declared] if isinstance(declared, str) else list(declared)
    return sorted(types, key=lambda t: (t == "null", t))


def of_type(schema: Mapping[str, Any], json_type: str, depth: int = 0) -> Any:
    if json_type == "null":
        return None
    if json_type == "boolean":
        return False
    if json_type in ("integer", "number"):
        return _number(schema, json_type == "integer")
    if json_type == "string":
        return _string(schema)
    if json_type == "array":
        return _array(schema, depth)
    if json_type == "object":
        return _object(schema, depth)
    return NOTHING


def _number(schema: Mapping[str, Any], integer: bool) -> Any:
    low, high = schema.get("minimum"), schema.get("maximum")
    xlow, xhigh = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
    step = schema.get("multipleOf")
    value: float = 0
    if isinstance(low, (int, float)):
        value = max(value, low)
    if isinstance(xlow, (int, float)) and value <= xlow:
        value = xlow + (1 if integer or step else 0.5)
    if isinstance(high, (int, float)) and value > high:
        value = high
    if isinstance(xhigh, (int, float)) and value >= xhigh:
        value = xhigh - (1 if integer or step else 0.5)
    if isinstance(step, (int, float)) and step > 0:
        value = math.ceil(value / step) * step
    if integer:
        value = math.ceil(value)
    return int(value) if float(value).is_integer() and (integer or isinstance(value, int)) else value


def _string(schema: Mapping[str, Any]) -> Any:
    fmt = schema.get("format")
    if isinstance(fmt, str) and fmt in FORMAT_SAMPLES and isinstance(schema.get("pattern"), str):
        text = _formatted_match(FORMAT_SAMPLES[fmt], schema)
    elif isinstance(fmt, str) and fmt in FORMAT_SAMPLES:
        text = FORMAT_SAMPLES[fmt]
    elif isinstance(schema.get("pattern"), str):
        samples = regex_samples(schema["pattern"], 12)
        low, high = schema.get("minLength", 0), schema.get("maxLength")
        fitting = [s for s in samples if len(s) >= low and (high is None or len(s) <= high)]
        text = (fitting or samples or [""])[0]
    else:
        text = ""
    low = schema.get("minLength", 0)
    if isinstance(low, int) and len(text) < low:
        text = text + "a" * (low - len(text))
    high = schema.get("maxLength")
    if isinstance(high, int) and len(text) > high:
        text = text[:high]
    return text


def _formatted_match(sample: str, schema: Mapping[str, Any]) -> str:
    """A text of the format that the pattern also matches: a sample of the pattern in place of the
    format's sample's start or end ("^2025-" over 2026-01-01 is 2025-01-01, "@corp\\.org$" over
    user@example.com is user@corp.org), else the format's sample (the caller checks what it gets)."""
    texts = [sample]
    for piece in regex_samples(schema["pattern"], 12):
        # the piece in place of the sample's start or end, of any length (10. over 192.0.2.1 is 10.0.2.1)
        texts += [piece + sample[cut:] for cut in range(len(sample) + 1)]
        texts += [sample[:cut] + piece for cut in range(len(sample), -1, -1)]
    # the texts closest to the sample's length first: the least of it replaced reads most like it
    ordered = sorted(dict.fromkeys(texts), key=lambda text: abs(len(text) - len(sample)))
    return next((t for t in ordered if accepts(schema, t)), sample)


def _array(schema: Mapping[str, Any], depth: int) -> Any:
    count = schema.get("minItems", 0) if isinstance(schema.get("minItems", 0), int) else 0
    prefix = schema.get("prefixItems", [])
    out: list[Any] = []
    # the items ``contains`` asks for go after the slots: built in front, one would have to fit slot 0
    filled = len(prefix) if count or isinstance(schema.get("contains"), Mapping) else 0
    for index in range(max(count, filled)):
        item_schema = prefix[index] if index < len(prefix) else schema.get("items", {})
        item = generate(item_schema, depth + 1)
        if item is NOTHING:
            return NOTHING
        if schema.get("uniqueItems") and item in out:
            alternatives = [v for v in candidates(item_schema, depth + 1)
                            if v is not NOTHING and v not in out and accepts(item_schema, v)]
            if not alternatives:
                return NOTHING
            item = alternatives[0]
        out.append(item)
    return with_contained(schema, out, depth)


def with_contained(schema: Mapping[str, Any], out: list[Any], depth: int) -> Any:
    """``out`` grown by items that match ``contains`` until ``minContains`` (1 by default) of them do:
    without them no array ``contains`` judges passes (the value is still checked by the caller)."""
    contains, needed = schema.get("contains"), schema.get("minContains", 1)
    if not isinstance(contains, Mapping) or not isinstance(needed, int) or isinstance(needed, bool):
        return out
    items = schema.get("items", {})
    held = sum(1 for item in out if accepts(contains, item))
    for _ in range(min(max(0, needed - held), 50)):
        item = generate({"allOf": [items, contains]} if isinstance(items, Mapping) else contains, depth + 1)
        if item is NOTHING:
            return NOTHING
        out.append(item)
    return out


def member_schema(schema: Any, name: str) -> Any:
    """The subschema a member named ``name`` meets (declared, else pattern, else additional)."""
    if not isinstance(schema, Mapping):
        return {}
    props = schema.get("properties", {})
    if isinstance(props, Mapping) and name in props:
        return props[name]
    for pattern, sub in (schema.get("patternProperties") or {}).items():
        if pattern_matches(pattern, name):
            return sub
    # a name nothing else describes meets additionalProperties, or else unevaluatedProperties
    extra = schema.get("additionalProperties", schema.get("unevaluatedProperties", {}))
    return extra if isinstance(extra, Mapping) else ({} if extra else {"not": {}})


def _object(schema: Mapping[str, Any], depth: int) -> Any:
    properties: Mapping[str, Any] = schema.get("properties", {})
    out: dict[str, Any] = {}
    for name in schema.get("required", ()):
        # a required name it does not declare holds what a pattern or additionalProperties asks
        value = generate(member_schema(schema, name), depth + 1)
        if value is NOTHING:
            return NOTHING
        out[name] = value
    low = schema.get("minProperties", 0)
    if not isinstance(low, int) or isinstance(low, bool):
        return out
    for name, sub in properties.items():
        if len(out) >= low:
            break
        if name not in out:
            value = generate(sub, depth + 1)
            if value is not NOTHING:
                out[name] = value
    # more members than it declares: names of its own, valued as additionalProperties says
    extra = schema.get("additionalProperties", {})
    extra = extra if isinstance(extra, Mapping) else {} if extra is not False else None
    index = 0
    while extra is not None and len(out) < low and index < low + 8:
        name, index = f"p{index}", index + 1
        if name not in out and name not in properties:
            value = generate(extra, depth + 1)
            if value is NOTHING:
                break
            out[name] = value
    return out
