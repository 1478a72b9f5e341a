"""Version comparisons for the gates, by SemVer precedence (``manifest/semver.py``): what counts as
a version change (build metadata does not) and as a major bump."""

from __future__ import annotations

from ...ir import ToolVersion
from ...manifest.semver import parse

__all__ = ["breaking_allowance", "content_key", "is_major_bump", "parse"]


def is_major_bump(old: str, new: str) -> bool:
    """1.x -> 2.0 is major; below 1.0, a minor bump (0.3 -> 0.4) counts as major, as in semver."""
    a, b = parse(old), parse(new)
    if a is None or b is None:
        return False
    if b.major != a.major:
        return b.major > a.major
    return a.major == 0 and b.minor > a.minor


def breaking_allowance(old: str, new: str) -> str | None:
    """Why breaking changes from ``old`` to a later ``new`` break no promise, or None when they do:
    a major bump, or an ``old`` that is a pre-release (SemVer 2.0, section 9: a pre-release "might
    not satisfy the intended compatibility requirements", so nobody was promised its shape)."""
    if is_major_bump(old, new):
        return f"major version bump {old} -> {new}"
    a, b = parse(old), parse(new)
    if a is not None and b is not None and not a.release and b > a:
        return f"{old} is a pre-release, which promises no compatibility ({old} -> {new})"
    return None


def content_key(tool: ToolVersion) -> str:
    """Everything a manifest says, as one comparable string (positions excluded)."""
    import dataclasses
    import json

    from ...runtime.jsonvalue import thaw

    contract = tool.contract
    if contract.deprecation is not None and contract.deprecation.migration:
        # steps read from the replacement's manifest (manifest/deprecation_steps.py): not this one's
        contract = dataclasses.replace(
            contract, deprecation=dataclasses.replace(contract.deprecation, migration=())
        )
    return json.dumps(thaw(dataclasses.asdict(contract)), sort_keys=True, default=str)
