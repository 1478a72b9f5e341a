"""Small helpers rules share: readable values, numeric bounds, and witness candidates near a limit."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..prover import NOTHING, Mutation, candidates, find_witness, generate
from .normalize import JSON_TYPES, types_of
from .structure import SchemaPair


def show(value: Any) -> str:
    """A compact JSON rendering for messages."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


@dataclass(frozen=True)
class Bound:
    """A numeric limit; ``exclusive`` when the value itself is not allowed."""

    value: float
    exclusive: bool

    def __str__(self) -> str:
        return f"{'>' if self.exclusive else '>='} {_num(self.value)}"


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def lower_bound(node: Mapping[str, Any] | None) -> Bound | None:
    """The tighter of ``minimum`` and ``exclusiveMinimum``."""
    if node is None:
        return None
    found: list[Bound] = []
    if isinstance(node.get("minimum"), (int, float)) and not isinstance(node.get("minimum"), bool):
        found.append(Bound(node["minimum"], False))
    if isinstance(node.get("exclusiveMinimum"), (int, float)) and not isinstance(node.get("exclusiveMinimum"), bool):
        found.append(Bound(node["exclusiveMinimum"], True))
    return max(found, key=lambda b: (b.value, b.exclusive)) if found else None


def upper_bound(node: Mapping[str, Any] | None) -> Bound | None:
    """The tighter of ``maximum`` and ``exclusiveMaximum``."""
    if node is None:
        return None
    found: list[Bound] = []
    if isinstance(node.get("maximum"), (int, float)) and not isinstance(node.get("maximum"), bool):
        found.append(Bound(node["maximum"], False))
    if isinstance(node.get("exclusiveMaximum"), (int, float)) and not isinstance(node.get("exclusiveMaximum"), bool):
        found.append(Bound(node["exclusiveMaximum"], True))
    return min(found, key=lambda b: (b.value, not b.exclusive)) if found else None


def lower_is_tighter(new: Bound | None, old: Bound | None) -> bool:
    if new is None:
        return False
    if old is None:
        return True
    return (new.value, new.exclusive) > (old.value, old.exclusive)


def upper_is_tighter(new: Bound | None, old: Bound | None) -> bool:
    if new is None:
        return False
    if old is None:
        return True
    return (new.value, not new.exclusive) < (old.value, not old.exclusive)


def upper_text(bound: Bound | None) -> str:
    if bound is None:
        return "no maximum"
    return f"{'<' if bound.exclusive else '<='} {_num(bound.value)}"


def lower_text(bound: Bound | None) -> str:
    return "no minimum" if bound is None else str(bound)


def int_limit(node: Mapping[str, Any] | None, keyword: str) -> int | None:
    if node is None:
        return None
    value = node.get(keyword)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def set_values(pair: SchemaPair, values: Iterable[Any]) -> tuple[Mutation, ...]:
    """Witness candidates that put each value at the pair's position."""
    return tuple(Mutation(pair.steps, "set", v) for v in values)


def sample(node: Mapping[str, Any] | None, **overrides: Any) -> Any:
    """A value for ``node`` with some keywords replaced (NOTHING when none fits)."""
    if node is None:
        return NOTHING
    schema = {k: v for k, v in node.items()}
    for key, value in overrides.items():
        if value is None:
            schema.pop(key, None)
        else:
            schema[key] = value
    return generate(schema)


def samples(node: Mapping[str, Any] | None) -> list[Any]:
    return [] if node is None else [v for v in candidates(node) if v is not NOTHING]


def described_types(node: Mapping[str, Any] | None) -> str:
    types = effective_types(node) if node is not None and "type" not in node else types_of(node)
    if types == frozenset(JSON_TYPES):
        return "any type"
    return ", ".join(sorted(types))


def property_name(pair: SchemaPair) -> str:
    return pair.name or pair.pointer.rsplit("/", 1)[-1]


def mentions_null(node: Mapping[str, Any] | None) -> bool:
    """The schema names null explicitly (in ``type``, ``enum`` or ``const``)."""
    if node is None:
        return False
    return "null" in (node.get("type") or ()) or None in (node.get("enum") or ()) or \
        ("const" in node and node["const"] is None)


def admits_null(node: Mapping[str, Any] | None) -> bool:
    """Whether ``null`` passes the schema's type, enum and const keywords."""
    if node is None:
        return False
    if "type" in node and "null" not in node["type"]:
        return False
    if "enum" in node and None not in node["enum"]:
        return False
    return not ("const" in node and node["const"] is not None)


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def effective_types(node: Mapping[str, Any] | None) -> frozenset[str]:
    """The types a schema's ``type`` allows, limited to those of its ``enum``/``const`` values."""
    types = types_of(node)
    if node is None:
        return types
    if "type" not in node:  # a type that lives in the branches: `anyOf: [{type: string}, {type: integer}]`
        for keyword in ("anyOf", "oneOf"):
            branches = node.get(keyword)
            if isinstance(branches, list) and branches and all(isinstance(b, Mapping) and "type" in b
                                                               for b in branches):
                types = frozenset().union(*(effective_types(b) for b in branches))
    values = [node["const"]] if "const" in node else node.get("enum")
    if isinstance(values, list):
        found = {json_type(v) for v in values}
        # an integer value under `type: number` is still an integer: integer -> number is no narrowing
        types = frozenset(t for t in found if t in types or (t == "integer" and "number" in types))
    return types


def removed_types(old: Mapping[str, Any] | None, new: Mapping[str, Any] | None) -> list[str]:
    """Types the old schema allowed that the new one does not (integer stays allowed under number)."""
    from .normalize import covers_type

    new_types = types_of(new)
    return [t for t in sorted(effective_types(old)) if not covers_type(new_types, t)]


def accepts_more(pair: SchemaPair) -> bool:
    """Whether a value is found that the new schema accepts at this position and the old one rejects:
    the proof a "relaxed" or "widened" claim rests on. Without one (a bound or a type moved into
    ``allOf``, a schema that became ``false``) the keywords changed but nothing is accepted that was
    not before, and the claim is not made."""
    return pair.both and find_witness(pair.new, pair.old) is not NOTHING
