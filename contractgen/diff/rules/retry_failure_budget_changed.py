"""retry-failure-budget-changed: the number of tolerated consecutive transient failures changed."""

from __future__ import annotations

from collections.abc import Iterator

from ..model import Context, Direction, Hit, Level, Scope
from ..structure import ToolPair

ID = "retry-failure-budget-changed"
LEVEL = Level.DANGEROUS
SUMMARY = "The retry failure budget changed."
DIRECTION = Direction.CONTRACT
SCOPE = Scope.CONTRACT


def check(pair: ToolPair, context: Context) -> Iterator[Hit]:
    """The budget decides after how many retry_later failures the model is told to stop: a smaller
    budget gives up on calls that used to get through, a larger (or no) budget lets agents loop longer."""
    old, new = pair.old.contract.retry.failure_budget, pair.new.contract.retry.failure_budget
    if old != new:
        def show(value: int | None) -> str:
            return "unlimited" if value is None else str(value)
        yield Hit(f"failure budget changed from {show(old)} to {show(new)}", pointer="/retry/failure_budget",
                  source="/retry/failure_budget")
