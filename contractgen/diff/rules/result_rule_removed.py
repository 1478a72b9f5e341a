"""result-rule-removed: a result rule (integrity or freshness) was removed."""

from __future__ import annotations

from collections.abc import Iterator

from ...runtime.contract import FreshnessRule
from ...runtime.pointer import escape_token
from ..model import Context, Direction, Hit, Level, Scope
from ..structure import ToolPair
from ._result_rules import freshness_witness, integrity_witness, kind, paired

ID = "result-rule-removed"
LEVEL = Level.BREAKING
SUMMARY = (
    "A result rule was removed: results it refused (a wrong hash, a stale timestamp) now succeed."
)
DIRECTION = Direction.CONTRACT
SCOPE = Scope.CONTRACT


def check(pair: ToolPair, context: Context) -> Iterator[Hit]:
    """Callers rely on a result rule without checking it themselves: they deduplicate chunks by a hash
    the guard proved, and answer from passages the guard proved fresh. Without the rule a result
    with a wrong hash or a stale timestamp is a success, and callers act on it."""
    for index, old, new in paired(pair.old.contract, pair.new.contract):
        if new is not None:
            continue
        if isinstance(old, FreshnessRule):
            age = 2 * old.max_age if old.max_age is not None else -2 * old.skew - 60
            witness = freshness_witness(old, age)
        else:
            witness = integrity_witness(old, None)
        yield Hit(
            f"{kind(old)} rule on {old.field} was removed",
            pointer=f"/result_rules/{kind(old)}/{escape_token(old.field)}",
            source=f"/result_rules/{index}",
            side="old",
            witness=witness,
        )
