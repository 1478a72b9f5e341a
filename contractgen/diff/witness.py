"""Witnesses: argument objects the old input schema accepts and the new one rejects.

A rule proposes mutations at its finding's instance path; each is applied to a valid base (the old
manifest's examples, then a generated minimal instance) and kept only when jsonschema confirms both
halves. When nothing qualifies the finding says so instead of showing a guess.
"""

from __future__ import annotations

import copy
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..runtime.reference_validator import PatternUndecided
from .generate import NOTHING, accepts, candidates, generate, rejects
from .model import ITEM, Mutation, Step

#: Probe values of every JSON type, tried when a rule's own candidates find no witness.
PROBES: tuple[Any, ...] = (None, False, True, 0, -1, 1, 0.5, -0.5, 1_000_000_000, "", "a", "A", "0",
                           "a" * 300, [], [None], ["a"], ["a", "b"], [1, 2], {}, {"a": 1}, {"a": "a"})
MAX_ATTEMPTS = 400


@dataclass(frozen=True)
class WitnessResult:
    value: Any = None
    found: bool = False
    note: str | None = None


class WitnessFinder:
    """Witness search for one tool pair: the two full input schemas and the bases to mutate."""

    def __init__(self, old_schema: Mapping[str, Any], new_schema: Mapping[str, Any], old_normalized: Any,
                 examples: Sequence[Mapping[str, Any]], new_normalized: Any = None, *, results: bool = False) -> None:
        # ``results``: the search is for a result the new output schema allows and the old one
        # excluded (``old_schema`` is then the new output schema): its notes must say so
        self.old_schema = old_schema
        self.new_schema = new_schema
        self.results = results
        pool = [thaw(e) for e in examples]
        pool.append(generate(old_normalized))
        if new_normalized is not None:  # values both versions accept make the clearest witnesses
            pool.append(generate(new_normalized))
            pool.append(_common_value(old_normalized, new_normalized))
        bases: list[Any] = []
        for value in pool:
            if value is not NOTHING and accepts(old_schema, value) and value not in bases:
                bases.append(value)
        # bases the new schema also accepts first: then the mutation is the only reason for rejection
        bases.sort(key=lambda b: not accepts(new_schema, b))
        self.bases = bases

    def error_count(self, value: Any) -> int:
        from .generate import validator_for

        try:
            return sum(1 for _ in validator_for(self.new_schema).iter_errors(value))
        except PatternUndecided:  # a clearer witness is only a preference: rank this one last
            return sys.maxsize

    def is_witness(self, value: Any) -> bool:
        return accepts(self.old_schema, value) and rejects(self.new_schema, value)

    def find(self, mutations: Iterable[Mutation], fallback_path: tuple[Step, ...] | None,
             fallback_schemas: Sequence[Any] = ()) -> WitnessResult:
        # without a base, a mutation of the whole value (empty path) can still be a witness
        bases = self.bases or [None]
        attempts = 0
        for mutation in _with_fallbacks(mutations, fallback_path, fallback_schemas):
            found: list[Any] = []
            for base in bases:
                attempts += 1
                value = apply_mutation(base, mutation)
                if value is not NOTHING and self.is_witness(value):
                    found.append(value)
            if found:  # the witness the new schema rejects for the fewest reasons
                return WitnessResult(value=min(found, key=self.error_count), found=True)
            if attempts > MAX_ATTEMPTS:
                break
        if self.results:
            if not self.bases:
                return WitnessResult(note="no witness: no result valid under the new output schema could be built")
            return WitnessResult(note="no witness found: no result built from the new output schema is "
                                      "accepted by it and excluded by the old one")
        if not self.bases:
            return WitnessResult(note="no witness: no argument object valid under the old input schema "
                                      "could be built (add an example to the old manifest)")
        return WitnessResult(note="no witness found: no argument object built from the old schema's "
                                  "examples is accepted by the old schema and rejected by the new one")


def _common_value(old: Any, new: Any) -> Any:
    """A value both schemas accept, from jsonschema-rs's intersection when it is installed."""
    try:
        import json

        import jsonschema_rs

        from .normalize import canonical

        both = jsonschema_rs.canonicalize(json.loads(canonical(old))).intersect(
            jsonschema_rs.canonicalize(json.loads(canonical(new))))
        return generate(both.to_json_schema())
    except Exception:  # noqa: BLE001 - optional accelerator; the other bases still work
        return NOTHING


def _with_fallbacks(mutations: Iterable[Mutation], path: tuple[Step, ...] | None,
                    schemas: Sequence[Any]) -> Iterable[Mutation]:
    yield from mutations
    if path is None:
        return
    for schema in schemas:
        for value in candidates(schema):
            if value is not NOTHING:
                yield Mutation(path, "set", value)
    for value in PROBES:
        yield Mutation(path, "set", value)
    if path:
        yield Mutation(path, "delete")


def apply_mutation(base: Any, mutation: Mutation) -> Any:
    """A copy of ``base`` with the mutation applied, building missing containers from the old schema."""
    if not mutation.path:
        return copy.deepcopy(mutation.value) if mutation.action == "set" else NOTHING
    root = copy.deepcopy(base)
    container = root
    for step in mutation.path[:-1]:
        container = _enter(container, step)
        if container is NOTHING:
            return NOTHING
    last = mutation.path[-1]
    if last.key == ITEM:
        if not isinstance(container, list):
            return NOTHING
        if mutation.action == "delete":
            if len(container) <= last.index:
                return NOTHING
            container.pop(last.index)
        elif not _reach(container, last):
            return NOTHING
        elif len(container) > last.index:
            container[last.index] = copy.deepcopy(mutation.value)
        else:
            container.append(copy.deepcopy(mutation.value))
        return root
    if not isinstance(container, dict):
        return NOTHING
    if mutation.action == "delete":
        if last.key not in container:
            return root  # already absent: still a candidate (e.g. a newly required property)
        del container[last.key]
    else:
        container[last.key] = copy.deepcopy(mutation.value)
    return root


def _reach(container: list[Any], step: Step) -> bool:
    """Grow ``container`` until ``step.index`` is at most one past its end, building the missing
    earlier slots from their old schemas (False when one cannot be built)."""
    while len(container) < step.index:
        slot = len(container)
        schema = step.before[slot] if slot < len(step.before) else None
        item = generate(schema) if schema is not None else NOTHING
        if item is NOTHING:
            return False
        container.append(item)
    return True


def _enter(container: Any, step: Step) -> Any:
    if step.key == ITEM:
        if not isinstance(container, list) or not _reach(container, step):
            return NOTHING
        if len(container) == step.index:
            item = generate(step.schema) if step.schema is not None else NOTHING
            if item is NOTHING:
                return NOTHING
            container.append(item)
        return container[step.index]
    if not isinstance(container, dict):
        return NOTHING
    if step.key not in container:
        value = generate(step.schema) if step.schema is not None else NOTHING
        if value is NOTHING:
            return NOTHING
        container[step.key] = value
    return container[step.key]


def thaw(value: Any) -> Any:
    """Plain JSON from read-only mappings and tuples."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [thaw(v) for v in value]
    return value
