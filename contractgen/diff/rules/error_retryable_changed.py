"""error-retryable-changed: an error flipped between retryable and not retryable."""

from __future__ import annotations

from collections.abc import Iterator

from ..model import Context, Direction, Hit, Level, Scope
from ..structure import ToolPair
from ._errors import matched_errors

ID = "error-retryable-changed"
LEVEL = Level.BREAKING
SUMMARY = "A declared error flipped retryable."
DIRECTION = Direction.CONTRACT
SCOPE = Scope.CONTRACT


def check(pair: ToolPair, context: Context) -> Iterator[Hit]:
    """Retry loops and models decide from retryable whether to call again: a flip to true invites
    repeated calls the tool expected not to get; a flip to false abandons calls that would succeed."""
    for name, _, old, index, new in matched_errors(pair):
        if old.effective_retryable != new.effective_retryable:
            yield Hit(f"error {name} retryable changed from {str(old.effective_retryable).lower()} to "
                      f"{str(new.effective_retryable).lower()}", pointer=f"/errors/{name}/retryable",
                      source=f"/errors/{index}")
