"""Version comparisons for the gates, by SemVer precedence (``manifest/semver.py``): what counts as
a version change (build metadata does not) and as a major bump."""

from __future__ import annotations

from ...ir import ToolVersion
from ...manifest.semver import SemVer
from ...manifest.semver import parse as parse_semver


def parse(text: str) -> SemVer | None:
    return parse_semver(text)


def is_major_bump(old: str, new: str) -> bool:
    """1.x -> 2.0 is major; below 1.0, a minor bump (0.3 -> 0.4) counts as major, as in semver."""
    a, b = parse(old), parse(new)
    if a is None or b is None:
        return False
    if b.major != a.major:
        return b.major > a.major
    return a.major == 0 and b.minor > a.minor


def content_key(tool: ToolVersion) -> str:
    """Everything a manifest says, as one comparable string (positions excluded)."""
    import dataclasses
    import json

    from ..witness import thaw

    contract = tool.contract
    return json.dumps(thaw(dataclasses.asdict(contract)), sort_keys=True, default=str)
