"""Which schema keywords the specific rules understand, per direction; the rest go to the catch-all rules."""

from __future__ import annotations

from typing import Any

from ..prover import Mutation
from .model import Direction
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


#: keywords whose changes show up as child pairs of the structural diff, not at the position itself
CHILD_KEYWORDS = frozenset({"default", "examples"})


def own_changes(pair: SchemaPair) -> tuple[str, ...]:
    """Keywords changed at this position itself (children are separate pairs)."""
    if not pair.both:
        return ()
    assert pair.old is not None and pair.new is not None
    return tuple(k for k in sorted(set(pair.old) | set(pair.new)) if k not in CHILD_KEYWORDS and pair.changed(k))


def what_changed(pair: SchemaPair, keywords: tuple[str, ...]) -> str:
    """The change in words for the backstops: ``changed items``, or ``became false`` for a schema
    that now admits nothing (``items: false`` is normalized to ``{not: {}}``)."""
    if pair.new is not None and is_false_schema(dict(pair.new)) and not is_false_schema(dict(pair.old or {})):
        return "the schema became false (no value is allowed here) and"
    return f"changed {', '.join(keywords)}"


def proven_difference(pair: SchemaPair, context: Any) -> tuple[tuple[str, ...], Mutation] | None:
    """For the proof backstops: the keywords changed at ``pair`` and a mutation putting the proof's
    witness there, when no rule reported a break at or below and the proof found a difference."""
    from ..prover import Verdict
    from .reading import prove

    if not pair.both or context.is_covered(pair.pointer):
        return None
    keywords = own_changes(pair)
    if not keywords:
        return None
    proof, steps = prove(pair, context.strict)
    if proof.verdict is not Verdict.NOT_COVERS:
        return None
    return keywords, Mutation(steps, "set", proof.witness)
