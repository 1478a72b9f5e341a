"""What a witness must show, rule by rule, at the value its finding speaks of: the property absent for a
property that became optional or a required one removed from an output, present for one a closed input
no longer takes, null where null is newly allowed or refused, a gained or lost enum value, a type one side no
longer allows, and otherwise a value the narrowed position itself refuses. The witness search tries
the claim's own mutation first, and a witness that does not show the claim is said to.

The side that must take the witness "accepts" (old for inputs, new for outputs); the other "refuses".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..prover import ITEM, NOTHING, Mutation, Step, accepts, rejects
from ..runtime.jsonvalue import thaw
from .model import Direction
from .normalize import covers_type, types_of
from .reading import plain
from .ruletools import json_type

#: rule ID -> its claim: "absent" (the property is missing from its object), "present" (it is there),
#: "null" (the value is null), "enum" (a value the refusing side does not list, and the accepting side
#: does where it lists any),
#: "type" (a value whose JSON type only the accepting side allows), "refused" (a value the accepting
#: side takes at the finding's position and the refusing side refuses there)
CLAIMS = {
    "output-property-removed": "absent",
    "output-property-became-optional": "absent",
    "input-property-became-required": "absent",
    "input-property-added-required": "absent",
    "output-nullability-added": "null",
    "input-nullability-removed": "null",
    "input-property-removed": "present",
    "input-property-added-optional": "present",
    "output-property-added": "present",
    "input-enum-value-removed": "enum",
    "input-const-changed": "enum",
    "output-enum-value-added": "enum",
    "input-type-narrowed": "type",
    "output-type-widened": "type",
    "input-minimum-raised": "refused",
    "input-maximum-lowered": "refused",
    "input-min-length-raised": "refused",
    "input-max-length-lowered": "refused",
    "input-min-items-raised": "refused",
    "input-max-items-lowered": "refused",
    "input-unique-items-added": "refused",
    "input-pattern-added": "refused",
    "input-pattern-changed": "refused",
    "input-format-added": "refused",
    "input-format-changed": "refused",
    "input-additional-properties-closed": "refused",
    "input-branch-removed": "refused",
    "input-schema-narrowed": "refused",
    "output-optional-property-removed": "refused",  # it could be absent before: a value old refused
    "output-schema-widened": "refused",
}

#: how each claim reads in a note about a witness that does not show it
WORDS = {
    "absent": "the property absent",
    "present": "the property present",
    "null": "null",
    "enum": "a value only one side's enum admits",
    "type": "a type only one side allows",
    "refused": "a value this position refuses",
}


@dataclass(frozen=True)
class Claim:
    """A rule's claim at one instance path, with the schemas of both sides there."""

    kind: str
    steps: tuple[Step, ...]
    accepting: Any  # the normalized node of the side that takes the witness (None where absent)
    refusing: Any

    def mutation(self) -> Mutation | None:
        """The mutation that shows the claim, where one value does (None otherwise)."""
        if not self.steps:
            return None
        if self.kind == "absent":
            return Mutation(self.steps, "delete")
        if self.kind == "null":
            return Mutation(self.steps, "set", None)
        if self.kind == "enum":
            gained = [v for v in _listed(self.accepting) if v not in _listed(self.refusing)]
            return Mutation(self.steps, "set", gained[0]) if gained else None
        return None

    def shown_by(self, witness: Any) -> bool:
        """Whether ``witness`` shows the claim."""
        container = witness
        for step in self.steps[:-1]:
            container = _enter(container, step)
            if container is NOTHING:
                return self.kind == "absent"  # the enclosing value is absent, so is the property
        if self.kind in ("absent", "present"):
            if not self.steps:
                return False
            last = self.steps[-1]
            held = last.key != ITEM and isinstance(container, dict) and last.key in container
            return held == (self.kind == "present")
        value = _enter(container, self.steps[-1]) if self.steps else witness
        if value is NOTHING:
            return False
        if self.kind == "null":
            return value is None
        if self.kind == "enum":
            # an accepting side that lists nothing (an enum introduced) takes any value
            accepted = _listed(self.accepting)
            return (not accepted or _in(value, accepted)) and not _in(value, _listed(self.refusing))
        if self.kind == "type":
            kind = json_type(value)
            return covers_type(types_of(self.accepting), kind) and not covers_type(
                types_of(self.refusing), kind
            )
        return (self.accepting is None or accepts(plain(self.accepting), value)) and (
            self.refusing is None or rejects(plain(self.refusing), value)
        )

    def words(self) -> str:
        return WORDS[self.kind]


def claim_for(
    rule: str, direction: Direction, steps: tuple[Step, ...], old: Any, new: Any
) -> Claim | None:
    """The rule's claim at ``steps``, where ``old``/``new`` are the schemas there (None for rules
    without a claim)."""
    kind = CLAIMS.get(rule)
    if kind is None:
        return None
    accepting, refusing = (old, new) if direction is Direction.INPUT else (new, old)
    return Claim(kind, steps, accepting, refusing)


def _listed(node: Any) -> list[Any]:
    """The values a node lists by ``enum`` or ``const`` (none when it lists none)."""
    if not isinstance(node, Mapping):
        return []
    if "const" in node:
        return [thaw(node["const"])]
    listed = node.get("enum")
    return [thaw(v) for v in listed] if isinstance(listed, (list, tuple)) else []


def _in(value: Any, values: list[Any]) -> bool:
    """JSON equality: 1 equals 1.0, but True is not 1."""
    return any((type(value) is bool) == (type(v) is bool) and value == v for v in values)


def _enter(container: Any, step: Step) -> Any:
    if step.key == ITEM:
        return (
            container[step.index]
            if isinstance(container, list) and len(container) > step.index
            else NOTHING
        )
    return container.get(step.key, NOTHING) if isinstance(container, dict) else NOTHING
