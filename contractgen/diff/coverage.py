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


#: keywords whose changes show up as child pairs of the structural diff, not at the position itself
CHILD_KEYWORDS = frozenset({"default", "examples"})


def own_changes(pair: SchemaPair) -> tuple[str, ...]:
    """Keywords changed at this position itself (children are separate pairs)."""
    if not pair.both:
        return ()
    assert pair.old is not None and pair.new is not None
    return tuple(k for k in sorted(set(pair.old) | set(pair.new)) if k not in CHILD_KEYWORDS and pair.changed(k))


def semantic_verdict(pair: SchemaPair, strict: bool = False) -> tuple[str, Any]:
    """Does the new schema at this input position still accept everything the old one did?

    ("covered", None) when jsonschema-rs's schema algebra proves it; ("narrowed", value) with a value
    the old position accepts and the new rejects (checked with jsonschema); else ("unknown", why).
    Without ``strict``, the default policy holds: callers never sent properties the old object did
    not declare, so the old side is read with the new side's added properties declared.
    """
    old = pair.old
    if not strict and old is not None and pair.new is not None:
        added = {k: v for k, v in pair.new.get("properties", {}).items() if k not in old.get("properties", {})}
        if added:
            old = Node({**old, "properties": {**old.get("properties", {}), **added}})
    return _verdict(canonical(old), canonical(pair.new))


@lru_cache(maxsize=4096)
def _verdict(old_text: str, new_text: str) -> tuple[str, Any]:
    import json

    from .generate import NOTHING, accepts, candidates, rejects
    from .witness import PROBES

    old_plain, new_plain = json.loads(old_text), json.loads(new_text)
    pool: list[Any] = []
    reason = "jsonschema-rs (a dependency) is not importable, so no semantic check ran"
    try:
        import jsonschema_rs

        old = jsonschema_rs.canonicalize(old_plain)
        new = jsonschema_rs.canonicalize(new_plain)
        if new.covers(old) == jsonschema_rs.canonical.Containment.YES:
            return ("covered", None)
        pool.extend(candidates(old.subtract(new).to_json_schema()))
        reason = "the schema algebra could not decide"
    except ImportError:
        pass
    except Exception as exc:  # noqa: BLE001 - the algebra is a best-effort backstop; never fail the diff
        reason = f"the schema algebra could not decide ({type(exc).__name__})"
    pool.extend(candidates(old_plain))
    pool.extend(_keyed_probes(old_plain))
    pool.extend(PROBES)
    pool.extend(range(-3, 12))
    for value in pool:
        if value is not NOTHING and accepts(old_plain, value) and rejects(new_plain, value):
            return ("narrowed", value)
    return ("unknown", reason)


def _keyed_probes(schema: Any) -> list[Any]:
    """Objects keyed by names the old schema mentions anywhere (properties, patternProperties samples)."""
    from .generate import regex_samples

    names: list[str] = []

    def collect(node: Any) -> None:
        if isinstance(node, dict):
            names.extend(k for k in node.get("properties", {}) if isinstance(node.get("properties"), dict))
            for pattern in node.get("patternProperties", {}) if isinstance(node.get("patternProperties"), dict) else ():
                names.extend(regex_samples(pattern, 2))
            for value in node.values():
                collect(value)
        elif isinstance(node, list):
            for value in node:
                collect(value)

    collect(schema)
    unique = sorted(set(names))[:12]
    return [{name: value} for name in unique for value in ("x", 1)] + ([{n: "x" for n in unique}] if unique else [])


def _plain(node: Node | None) -> Any:
    import json

    return json.loads(canonical(node)) if node is not None else {}
