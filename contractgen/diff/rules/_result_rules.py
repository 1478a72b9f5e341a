"""Shared by the result-rule diff rules: pairing old and new rules, and building witness results.

A witness is a result the old rule refuses and the new contract accepts. A freshness witness holds
its date-time relative to the call (``<48 h before the call>``): a fixed one would age.
"""

from __future__ import annotations

import copy
from typing import Any

from ...runtime.contract import Contract, FreshnessRule, IntegrityRule
from ...runtime.pointer import pointer_parts
from ...runtime.result_rules import digest

Rule = IntegrityRule | FreshnessRule

#: bits of collision resistance of each algorithm the manifest allows (md5 and sha1 are broken)
STRENGTH = {
    "md5": 0,
    "sha1": 1,
    "sha224": 112,
    "sha256": 128,
    "sha3_256": 128,
    "blake2s": 128,
    "sha384": 192,
    "sha3_384": 192,
    "sha512": 256,
    "sha3_512": 256,
    "blake2b": 256,
}


def kind(rule: Rule) -> str:
    return "integrity" if isinstance(rule, IntegrityRule) else "freshness"


def paired(old: Contract, new: Contract) -> list[tuple[int, Rule, Rule | None]]:
    """Each old rule with its index and the new rule of the same kind on the same field (or None)."""
    by_key = {(kind(r), r.field): r for r in new.result_rules}
    return [(i, r, by_key.get((kind(r), r.field))) for i, r in enumerate(old.result_rules)]


def _tokens(path: str) -> list[Any]:
    return [0 if t == "*" else t for t in pointer_parts(path)]


def _place(result: dict[str, Any], path: str, value: Any) -> None:
    """Set ``value`` at ``path`` in ``result``, creating objects and one-item arrays for ``*``."""
    tokens = pointer_parts(path)
    node: Any = result
    for index, token in enumerate(tokens):
        key = 0 if token == "*" else token
        if index == len(tokens) - 1:
            child = value
        else:
            child = (node[0] if node else None) if isinstance(node, list) else node.get(key)
            if child is None:
                child = [] if tokens[index + 1] == "*" else {}
        if isinstance(node, list):
            node[:1] = [child]
        else:
            node[key] = child
        node = child


def _hashed(witness: dict[str, Any], rule: IntegrityRule) -> Any:
    """What ``rule`` hashes in ``witness`` (the runtime's definition: the field left out of a holder)."""
    source, field = _tokens(rule.hash_of), _tokens(rule.field)
    value: Any = witness
    if field[: len(source)] == source:
        value = copy.deepcopy(witness)
        holder: Any = value
        for step in field[:-1]:
            holder = holder[step]
        del holder[field[-1]]
    for step in source:
        value = value[step]
    return value


def integrity_witness(old: IntegrityRule, new: IntegrityRule | None) -> dict[str, Any]:
    """A result whose hash field is right for ``new`` (or, without one, simply wrong) but not for ``old``."""
    witness: dict[str, Any] = {}
    for source, text in ((old.hash_of, "x"), (new.hash_of if new else "", "y")):
        if source != "" and not old.field.startswith(source + "/"):
            _place(witness, source, text)
    _place(witness, old.field, "")
    wrong = digest(old.algorithm, "not what the rule hashes")
    _place(witness, old.field, digest(new.algorithm, _hashed(witness, new)) if new else wrong)
    return witness


def freshness_witness(rule: FreshnessRule, seconds_before_call: float) -> dict[str, Any]:
    witness: dict[str, Any] = {}
    _place(witness, rule.field, _relative(seconds_before_call))
    return witness


def _relative(seconds: float) -> str:
    return (
        f"<{_span(seconds)} before the call>"
        if seconds >= 0
        else f"<{_span(-seconds)} after the call>"
    )


def _span(seconds: float) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{seconds / size:g} {unit}"
    return f"{seconds:g} s"


def show_age(seconds: float | None) -> str:
    return "any age" if seconds is None else _span(seconds)
