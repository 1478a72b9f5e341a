"""VERSION_MISMATCH: calls shaped like another version of the contract, and the steps to migrate.

Two signals: a caller-declared ``contract_version`` that is not compatible (another major, or a
newer minor than this tool), and argument names that ``migrations`` record as renamed or removed.
Either gives the exact steps ("rename 'date' to 'start_date'"), never a generic INVALID_ARGUMENT.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from .contract import Contract, Migration
from .errors import VersionMismatchError
from .pointer import pointer

STEP_CAP = 200


def migration_steps(migration: Migration) -> list[str]:
    steps = [f"rename '{old}' to '{new}'" for old, new in migration.renamed]
    steps += [f"remove '{old}': {hint}" if hint else f"remove '{old}'" for old, hint in migration.removed]
    steps += [f"'{name}' changed meaning: {how}" for name, how in migration.changed]
    if migration.notes:
        steps.append(f"note: {migration.notes}")
    return [s if len(s) <= STEP_CAP else s[: STEP_CAP - 1] + "…" for s in steps]


@lru_cache(maxsize=256)
def _parse(version: str) -> Any:
    from packaging.version import InvalidVersion, Version

    if len(version) > 64:  # no real version is that long (and a huge number cannot be parsed)
        return None
    try:
        return Version(version)
    except (InvalidVersion, ValueError):
        return None


@lru_cache(maxsize=256)
def _in_range(version: str, specifier: str) -> bool:
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    parsed = _parse(version)
    try:
        return parsed is not None and SpecifierSet(specifier).contains(parsed, prereleases=True)
    except InvalidSpecifier:
        return False


class VersionCheck:
    """Precomputed per contract, so the happy path costs one set-disjointness test."""

    def __init__(self, contract: Contract) -> None:
        self.contract = contract
        props = contract.input_schema.get("properties") if isinstance(contract.input_schema, Mapping) else None
        current = set(props or ())
        self.old_keys: dict[str, Migration] = {}
        for migration in contract.migrations:
            for old, _ in (*migration.renamed, *migration.removed):
                if old not in current:
                    self.old_keys.setdefault(old, migration)
        self.old_key_set = frozenset(self.old_keys)

    def check(self, arguments: Any, declared: str | None) -> VersionMismatchError | None:
        if declared is not None:
            # the caller's object: a str subclass is read as its base (its own __str__ may raise),
            # anything else is named by its type, never converted
            problem = self._declared(str.__str__(declared) if isinstance(declared, str)
                                     else f"<a {type(declared).__name__}>")
            if problem is not None:
                return problem
        if self.old_key_set and isinstance(arguments, Mapping) and not self.old_key_set.isdisjoint(arguments):
            return self._shaped_like_old(arguments, declared)
        return None

    def _declared(self, declared: str) -> VersionMismatchError | None:
        contract = self.contract
        mine, theirs = _parse(contract.version), _parse(declared)
        if theirs is None:
            return VersionMismatchError(
                f"contract_version '{declared[:40]}' is not a version number; {contract.name} is "
                f"version {contract.version}. Send arguments shaped for {contract.version}.",
                expected_version=contract.version, received_version=declared[:40])
        if mine is None or (theirs.major == mine.major and theirs.minor <= mine.minor):
            return None
        if theirs.major == mine.major or theirs > mine:
            return VersionMismatchError(
                f"This call expects {contract.name} {declared}, but the tool here is the older "
                f"version {contract.version}. Use only what {contract.version} offers, or tell the "
                "user the tool must be upgraded.",
                expected_version=contract.version, received_version=declared)
        steps = [s for m in contract.migrations if _in_range(declared, m.from_versions)
                 for s in migration_steps(m)]
        return self._error(declared, steps, field=None)

    def _shaped_like_old(self, arguments: Mapping[str, Any], declared: str | None) -> VersionMismatchError:
        hits = [key for key in arguments if key in self.old_key_set]
        migrations: list[Migration] = []
        for key in hits:
            if self.old_keys[key] not in migrations:
                migrations.append(self.old_keys[key])
        steps = [s for m in migrations for s in migration_steps(m)]
        received = declared or " or ".join(m.from_versions for m in migrations)
        return self._error(received, steps, field=pointer([hits[0]]))

    def _error(self, received: str, steps: list[str], field: str | None) -> VersionMismatchError:
        contract = self.contract
        head = (f"This call is shaped like {contract.name} {received}, but the tool is version "
                f"{contract.version}.")
        if steps:
            body = (f" Apply the {len(steps)} step{'s' if len(steps) > 1 else ''} in 'migration': "
                    + "; ".join(step.rstrip(".") for step in steps) + ".")
        else:
            body = f" Send arguments shaped for version {contract.version} (see the tool's schema)."
        return VersionMismatchError(head + body, expected_version=contract.version,
                                    received_version=received, migration=steps, field=field)
