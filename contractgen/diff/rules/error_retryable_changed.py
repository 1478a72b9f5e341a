"""error-retryable-changed: an error flipped between retryable and not retryable."""

from __future__ import annotations

from collections.abc import Iterator

from ..model import Context, Direction, Hit, Level, Scope
from ..structure import ToolPair
from ._errors import matched_errors, own_fields_changed, told

ID = "error-retryable-changed"
LEVEL = Level.BREAKING
SUMMARY = "A declared error flipped retryable."
DIRECTION = Direction.CONTRACT
SCOPE = Scope.CONTRACT


def check(pair: ToolPair, context: Context) -> Iterator[Hit]:
    """Retry loops and models decide from retryable whether to call again: a flip to true invites
    repeated calls the tool expected not to get; a flip to false abandons calls that would succeed.
    Read as the runtime sends it: an error that writes nothing, of a transient code
    retry.retryable_codes leaves out, is told not to retry."""
    for name, _, old, index, new in matched_errors(pair):
        # what the runtime sends, retry policy applied (runtime.codes.retry_withheld)
        before, after = told(old, pair.old.contract)[0], told(new, pair.new.contract)[0]
        if before != after and own_fields_changed(old, new):
            yield Hit(f"error {name} retryable changed from {str(before).lower()} to {str(after).lower()}",
                      pointer=f"/errors/{name}/retryable", source=f"/errors/{index}")
