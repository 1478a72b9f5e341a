"""output-keyword-changed: an output keyword no specific rule covers changed."""

from __future__ import annotations

from collections.abc import Iterator

from ...prover import Verdict
from ..coverage import unhandled
from ..model import Context, Direction, Hit, Level, Scope
from ..reading import prove
from ..structure import SchemaPair

ID = "output-keyword-changed"
LEVEL = Level.DANGEROUS
SUMMARY = "An output keyword no rule understands changed and no verdict was reached: review it."
DIRECTION = Direction.OUTPUT
SCOPE = Scope.SCHEMA
BACKSTOP = True


def check(pair: SchemaPair, context: Context) -> Iterator[Hit]:
    """Outputs break consumers when they widen. The semantic check could neither prove the new output
    schema stays within the old one nor find a value only the new one admits (that would be
    output-schema-widened). Review it, then acknowledge the finding by fingerprint."""
    keywords = unhandled(pair)
    if not keywords or context.is_covered(pair.pointer):
        return
    proof, _ = prove(pair, context.strict)
    if proof.verdict is Verdict.UNKNOWN:
        yield Hit(f"changed {', '.join(keywords)}: could not prove: {proof.reason}")
