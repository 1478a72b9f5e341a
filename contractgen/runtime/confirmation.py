"""Preconditions and human confirmation: the rule compiled once per contract, the decision per call,
and the one way a host hands the guard a human's answer.

A confirmation is bound to one call: the tool, its version and the canonical text of the exact
arguments. The host records it with ``confirmed(tool, arguments)`` around the call; it lives in a
context variable the arguments cannot reach, so no argument (``confirmed: true``, an approval code)
can confirm a call. Each recorded answer is spent by the first call it matches.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import hashlib
import json
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from .contract import Contract
from .envelope import cap_text, error_envelope
from .visible import visible


class _Named(Protocol):
    """A guarded tool or its contract: what a confirmation is bound to."""

    @property
    def name(self) -> str: ...

    @property
    def version(self) -> str: ...


#: the answers the host holds for the calls made in this context: call key -> approved
_ANSWERS: contextvars.ContextVar[dict[str, bool] | None] = contextvars.ContextVar(
    "contractgen_confirmations", default=None
)
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_SUMMARY_CAP = 300


def call_key(tool: _Named, arguments: Any) -> str | None:
    """The call's identity: tool name, version and the arguments as canonical JSON (sorted keys),
    hashed. None for arguments that are not JSON (nothing can confirm such a call)."""
    try:
        text = json.dumps(
            [tool.name, tool.version, arguments],
            sort_keys=True,
            separators=(",", ":"),
            ensure_ascii=False,
            allow_nan=False,
        )
    except (TypeError, ValueError):
        return None
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


@contextlib.contextmanager
def confirmed(tool: _Named, arguments: Any, approved: bool = True) -> Iterator[None]:
    """Host side: the user's answer for exactly this call (``approved=False``: they declined).

    Calls of ``tool`` with these arguments made inside the block run (or answer
    CONFIRMATION_DENIED); the first such call spends the answer. ``tool`` is a ``GuardedTool`` or
    its ``Contract``.
    """
    key = call_key(tool, arguments)
    answers = dict(_ANSWERS.get() or {})
    if key is not None:
        answers[key] = approved
    token = _ANSWERS.set(answers)
    try:
        yield
    finally:
        _ANSWERS.reset(token)


def _answer(tool: _Named, arguments: Any) -> bool | None:
    answers = _ANSWERS.get()
    if not answers:
        return None
    key = call_key(tool, arguments)
    return None if key is None else answers.pop(key, None)


@dataclass(frozen=True)
class Gate:
    """A contract's preconditions and confirmation rule, compiled: call it with valid arguments for
    the envelope that stops the call, or None to let it run."""

    contract: Contract
    refusals: tuple[tuple[Callable[[Any], bool], str, str], ...]  # (holds, code, message)
    needs_confirmation: Callable[[Any], bool] | None
    resources: Any = None

    def asks(self, arguments: Any) -> bool:
        """Whether the guard would hold this call for a human's confirmation: the arguments are
        valid, no precondition refuses them and the rule's ``when`` holds. The adapters ask the
        framework's own approval step exactly then (a call judged wrongly here is still held)."""
        if self.needs_confirmation is None:
            return False
        try:
            valid = self._input_valid(arguments)
        except Exception:  # noqa: BLE001 - a schema the reference validator cannot read: the guard decides
            return False
        return valid and self.refusal(arguments) is None and self.needs_confirmation(arguments)

    @functools.cached_property
    def _input_valid(self) -> Callable[[Any], bool]:
        return _condition(self.contract.input_schema)

    def refusal(self, arguments: Any) -> dict[str, Any] | None:
        for holds, code, message in self.refusals:
            if holds(arguments):
                return error_envelope(self.contract, code, message)
        return None

    def summary(self, arguments: Any) -> str:
        """The confirmation summary with the call's arguments filled in and its secrets scrubbed."""
        rule = self.contract.confirmation
        if rule is None:
            return ""

        def filled(match: re.Match[str]) -> str:
            value = arguments.get(match.group(1)) if isinstance(arguments, Mapping) else None
            if value is None:
                return "(not given)"
            return (
                value
                if isinstance(value, str)
                else json.dumps(value, ensure_ascii=False, default=str)
            )

        from .scrub import secrets_sent  # only tools with a confirmation rule pay for it

        # read as a reader sees it before the secrets are looked for: a zero-width character inside
        # an argument that repeats a secret would hide it, then vanish (visible.py)
        text = visible(_PLACEHOLDER.sub(filled, " ".join(rule.summary.split())))
        scrub = secrets_sent(arguments, self.contract.input_schema, self.resources)
        return cap_text(scrub.text(text) if scrub else text, _SUMMARY_CAP)

    def __call__(self, arguments: Any) -> dict[str, Any] | None:
        refused = self.refusal(arguments)
        if (
            refused is not None
            or self.needs_confirmation is None
            or not self.needs_confirmation(arguments)
        ):
            return refused
        answer = _answer(self.contract, arguments)
        if answer is True:
            return None
        summary = self.summary(arguments)
        if answer is False:
            return error_envelope(
                self.contract,
                "CONFIRMATION_DENIED",
                f"The user declined: {summary}. It was not done; do not call again for "
                "this request, tell the user.",
                confirmation={"summary": summary},
            )
        return error_envelope(
            self.contract,
            "CONFIRMATION_REQUIRED",
            f"This call needs the user's confirmation before it runs: {summary}. Ask the "
            "user to confirm exactly this.",
            confirmation={"summary": summary},
        )


def compile_gate(contract: Contract, resources: Any = None) -> Gate | None:
    """The contract's gate, built once; None when it declares no precondition and no confirmation,
    so such tools pay nothing per call."""
    rule = contract.confirmation
    if not contract.preconditions and rule is None:
        return None
    refusals = tuple((_condition(p.when), p.code, p.message) for p in contract.preconditions)
    needs = None if rule is None else (_always if rule.when is None else _condition(rule.when))
    return Gate(contract, refusals, needs, resources)


def _always(arguments: Any) -> bool:
    return True


def _condition(schema: Mapping[str, Any]) -> Callable[[Any], bool]:
    """Whether a call matches ``schema``, judged as the guard judges the arguments (the same compiled
    checker, formats asserted). It runs after the arguments passed the input schema, so no integer
    too long for the fast backend reaches it."""
    from .schema_check import SchemaCheck

    return SchemaCheck(schema, formats=True).is_valid


__all__ = ["Gate", "call_key", "compile_gate", "confirmed"]
