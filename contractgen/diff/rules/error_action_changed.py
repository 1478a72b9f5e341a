"""error-action-changed: an error now tells the model to do something else."""

from __future__ import annotations

from collections.abc import Iterator

from ..model import Context, Direction, Hit, Level, Scope
from ..structure import ToolPair
from ._errors import matched_errors

ID = "error-action-changed"
LEVEL = Level.BREAKING
SUMMARY = "A declared error changed its action (fix_arguments, retry_later, stop_and_tell_user, escalate)."
DIRECTION = Direction.CONTRACT
SCOPE = Scope.CONTRACT


def check(pair: ToolPair, context: Context) -> Iterator[Hit]:
    """The action is the part of the envelope models follow most directly; agent code and prompts
    written for the old action now do the wrong next step."""
    for name, _, old, index, new in matched_errors(pair):
        if old.effective_action != new.effective_action:
            yield Hit(f"error {name} action changed from {old.effective_action} to {new.effective_action}",
                      pointer=f"/errors/{name}/action", source=f"/errors/{index}")
