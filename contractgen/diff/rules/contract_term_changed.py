"""contract-term-changed: a term of the call contract that no other rule covers changed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from ...runtime.codes import TRANSIENT_CODES
from ..model import Context, Direction, Hit, Level, Scope
from ..structure import ToolPair
from ._errors import matched_errors

ID = "contract-term-changed"
LEVEL = Level.DANGEROUS
SUMMARY = "A call term no rule covers changed (retryable codes, backoff, empty results, long-running, user-supplied, sunset...)."
DIRECTION = Direction.CONTRACT
SCOPE = Scope.CONTRACT


def _show(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, tuple):
        return "[" + ", ".join(map(str, value)) + "]"
    return json.dumps(value, default=lambda v: getattr(v, "__dict__", str(v)), sort_keys=True)


def check(pair: ToolPair, context: Context) -> Iterator[Hit]:
    """Callers act on these terms, not only on the schemas: which failures the model retries and how
    long it waits, whether an error carries what was found before it, what an empty result means,
    whether calls are refused when shared state is down, and how long the version lives. A change to
    any of them reached no rule and the diff said 'No changes found'; it is named here so that it
    is reviewed (raise its level in [tool.contractgen.diff.levels] to gate on it)."""
    old, new = pair.old.contract, pair.new.contract
    terms: list[tuple[str, Any, Any]] = [
        # transient codes (which the list turns on and off) are retry-retryable-codes-changed's
        ("/retry/retryable_codes", _inert(old.retry.retryable_codes), _inert(new.retry.retryable_codes)),
        ("/retry/backoff", old.retry.backoff, new.retry.backoff),
        ("/partial_results", old.partial_results, new.partial_results),
        ("/empty_result", old.empty_result, new.empty_result),
        ("/state_unreachable", old.state_unreachable, new.state_unreachable),
        # a client that started MCP Tasks gets direct answers within the deadline, or the reverse
        ("/timeout/long_running", old.timeout.long_running, new.timeout.long_running),
        # an argument only the user could give (answered ask_user when missing) that the model may
        # now fill in itself, or the reverse
        ("/user_supplied", tuple(sorted(old.user_supplied)), tuple(sorted(new.user_supplied))),
    ]
    if old.deprecation is not None:  # a first deprecation is tool-deprecated's
        terms.append(("/deprecated/sunset", old.deprecation.sunset, new.deprecation and new.deprecation.sunset))
    for pointer, before, after in terms:
        if before != after:
            yield Hit(f"{pointer[1:].replace('/', '.')} changed from {_show(before)} to {_show(after)}",
                      pointer=pointer, source=_written(pair, pointer))
    for name, old_index, old_error, new_index, new_error in matched_errors(pair):
        for key in ("retry_after", "field"):
            before, after = getattr(old_error, key), getattr(new_error, key)
            if before != after and before is not None and after is not None:
                yield Hit(f"error {name}'s {key} changed from {_show(before)} to {_show(after)}",
                          pointer=f"/errors/{name}/{key}", source=f"/errors/{new_index}/{key}")


def _inert(codes: tuple[str, ...]) -> tuple[str, ...]:
    """The listed codes the runtime never retries by default: listing them only changes the description."""
    return tuple(sorted(c for c in codes if c not in TRANSIENT_CODES))


def _written(pair: ToolPair, pointer: str) -> str | None:
    """The manifest pointer of ``pointer`` when the new manifest writes it (else the tool's own line)."""
    positions = getattr(pair.new, "positions", None) or {}
    probe = pointer
    while probe:
        if probe in positions:
            return probe
        probe = probe.rsplit("/", 1)[0]
    return None
