"""retry-retryable-codes-changed: a transient code left or joined ``retry.retryable_codes``."""

from __future__ import annotations

from collections.abc import Iterator

from ...runtime.codes import TRANSIENT_CODES
from ...runtime.contract import Contract
from ..model import Context, Direction, Hit, Level, Scope
from ..structure import ToolPair
from ._errors import matched_errors, own_fields_changed

ID = "retry-retryable-codes-changed"
LEVEL = Level.BREAKING
SUMMARY = "A transient code left or joined retry.retryable_codes, flipping whether callers are told to retry it."
DIRECTION = Direction.CONTRACT
SCOPE = Scope.CONTRACT


def check(pair: ToolPair, context: Context) -> Iterator[Hit]:
    """For RATE_LIMITED, UNAVAILABLE and TIMEOUT the list decides what the runtime sends: an error
    of a listed code that writes neither retryable nor action says retryable: true, retry_later; one
    the list leaves out says retryable: false, stop_and_tell_user, and so do the runtime's own
    UNAVAILABLE (overloaded) and TIMEOUT (its deadline). Dropping a code makes callers give up on
    calls that would succeed after a wait; adding one invites repeated calls the tool did not expect.
    An error that writes retryable itself keeps it: where only such errors carry the code, the
    envelope does not change, but the published retry policy and the error now disagree (WARN)."""
    old, new = pair.old.contract, pair.new.contract
    old_listed, new_listed = frozenset(old.retry.retryable_codes), frozenset(new.retry.retryable_codes)
    for code in sorted((old_listed ^ new_listed) & TRANSIENT_CODES):
        yield _hit(pair, code, dropped=code in old_listed)


def _hit(pair: ToolPair, code: str, dropped: bool) -> Hit:
    """One code's change: ERR when an envelope callers get flips, WARN when only the policy moved."""
    new = pair.new.contract
    following, writing = _errors_of(pair, code)
    flipped = [f"error {name}" for name in following] + _runtime_sources(new, code)
    verb = "dropped from" if dropped else "added to"
    head = f"{code} {verb} retry.retryable_codes"
    pointer = f"/retry/retryable_codes/{code}"
    source = "/retry/retryable_codes" if "/retry/retryable_codes" in pair.new.positions else "/retry"
    if flipped:
        told = ("not to retry it (retryable: false, action stop_and_tell_user)" if dropped
                else "to retry it (retryable: true, action retry_later)")
        harm = ("callers that waited and called again now give up on calls that would succeed" if dropped
                else "callers that stopped now call again, repeating calls the tool did not expect twice")
        fix = f"keep {code} listed" if dropped else f"leave {code} out"
        return Hit(f"{head}: the runtime now tells callers {told} for {_join(flipped)}; {harm} "
                   f"(hint: {fix}, or bump the major version)", pointer=pointer, source=source, side="new")
    if writing:
        says = "true" if dropped else "false"
        return Hit(f"{head}, but {_join([f'error {n}' for n in writing])} still write{'s' if len(writing) == 1 else ''} "
                   f"retryable: {says}, so what callers are told does not change; the published retry policy "
                   f"and the error now disagree (hint: make them agree: "
                   f"{'keep the code listed, or set retryable: false' if dropped else 'drop the code, or set retryable: true'})",
                   pointer=pointer, source=source, side="new", level=Level.DANGEROUS)
    return Hit(f"{head}: no declared error carries {code} and the runtime never sends it itself; only an error "
               "the implementation raises without declaring it is told otherwise", pointer=pointer, source=source,
               side="new", level=Level.DANGEROUS)


def _errors_of(pair: ToolPair, code: str) -> tuple[list[str], list[str]]:
    """Errors of ``code`` on both sides: (those that follow the list, those that write retryable or
    action themselves). An error whose own fields changed is error-retryable-changed's."""
    following, writing = [], []
    for name, _, old, _, new in matched_errors(pair):
        if new.code != code or own_fields_changed(old, new):
            continue
        if new.retryable is None and new.action is None:  # nothing written: the list decides
            following.append(name)
        else:
            writing.append(name)
    return following, writing


def _runtime_sources(contract: Contract, code: str) -> list[str]:
    """The envelopes of ``code`` the runtime sends on its own (guard.py: ``_busy_envelope``, ``_timeout_envelope``)."""
    if code == "UNAVAILABLE":
        return ["the runtime's own UNAVAILABLE when the tool is overloaded"]
    if code == "TIMEOUT" and contract.timeout.seconds is not None:
        return [f"the runtime's own TIMEOUT at the {contract.timeout.seconds:g} second deadline"]
    return []


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
