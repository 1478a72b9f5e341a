"""error-code-changed: an error class now carries a different code."""

from __future__ import annotations

from collections.abc import Iterator

from ..model import Context, Direction, Hit, Level, Scope
from ..structure import ToolPair
from ._errors import matched_errors

ID = "error-code-changed"
LEVEL = Level.BREAKING
SUMMARY = "A declared error changed its code."
DIRECTION = Direction.CONTRACT
SCOPE = Scope.CONTRACT


def check(pair: ToolPair, context: Context) -> Iterator[Hit]:
    """Handlers branch on the code (and on its category and default action); the same failure now
    arrives under another code and takes the wrong branch."""
    for name, _, old, index, new in matched_errors(pair):
        if old.code != new.code:
            yield Hit(f"error {name} changed code from {old.code} to {new.code}", pointer=f"/errors/{name}/code",
                      source=f"/errors/{index}/code")
