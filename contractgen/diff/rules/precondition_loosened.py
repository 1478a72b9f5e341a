"""precondition-loosened: the proof found a call a precondition refused that now runs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from ...prover import Verdict, contains
from ..model import Context, Direction, Hit, Level, Scope
from ..structure import ToolPair

ID = "precondition-loosened"
LEVEL = Level.BREAKING
SUMMARY = "A precondition is gone or accepts fewer calls: some calls the tool refused before it runs now."
DIRECTION = Direction.CONTRACT
SCOPE = Scope.CONTRACT


def check(pair: ToolPair, context: Context) -> Iterator[Hit]:
    """A precondition is a business rule the guard enforces before the tool runs (refunds above a
    limit go to the finance team): removing it, or narrowing its `when`, lets calls through that were
    refused, and nothing in the schemas shows it. Each old precondition is proved against all the new
    ones: a valid call the old one refused and no new one refuses is the witness, checked with
    jsonschema; which code or message refuses it is not this rule's concern."""
    old, new = pair.old.contract.preconditions, pair.new.contract.preconditions
    refusing: Any = {"anyOf": [p.when for p in new]} if new else False
    for index, precondition in enumerate(old):
        proof = contains(refusing, {"allOf": [pair.new.contract.input_schema, precondition.when]})
        where = f"/preconditions/{index}/when"
        if proof.verdict is Verdict.NOT_COVERS:
            call = json.dumps(proof.witness, sort_keys=True, ensure_ascii=False)
            how = "loosened" if new else "removed"
            yield Hit(f"precondition {index} ({precondition.code}) {how}: the call {call} was refused "
                      "before it ran and now runs", pointer=where, source=where, side="old")
        elif proof.verdict is Verdict.UNKNOWN:
            yield Hit(f"precondition {index} ({precondition.code}) changed and the proof could not show the "
                      f"new preconditions still refuse every call it refused ({proof.reason})",
                      pointer=where, source=where, side="old", level=Level.DANGEROUS)
