"""input-keyword-changed: an input keyword no specific rule covers changed, and no verdict was reached."""

from __future__ import annotations

from collections.abc import Iterator

from ...prover import Verdict
from ..coverage import unhandled
from ..model import Context, Direction, Hit, Level, Scope
from ..reading import prove
from ..structure import SchemaPair

ID = "input-keyword-changed"
LEVEL = Level.DANGEROUS
SUMMARY = "An input keyword no rule understands changed (e.g. not, if/then, multipleOf): review it."
DIRECTION = Direction.INPUT
SCOPE = Scope.SCHEMA
BACKSTOP = True


def check(pair: SchemaPair, context: Context) -> Iterator[Hit]:
    """No specific rule reads this keyword and the semantic check could neither prove the new schema
    accepts every old value nor find one it rejects. A human has to decide; acknowledge the finding
    by fingerprint once reviewed."""
    keywords = unhandled(pair)
    if not keywords or context.is_covered(pair.pointer):
        return
    proof, _ = prove(pair, context.strict)
    if proof.verdict is Verdict.UNKNOWN:
        yield Hit(f"changed {', '.join(keywords)}: could not prove: {proof.reason}")
