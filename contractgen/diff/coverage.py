"""Which schema keywords the specific rules understand, per direction; the rest go to the catch-all rules."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from .model import Direction
from .normalize import Node, canonical
from .structure import SchemaPair, unmatched_branches

_COMMON = frozenset({"properties", "required", "type", "enum", "items", "allOf", "anyOf", "oneOf",
                     "default", "examples"})
HANDLED = {
    Direction.INPUT: _COMMON | {"const", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
                                "minLength", "maxLength", "minItems", "maxItems", "uniqueItems", "pattern",
                                "format", "additionalProperties"},
    Direction.OUTPUT: _COMMON,
}


def is_false_schema(value: Any) -> bool:
    return isinstance(value, dict) and list(value) == ["not"] and value["not"] == {}


def is_open_schema(value: Any) -> bool:
    """``additionalProperties`` absent, ``true`` or ``{}``: any extra property is accepted."""
    return value is None or (isinstance(value, dict) and not value)


def unhandled(pair: SchemaPair) -> tuple[str, ...]:
    """Changed keywords at this position that no specific rule checks."""
    if not pair.both:
        return ()
    assert pair.old is not None and pair.new is not None
    handled = HANDLED[pair.direction]
    out = []
    for keyword in sorted(set(pair.old) | set(pair.new)):
        if not pair.changed(keyword):
            continue
        if keyword == "additionalProperties" and pair.direction is Direction.INPUT:
            old, new = pair.old.get(keyword), pair.new.get(keyword)
            if not (is_open_schema(old) or is_false_schema(new) or is_false_schema(old) or is_open_schema(new)):
                out.append(keyword)
            continue
        if keyword in ("anyOf", "oneOf") and pair.direction is Direction.OUTPUT:
            removed, added = unmatched_branches(pair, keyword)
            if removed or added:
                out.append(keyword)
            continue
        if keyword == "allOf" and len(pair.old.get("allOf", [])) != len(pair.new.get("allOf", [])):
            out.append(keyword)
            continue
        if keyword not in handled:
            out.append(keyword)
    return tuple(out)


@lru_cache(maxsize=4096)
def semantic_verdict(pair: SchemaPair) -> tuple[str, Any]:
    """jsonschema-rs's schema algebra on one input position: ("covered"|"narrowed"|"unknown", extra).

    "narrowed" carries a schema of values the old side accepts and the new side rejects.
    """
    try:
        import jsonschema_rs
    except ImportError:
        return ("unknown", "install contractgen[fast] (jsonschema-rs) for a semantic check")
    try:
        old = jsonschema_rs.canonicalize(_plain(pair.old))
        new = jsonschema_rs.canonicalize(_plain(pair.new))
        if new.covers(old) == jsonschema_rs.canonical.Containment.YES:
            return ("covered", None)
        difference = old.subtract(new).to_json_schema()
    except Exception as exc:  # noqa: BLE001 - the algebra is a best-effort backstop; never fail the diff
        return ("unknown", f"the schema algebra could not decide ({type(exc).__name__})")
    # a value only the old side accepts, checked here on the two positions themselves
    from .generate import NOTHING, accepts, candidates
    from .witness import PROBES

    old_plain, new_plain = _plain(pair.old), _plain(pair.new)
    pool = [*candidates(difference), *candidates(old_plain), *PROBES, *range(-3, 12)]
    for value in pool:
        if value is not NOTHING and accepts(old_plain, value) and not accepts(new_plain, value):
            return ("narrowed", value)
    return ("unknown", "the schema algebra could not decide")


def _plain(node: Node | None) -> Any:
    import json

    return json.loads(canonical(node)) if node is not None else {}
