"""major-bump-required: breaking changes shipped without a major version bump."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..model import Context, Direction, Finding, Hit, Level, Scope
from ..structure import ToolPair
from ._versions import breaking_allowance, parse

ID = "major-bump-required"
LEVEL = Level.BREAKING
SUMMARY = "Breaking changes need a major version bump."
DIRECTION = Direction.CONTRACT
SCOPE = Scope.GATE


def check(pair: ToolPair, findings: Sequence[Finding], context: Context) -> Iterator[Hit]:
    """Semantic versioning promises that a minor or patch release keeps every existing call working;
    clients pin majors (and generated code checks them). A breaking change under the same major breaks
    that promise: bump the major version and add a migration. A change from a pre-release breaks none
    (``breaking_allowance``): 2.0.0-rc.1 -> 2.0.0 may still change its shape."""
    breaking = sorted({f.rule for f in findings if f.level is Level.BREAKING and f.ignored_by is None})
    old, new = parse(pair.old.version), parse(pair.new.version)
    if not breaking or old is None or new is None or new < old \
            or breaking_allowance(pair.old.version, pair.new.version) is not None:
        return
    expected = f"{old.major + 1}.0.0" if old.major > 0 else f"0.{old.minor + 1}.0"
    yield Hit(f"breaking changes ({', '.join(breaking)}) need a major version bump "
              f"(expected {expected} or later, got {pair.old.version} -> {pair.new.version})",
              pointer="/version", source="/version")
