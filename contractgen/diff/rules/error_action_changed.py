"""error-action-changed: an error now tells the model to do something else."""

from __future__ import annotations

from collections.abc import Iterator

from ..model import Context, Direction, Hit, Level, Scope
from ..structure import ToolPair
from ._errors import matched_errors, own_fields_changed, told

ID = "error-action-changed"
LEVEL = Level.BREAKING
SUMMARY = "A declared error changed its action (fix_arguments, retry_later, stop_and_tell_user, escalate)."
DIRECTION = Direction.CONTRACT
SCOPE = Scope.CONTRACT


def check(pair: ToolPair, context: Context) -> Iterator[Hit]:
    """The action is the part of the envelope models follow most directly; agent code and prompts
    written for the old action now do the wrong next step."""
    for name, _, old, index, new in matched_errors(pair):
        # what the runtime sends, retry policy applied (runtime.codes.retry_withheld)
        before, after = told(old, pair.old.contract)[1], told(new, pair.new.contract)[1]
        if before != after and own_fields_changed(old, new):
            yield Hit(f"error {name} action changed from {before} to {after}",
                      pointer=f"/errors/{name}/action", source=f"/errors/{index}")
