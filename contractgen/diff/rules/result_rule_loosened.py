"""result-rule-loosened: a result rule accepts more: a longer max age or skew, a weaker algorithm."""

from __future__ import annotations

from collections.abc import Iterator

from ...runtime.contract import FreshnessRule, IntegrityRule
from ...runtime.pointer import escape_token
from ..model import Context, Direction, Hit, Level, Scope
from ..structure import ToolPair
from ._result_rules import STRENGTH, freshness_witness, integrity_witness, kind, paired, show_age

ID = "result-rule-loosened"
LEVEL = Level.BREAKING
SUMMARY = "A result rule was loosened: max age or skew raised, hash algorithm weakened or hash target changed."
DIRECTION = Direction.CONTRACT
SCOPE = Scope.CONTRACT


def check(pair: ToolPair, context: Context) -> Iterator[Hit]:
    """A caller that relied on the old rule now gets results it refused: passages older than the age
    it planned for, timestamps further in the future, or hashes that a weaker algorithm (or another
    field) produced, so a hash no longer proves what it proved."""
    for _, old, new in paired(pair.old.contract, pair.new.contract):
        if new is None:
            continue  # result-rule-removed's
        base, source = (
            f"/result_rules/{kind(old)}/{escape_token(old.field)}",
            f"/result_rules/{_index(pair, new)}",
        )
        if isinstance(old, FreshnessRule) and isinstance(new, FreshnessRule):
            if old.max_age is not None and (new.max_age is None or new.max_age > old.max_age):
                between = (
                    2 * old.max_age if new.max_age is None else (old.max_age + new.max_age) / 2
                )
                yield Hit(
                    f"freshness rule on {old.field}: max age raised from {show_age(old.max_age)} to "
                    f"{show_age(new.max_age)}",
                    pointer=f"{base}/max_age",
                    source=f"{source}/max_age",
                    witness=freshness_witness(old, between),
                )
            if new.skew > old.skew:
                yield Hit(
                    f"freshness rule on {old.field}: skew raised from {show_age(old.skew)} to "
                    f"{show_age(new.skew)}",
                    pointer=f"{base}/skew",
                    source=f"{source}/skew",
                    witness=freshness_witness(old, -(old.skew + new.skew) / 2),
                )
        elif isinstance(old, IntegrityRule) and isinstance(new, IntegrityRule):
            if STRENGTH[new.algorithm] < STRENGTH[old.algorithm]:
                yield Hit(
                    f"integrity rule on {old.field}: algorithm weakened from {old.algorithm} to "
                    f"{new.algorithm}",
                    pointer=f"{base}/algorithm",
                    source=f"{source}/algorithm",
                    witness=integrity_witness(old, new),
                )
            if new.hash_of != old.hash_of:
                yield Hit(
                    f"integrity rule on {old.field}: now the hash of {new.hash_of or 'the whole result'} "
                    f"instead of {old.hash_of or 'the whole result'}",
                    pointer=f"{base}/hash_of",
                    source=f"{source}/hash_of",
                    witness=integrity_witness(old, new),
                )


def _index(pair: ToolPair, rule: object) -> int:
    return next(i for i, r in enumerate(pair.new.contract.result_rules) if r is rule)
