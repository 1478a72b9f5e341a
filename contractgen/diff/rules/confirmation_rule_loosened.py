"""confirmation-rule-loosened: the proof found a call that needed confirmation and now does not."""

from __future__ import annotations

import json
from collections.abc import Iterator

from ...prover import Verdict, contains
from ..model import Context, Direction, Hit, Level, Scope
from ..structure import ToolPair

ID = "confirmation-rule-loosened"
LEVEL = Level.BREAKING
SUMMARY = "The confirmation rule's `when` accepts fewer calls: some that needed a human's confirmation now run without."
DIRECTION = Direction.CONTRACT
SCOPE = Scope.CONTRACT


def check(pair: ToolPair, context: Context) -> Iterator[Hit]:
    """A narrower `when` (a higher threshold, a removed environment, `always` turned into a condition)
    lets calls through that a human had to approve before. Which calls is a question about schemas,
    so the containment prover answers it: a valid call the old rule held and the new one lets run is
    the witness, checked with jsonschema."""
    old, new = pair.old.contract.confirmation, pair.new.contract.confirmation
    if old is None or new is None or new.when is None:
        return
    held_before = (
        pair.new.contract.input_schema
        if old.when is None
        else {"allOf": [pair.new.contract.input_schema, old.when]}
    )
    proof = contains(new.when, held_before)
    if proof.verdict is Verdict.NOT_COVERS:
        call = json.dumps(proof.witness, sort_keys=True, ensure_ascii=False)
        yield Hit(
            f"confirmation loosened: the call {call} needed a human's confirmation and now runs without",
            pointer="/confirmation/when",
            source="/confirmation/when",
            side="new",
        )
    elif proof.verdict is Verdict.UNKNOWN:
        yield Hit(
            f"confirmation `when` changed and the proof could not show it holds every call it held "
            f"before ({proof.reason})",
            pointer="/confirmation/when",
            source="/confirmation/when",
            side="new",
            level=Level.DANGEROUS,
        )
