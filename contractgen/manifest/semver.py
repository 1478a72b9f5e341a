"""SemVer 2.0 precedence of contract versions: the one order every version comparison uses.

Build metadata (``+build.7``) does not count (1.0.0 and 1.0.0+build.7 are the same version), a
pre-release sorts below its release, and pre-release identifiers compare numerically or in ASCII
order (SemVer 2.0, section 11). ``packaging`` reads versions by PEP 440, which disagrees on build
metadata (a local version, ordered above 1.0.0), on ``1.0.0-1`` (a post-release) and on tags such as
``rc10`` and ``rc2``; it stays the reader of migration ranges only, and ``pep440_disagreement`` says
which versions the two would order differently so that ``check`` can refuse them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_SEMVER = re.compile(
    r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?", re.ASCII)
#: the pre-release tags whose order PEP 440 reads the same way: alpha.N < beta.N < rc.N
_AGREED_PRE = re.compile(r"(alpha|beta|rc)(?:\.(0|[1-9]\d*))?", re.ASCII)


@dataclass(frozen=True, order=True)
class SemVer:
    """A parsed version; compares (and hashes) by precedence only, so build metadata never counts."""

    major: int
    minor: int
    patch: int
    release: bool  # a release sorts above each of its pre-releases
    #: the pre-release identifiers: numeric ones (0, n, "") below alphanumeric ones (1, 0, text); of
    #: two lists equal as far as the shorter goes, the longer sorts above
    identifiers: tuple[tuple[int, int, str], ...] = field(default=(), repr=False)
    pre: str = field(default="", compare=False)
    build: str = field(default="", compare=False)

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}.{self.patch}" + (f"-{self.pre}" if self.pre else "") + \
            (f"+{self.build}" if self.build else "")


def parse(text: str) -> SemVer | None:
    """The version ``text`` spells, or None when it is not a SemVer 2.0 version (leading zeros refused)."""
    if not isinstance(text, str) or len(text) > 256:
        return None
    match = _SEMVER.fullmatch(text)
    if match is None:
        return None
    major, minor, patch, pre, build = match.groups()
    identifiers = tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in pre.split(".")) if pre else ()
    return SemVer(int(major), int(minor), int(patch), not pre, identifiers, pre or "", build or "")


def same_version(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` have equal precedence (they may differ in build metadata only)."""
    left, right = parse(a), parse(b)
    return left is not None and left == right


def sort_key(text: str) -> tuple[int, object]:
    """Orders SemVer versions by precedence, anything else after them by its text."""
    version = parse(text)
    return (0, version) if version is not None else (1, text)


def pep440_disagreement(text: str) -> str | None:
    """Why PEP 440 (migration ranges, ``packaging``) would order this SemVer version unlike SemVer, or
    None when they agree: a pre-release must be ``alpha``, ``beta`` or ``rc``, optionally ``.N``
    (``1.0.0-1`` is a post-release to PEP 440, ``dev`` sorts below ``alpha`` there, ``rc10`` below
    ``rc2`` in SemVer, ``c`` and ``pre`` mean ``rc``)."""
    version = parse(text)
    if version is None or not version.pre or _AGREED_PRE.fullmatch(version.pre):
        return None
    return (f"the pre-release '-{version.pre}' is ordered differently by SemVer and by PEP 440 "
            "(migration ranges)")
