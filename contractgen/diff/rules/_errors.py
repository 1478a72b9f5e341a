"""Errors matched by class name across two versions, with their manifest pointers."""

from __future__ import annotations

from collections.abc import Iterator

from ...runtime.codes import retry_withheld
from ...runtime.contract import Contract, ErrorSpec
from ..structure import ToolPair


def indexed(errors: tuple[ErrorSpec, ...]) -> dict[str, tuple[int, ErrorSpec]]:
    return {e.class_name: (i, e) for i, e in enumerate(errors)}


def matched_errors(pair: ToolPair) -> Iterator[tuple[str, int, ErrorSpec, int, ErrorSpec]]:
    """(class name, old index, old spec, new index, new spec) for errors on both sides."""
    old, new = indexed(pair.old.contract.errors), indexed(pair.new.contract.errors)
    for name in sorted(set(old) & set(new)):
        yield (name, *old[name], *new[name])


def told(spec: ErrorSpec, contract: Contract) -> tuple[bool, str]:
    """(retryable, action) the runtime sends for ``spec`` under ``contract``'s retry policy: an error
    of a transient code the list leaves out that writes neither field is told not to retry."""
    if retry_withheld(spec.code, spec.retryable, spec.action, contract.retry.retryable_codes):
        return False, "stop_and_tell_user"
    return spec.effective_retryable, spec.effective_action


def own_fields_changed(old: ErrorSpec, new: ErrorSpec) -> bool:
    """Whether the error itself changed what decides its retry terms (else only the retry policy
    did, which is retry-retryable-codes-changed's)."""
    return (old.code, old.retryable, old.action) != (new.code, new.retryable, new.action)
