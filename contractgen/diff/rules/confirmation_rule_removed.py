"""confirmation-rule-removed: calls that waited for a human's confirmation now run without one."""

from __future__ import annotations

from collections.abc import Iterator

from ..model import Context, Direction, Hit, Level, Scope
from ..structure import ToolPair

ID = "confirmation-rule-removed"
LEVEL = Level.BREAKING
SUMMARY = (
    "The confirmation rule is gone: calls that needed a human's confirmation now run straight away."
)
DIRECTION = Direction.CONTRACT
SCOPE = Scope.CONTRACT


def check(pair: ToolPair, context: Context) -> Iterator[Hit]:
    """A confirmation is the deterministic safeguard in front of a costly call (a refund, a deletion):
    the guard holds the call until the host has a human's yes. Without the rule, the same calls run
    on the model's word alone, and nothing in the schemas shows that the safeguard went away."""
    old, new = pair.old.contract.confirmation, pair.new.contract.confirmation
    if old is not None and new is None:
        which = "every call" if old.when is None else "calls its `when` accepted"
        yield Hit(
            f"confirmation rule removed: {which} ran only after a human confirmed; now none waits",
            pointer="/confirmation",
            source="/confirmation",
            side="old",
        )
