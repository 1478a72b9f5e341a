"""input-constraint-relaxed: an input constraint was loosened or dropped."""

from __future__ import annotations

from collections.abc import Iterator

from ..coverage import is_false_schema, is_open_schema
from ..model import Context, Direction, Hit, Level, Scope
from ..ruletools import (
    accepts_more,
    int_limit,
    lower_bound,
    lower_is_tighter,
    lower_text,
    show,
    upper_bound,
    upper_is_tighter,
    upper_text,
)
from ..structure import SchemaPair

ID = "input-constraint-relaxed"
LEVEL = Level.SAFE
SUMMARY = "An input constraint was relaxed (bounds, lengths, item counts, pattern, format, const, enum, closed object)."
DIRECTION = Direction.INPUT
SCOPE = Scope.SCHEMA


def check(pair: SchemaPair, context: Context) -> Iterator[Hit]:
    """The new schema accepts everything the old one did at this position, and more. Reported only
    when a value is found that the new schema accepts here and the old one refused (a bound moved
    into ``allOf``, or an enum that became a ``const``, relaxes nothing)."""
    hits = list(_relaxed(pair))
    if hits and accepts_more(pair):
        yield from hits


def _relaxed(pair: SchemaPair) -> Iterator[Hit]:
    if not pair.both:
        return
    old, new = pair.old, pair.new
    assert old is not None and new is not None
    if pair.changed("minimum") or pair.changed("exclusiveMinimum"):
        before, after = lower_bound(old), lower_bound(new)
        if lower_is_tighter(before, after):
            yield Hit(f"lower bound relaxed from {lower_text(before)} to {lower_text(after)}")
    if pair.changed("maximum") or pair.changed("exclusiveMaximum"):
        before_u, after_u = upper_bound(old), upper_bound(new)
        if upper_is_tighter(before_u, after_u):
            yield Hit(f"upper bound relaxed from {upper_text(before_u)} to {upper_text(after_u)}")
    for keyword, looser in (("minLength", "lt"), ("minItems", "lt"), ("maxLength", "gt"), ("maxItems", "gt")):
        if not pair.changed(keyword):
            continue
        a, b = int_limit(old, keyword), int_limit(new, keyword)
        relaxed = (b or 0) < (a or 0) if looser == "lt" else (a is not None and (b is None or b > a))
        if relaxed:
            yield Hit(f"{keyword} relaxed from {a if a is not None else 'none'} to {b if b is not None else 'none'}")
    shared = pair.shared_types
    for keyword in ("pattern", "format", "const"):
        if keyword in old and keyword not in new and ("string" in shared or keyword == "const"):
            yield Hit(f"{keyword} {show(old[keyword])} removed")
    if old.get("uniqueItems") is True and new.get("uniqueItems") is not True and "array" in shared:
        yield Hit("uniqueItems removed")
    if "enum" in old and "enum" not in new:
        yield Hit(f"enum {show(old['enum'])} removed: any value of the type is accepted")
    before_ap, after_ap = old.get("additionalProperties"), new.get("additionalProperties")
    if pair.changed("additionalProperties") and is_false_schema(before_ap) and not is_false_schema(after_ap):
        yield Hit("additionalProperties opened: undeclared properties are accepted" +
                  ("" if is_open_schema(after_ap) else " when they match a schema"))
