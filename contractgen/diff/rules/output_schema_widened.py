"""output-schema-widened: the semantic backstop found outputs the new schema allows and the old one did not."""

from __future__ import annotations

from collections.abc import Iterator

from ..coverage import HANDLED, semantic_verdict, unhandled
from ..model import Context, Direction, Hit, Level, Scope
from ..normalize import Node
from ..ruletools import show
from ..structure import SchemaPair

ID = "output-schema-widened"
LEVEL = Level.BREAKING
SUMMARY = "A change no specific rule reports (bounds, lengths, pattern, ...) lets results hold values the old schema excluded."
DIRECTION = Direction.OUTPUT
SCOPE = Scope.SCHEMA
BACKSTOP = True


def check(pair: SchemaPair, context: Context) -> Iterator[Hit]:
    """Outputs are covariant: consumers were written against the old schema, so a value it excluded
    (a longer string, a number past the old bound, a new shape) can reach code and prompts that never
    expected it. Found with jsonschema-rs's schema algebra or by probing, and checked with jsonschema;
    the message shows one such value."""
    keywords = unhandled(pair)
    if not keywords or context.is_covered(pair.pointer):
        return
    verdict, value = semantic_verdict(swapped(pair), strict=True)
    if verdict == "narrowed":
        yield Hit(f"changed {', '.join(keywords)} admits results the old schema excluded, e.g. {show(value)}")


def swapped(pair: SchemaPair) -> SchemaPair:
    """Old and new exchanged ("new accepts what old rejects" is output widening), with the keywords
    specific rules judge (enum, type, properties, ...) kept as they were: only the rest is weighed."""
    assert pair.old is not None and pair.new is not None
    handled = HANDLED[Direction.OUTPUT]
    isolated = Node({k: v for k, v in pair.new.items() if k not in handled})
    isolated.update({k: v for k, v in pair.old.items() if k in handled})
    return SchemaPair(pair.direction, pair.pointer, isolated, pair.old, pair.steps, pair.name, pair.parent)
