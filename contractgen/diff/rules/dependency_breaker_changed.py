"""dependency-breaker-changed: the tool's upstream dependency or its circuit breaker changed."""

from __future__ import annotations

from collections.abc import Iterator

from ..model import Context, Direction, Hit, Level, Scope
from ..structure import ToolPair

ID = "dependency-breaker-changed"
LEVEL = Level.DANGEROUS
SUMMARY = "The tool's dependency or its circuit breaker thresholds changed."
DIRECTION = Direction.CONTRACT
SCOPE = Scope.CONTRACT


def check(pair: ToolPair, context: Context) -> Iterator[Hit]:
    """Tools naming one dependency share one breaker: a renamed dependency moves the tool to another
    breaker, and changed thresholds decide how soon every user gets UNAVAILABLE and for how long."""
    old, new = pair.old.contract.dependency, pair.new.contract.dependency
    if old is None and new is None:
        return
    if old is None or new is None or old.name != new.name:
        before = "none" if old is None else repr(old.name)
        after = "none" if new is None else repr(new.name)
        yield Hit(f"dependency changed from {before} to {after}",
                  pointer="/dependency/name", source="/dependency")
        return
    for field in ("failures", "window", "open_for"):
        before, after = getattr(old.breaker, field), getattr(new.breaker, field)
        if before != after:
            yield Hit(f"breaker {field} of {new.name!r} changed from {before:g} to {after:g}",
                      pointer=f"/dependency/breaker/{field}", source=f"/dependency/breaker/{field}")
