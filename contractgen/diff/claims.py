"""What a witness must show for the rules whose finding is about one value: the property absent for a
property that became optional or was removed, null where null is newly allowed or refused. The witness
search tries the claim's own mutation first, and a witness that does not show the claim is said to."""

from __future__ import annotations

from typing import Any

from .generate import NOTHING
from .model import ITEM, Mutation, Step

#: rule ID -> "absent" (the property is missing from its object) or "null" (the value is null)
CLAIMS = {
    "output-property-removed": "absent",
    "output-optional-property-removed": "absent",
    "output-property-became-optional": "absent",
    "input-property-became-required": "absent",
    "input-property-added-required": "absent",
    "output-nullability-added": "null",
    "input-nullability-removed": "null",
}


def claim_mutation(rule: str, steps: tuple[Step, ...]) -> Mutation | None:
    """The mutation that shows the rule's claim at ``steps`` (None for rules without a claim)."""
    claim = CLAIMS.get(rule)
    if claim is None or not steps:
        return None
    return Mutation(steps, "delete") if claim == "absent" else Mutation(steps, "set", None)


def shows(rule: str, steps: tuple[Step, ...], witness: Any) -> bool:
    """Whether ``witness`` shows the rule's claim at ``steps`` (True for rules without a claim)."""
    claim = CLAIMS.get(rule)
    if claim is None or not steps:
        return True
    container = witness
    for step in steps[:-1]:
        container = _enter(container, step)
        if container is NOTHING:
            return claim == "absent"  # the enclosing value is absent, so is the property
    last = steps[-1]
    if claim == "absent":
        return last.key != ITEM and isinstance(container, dict) and last.key not in container
    value = _enter(container, last)
    return value is None


def _enter(container: Any, step: Step) -> Any:
    if step.key == ITEM:
        return container[step.index] if isinstance(container, list) and len(container) > step.index else NOTHING
    return container.get(step.key, NOTHING) if isinstance(container, dict) else NOTHING
