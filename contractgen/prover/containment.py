"""Does one schema accept every value another accepts? The proof's order, and its answer (``Proof``).

Order: identical text; equivalent rewrites (rewrite.py) then jsonschema-rs's schema algebra; our own
sound structural reasoning where the algebra says unknown; finally a witness search whose every value
is checked with python ``jsonschema`` (the value the inner schema accepts and the outer one rejects).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from typing import Any

from .budget import OverBudget, current_run, proof_step
from .formats import format_includes, unconfirmed_format_gap
from .instances import NOTHING, accepts, forget_validators, rejects, text_of
from .rewrite import equivalent, structurally_covers
from .witness import find_witness

#: jsonschema-rs must read ``format`` the way the witness check does (python jsonschema's FORMAT_CHECKER
#: asserts the formats it knows): the diff treats formats as assertions, as the input-format rules say.
ASSERT_FORMATS = True
#: canonical text longer than this skips the algebra: nested anyOf can take seconds there
ALGEBRA_SIZE_LIMIT = 20_000
_DRAFT_2020_12 = 20


class Verdict(str, Enum):
    COVERS = "covers"
    NOT_COVERS = "not-covers"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Proof:
    """The answer for (outer, inner); ``witness`` is accepted by inner and rejected by outer."""

    verdict: Verdict
    witness: Any = None
    reason: str = ""  # how it was decided, or why it could not be
    over_budget: bool = False  # undecided because its time ran out (budget.py): that is the reason to give

    @property
    def has_witness(self) -> bool:
        return self.verdict is Verdict.NOT_COVERS


def contains(outer: Any, inner: Any) -> Proof:
    """Whether ``outer`` accepts every value ``inner`` accepts (both plain JSON schemas)."""
    return _contains(text_of(outer), text_of(inner))


def _contains(outer_text: str, inner_text: str) -> Proof:
    if outer_text == inner_text:
        return Proof(Verdict.COVERS, reason="identical")
    global _gave_up_run
    if _gave_up_run != current_run():  # another run's give-ups: its budget is not this one's
        _GAVE_UP.clear()
        _gave_up_run = current_run()
    key = (outer_text, inner_text)
    if key in _GAVE_UP:
        return _GAVE_UP[key]
    try:
        with proof_step():
            return _proved(outer_text, inner_text)
    except OverBudget as over:
        if len(_GAVE_UP) >= 1024:
            _GAVE_UP.clear()
        _GAVE_UP[key] = Proof(Verdict.UNKNOWN, reason=f"could not decide: {over.reason}", over_budget=True)
        return _GAVE_UP[key]


#: proofs that ran out of time in the run in progress (``_gave_up_run``), so asking again there does
#: not spend its budget again; a later run (another diff, a check in the same process) tries afresh
_GAVE_UP: dict[tuple[str, str], Proof] = {}
_gave_up_run = -1


@lru_cache(maxsize=8192)
def _proved(outer_text: str, inner_text: str) -> Proof:
    outer_plain, inner_plain = json.loads(outer_text), json.loads(inner_text)
    outer_rw, inner_rw = equivalent(outer_plain), equivalent(inner_plain)
    if text_of(outer_rw) == text_of(inner_rw):
        return Proof(Verdict.COVERS, reason="equivalent after rewriting")
    answer, diff = _algebra(text_of(outer_rw), text_of(inner_rw))
    if answer == "yes":
        return Proof(Verdict.COVERS, reason="schema algebra")
    if answer != "no" and structurally_covers(outer_rw, inner_rw):
        return Proof(Verdict.COVERS, reason="every constraint of the outer schema holds in the inner one")
    hints = [diff] if isinstance(diff, dict) else []
    witness = find_witness(inner_plain, outer_plain, hints)
    if witness is not NOTHING and accepts(inner_plain, witness) and rejects(outer_plain, witness):
        return Proof(Verdict.NOT_COVERS, witness=witness, reason="witness checked with jsonschema")
    unshown = _format_gap(outer_plain, inner_plain)
    if unshown is not None:
        return Proof(Verdict.UNKNOWN, reason=unshown)
    if answer == "no":
        return Proof(Verdict.UNKNOWN, reason="the schema algebra finds values the new schema rejects, "
                                             "but no concrete value could be built and checked")
    return Proof(Verdict.UNKNOWN, reason=answer)


def _format_gap(outer: Any, inner: Any) -> str | None:
    """Why a format that by definition admits more (idn-email over email) shows no checked value."""
    if not isinstance(outer, dict) or not isinstance(inner, dict):
        return None
    narrower, wider = outer.get("format"), inner.get("format")
    if not isinstance(narrower, str) or not isinstance(wider, str) or not format_includes(wider, narrower):
        return None
    return unconfirmed_format_gap(narrower, wider)


@lru_cache(maxsize=4096)
def _canonical(text: str) -> Any:
    import jsonschema_rs

    return jsonschema_rs.canonicalize(json.loads(text), draft=_DRAFT_2020_12, validate_formats=ASSERT_FORMATS)


def _algebra(outer_text: str, inner_text: str) -> tuple[str, Any]:
    """("yes"|"no", diff schema) from jsonschema-rs, or (why it could not decide, None)."""
    if len(outer_text) + len(inner_text) > ALGEBRA_SIZE_LIMIT:
        return "the schemas are too large for the schema algebra", None
    try:
        import jsonschema_rs

        outer, inner = _canonical(outer_text), _canonical(inner_text)
        if inner.satisfiability() == jsonschema_rs.canonical.Satisfiability.NO:
            return "yes", None  # the inner schema admits nothing, so nothing can be lost
        answer = outer.covers(inner)
        if answer == jsonschema_rs.canonical.Containment.YES:
            return "yes", None
        diff = inner.subtract(outer).to_json_schema()
        diff.pop("$schema", None)
        if answer == jsonschema_rs.canonical.Containment.NO:
            return "no", diff
        return "the schema algebra could not decide", diff
    except ImportError:
        return "jsonschema-rs (a dependency) is not importable", None
    except Exception as exc:  # noqa: BLE001 - RAW operands raise; the algebra is one prover among several
        return f"the schema algebra could not decide ({type(exc).__name__})", None


def clear_caches() -> None:
    """Forget every proof, canonical schema and validator (for benchmarks that measure a cold run, and
    tests that change how formats are read)."""
    forget_validators()
    _proved.cache_clear()
    _GAVE_UP.clear()
    _canonical.cache_clear()
