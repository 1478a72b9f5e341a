"""migration-missing: a major bump removes or renames input parameters without saying how to migrate."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from ...runtime.pointer import escape_token
from ..model import Context, Direction, Finding, Hit, Level, Scope
from ..structure import ToolPair
from ._versions import is_major_bump

ID = "migration-missing"
LEVEL = Level.BREAKING
SUMMARY = "A major bump removes or renames input parameters without a migrations entry covering them."
DIRECTION = Direction.CONTRACT
SCOPE = Scope.GATE


def check(pair: ToolPair, findings: Sequence[Finding], context: Context) -> Iterator[Hit]:
    """A caller (or a model) holding arguments for the old version needs to know where each vanished
    parameter went; the migration entry becomes the VERSION_MISMATCH hint and the upgrade guide. Add
    a migrations entry whose 'from' covers the old version, listing the parameter under renamed or
    removed."""
    if not is_major_bump(pair.old.version, pair.new.version):
        return
    try:  # a migration's `from` is a PEP 440 range: read the old version as PEP 440 does
        old_version: Version | None = Version(pair.old.version)
    except InvalidVersion:
        old_version = None
    old_names = set(pair.old.contract.input_schema.get("properties", {}))
    new_names = set(pair.new.contract.input_schema.get("properties", {}))
    # a name the new version still requires is still sent: only its declaration went away
    still_required = set(pair.new.contract.input_schema.get("required", []) or [])
    gone = sorted(old_names - new_names - still_required)
    if not gone:
        return
    covered: set[str] = set()
    for migration in pair.new.contract.migrations:
        try:
            applies = old_version is not None and SpecifierSet(migration.from_versions).contains(
                old_version, prereleases=True)
        except InvalidSpecifier:
            applies = False
        if applies:
            covered.update(name for name, _ in migration.renamed)
            covered.update(name for name, _ in migration.removed)
    source = "/migrations" if pair.new.contract.migrations else "/version"
    for name in gone:
        if name in covered:
            continue
        yield Hit(f"input parameter '{name}' was removed or renamed in {pair.new.version} but no migrations "
                  f"entry covering {pair.old.version} lists it under renamed or removed",
                  pointer=f"/input/properties/{escape_token(name)}", source=source, side="new")
