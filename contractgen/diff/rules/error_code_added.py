"""error-code-added: the tool can now return an error code it never returned."""

from __future__ import annotations

from collections.abc import Iterator

from ..model import Context, Direction, Hit, Level, Scope
from ..structure import ToolPair

ID = "error-code-added"
LEVEL = Level.DANGEROUS
SUMMARY = "The tool declares an error code it did not return before."
DIRECTION = Direction.CONTRACT
SCOPE = Scope.CONTRACT


def check(pair: ToolPair, context: Context) -> Iterator[Hit]:
    """Consumers that handle the tool's declared codes exhaustively (generated except clauses, agent
    instructions listing what can go wrong) meet a code they have no branch for."""
    old_codes = {e.code for e in pair.old.contract.errors}
    for index, error in enumerate(pair.new.contract.errors):
        if error.code in old_codes:
            continue
        old_codes.add(error.code)
        yield Hit(f"new error code {error.code} (class {error.class_name})", pointer=f"/errors/{error.class_name}",
                  source=f"/errors/{index}/code", side="new")
