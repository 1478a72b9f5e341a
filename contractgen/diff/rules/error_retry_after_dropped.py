"""error-retry-after-dropped: an error no longer says how long to wait."""

from __future__ import annotations

from collections.abc import Iterator

from ..model import Context, Direction, Hit, Level, Scope
from ..structure import ToolPair
from ._errors import matched_errors, told

ID = "error-retry-after-dropped"
LEVEL = Level.BREAKING
SUMMARY = "A declared error no longer carries retry_after."
DIRECTION = Direction.CONTRACT
SCOPE = Scope.CONTRACT


def check(pair: ToolPair, context: Context) -> Iterator[Hit]:
    """Callers schedule their retry from retry_after; without it they fall back to guessing, often
    hammering a rate-limited tool. Only an error whose envelope carried it can drop it: the runtime
    sends retry_after only beside retryable: true (``told``)."""
    for name, old_index, old, _, new in matched_errors(pair):
        if old.retry_after is not None and new.retry_after is None and told(old, pair.old.contract)[0]:
            yield Hit(f"error {name} no longer carries retry_after (was {old.retry_after:g} s)",
                      pointer=f"/errors/{name}/retry_after", source=f"/errors/{old_index}/retry_after", side="old")
