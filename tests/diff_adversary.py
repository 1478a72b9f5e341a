"""An adversary for the prover's "covers" claims: hypothesis-generated schema pairs built around object
combinators, and instances of the side that must be covered (its literals and bound values, plus a
generator of our own that builds objects from the names the schemas use), kept where python
jsonschema accepts them. Used by tests/test_diff_soundness.py.

Names come from one pool per object depth (``a b c d`` at the root, ``p q r`` below, ``x y`` below
that), so "the schema describes this name somewhere" is "it describes it at this position": the
default reading's policy can then be judged without the prover's own position logic.
"""

from __future__ import annotations

import copy
import random
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from diff_fuzz import accepts, literal_candidates, tool, validator
from hypothesis import strategies as st

from contractgen.diff.model import Direction
from contractgen.diff.reading import plain, prove
from contractgen.diff.structure import ToolPair
from contractgen.prover import Verdict

Draw = Callable[..., Any]
POOLS = (("a", "b", "c", "d"), ("p", "q", "r"), ("x", "y"))
#: a name no schema mentions: a member callers never sent (input) and no consumer reads (output)
STRANGER = "zz"
LEAVES: tuple[dict[str, Any], ...] = (
    {"type": "string"}, {"type": "string", "maxLength": 3}, {"type": "integer"},
    {"type": "integer", "minimum": 0, "maximum": 10}, {"enum": ["u", "v"]}, {"type": ["string", "null"]},
    {"const": 1}, {},
)
SCALARS = ("", "u", "v", "abcd", 0, 1, 5, 11, -1, None, True, 2.5)


# --- schemas -----------------------------------------------------------------------------------------

def leaf(draw: Draw) -> dict[str, Any]:
    return copy.deepcopy(draw(st.sampled_from(LEAVES)))


def branch(draw: Draw, names: tuple[str, ...]) -> dict[str, Any]:
    """One subschema applied in place to an object: requires, declares or forbids one name."""
    name = draw(st.sampled_from(names))
    kind = draw(st.sampled_from(["required", "declared", "both", "not", "const"]))
    if kind == "required":
        return {"required": [name]}
    if kind == "declared":
        return {"properties": {name: leaf(draw)}}
    if kind == "both":
        return {"properties": {name: leaf(draw)}, "required": [name]}
    if kind == "not":
        return {"not": {"required": [name]}}
    return {"properties": {name: {"const": "u"}}, "required": [name]}


def object_feature(draw: Draw, names: tuple[str, ...]) -> dict[str, Any]:
    """A keyword that shapes an object beyond ``properties``: a combinator, a condition, a dependency."""
    kind = draw(st.sampled_from(["oneOf", "anyOf", "allOf", "if", "dependentRequired", "patternProperties"]))
    first, second = draw(st.sampled_from(names)), draw(st.sampled_from(names))
    if kind in ("oneOf", "anyOf", "allOf"):
        return {kind: [branch(draw, names) for _ in range(draw(st.integers(1, 3)))]}
    if kind == "if":
        out: dict[str, Any] = {"if": branch(draw, names), "then": branch(draw, names)}
        if draw(st.booleans()):
            out["else"] = branch(draw, names)
        return out
    if kind == "dependentRequired":
        return {"dependentRequired": {first: [second]}}
    return {"patternProperties": {f"^{first}$": leaf(draw)}}


def array_schema(draw: Draw, depth: int) -> dict[str, Any]:
    kind = draw(st.sampled_from(["items", "prefixItems", "contains"]))
    if kind == "items":
        return {"type": "array", "items": member(draw, depth + 1), "maxItems": draw(st.sampled_from([2, 3]))}
    if kind == "prefixItems":
        out: dict[str, Any] = {"type": "array", "prefixItems": [leaf(draw), member(draw, depth + 1)]}
        if draw(st.booleans()):
            out["items"] = False
        return out
    out = {"type": "array", "contains": leaf(draw), "minContains": draw(st.sampled_from([1, 2]))}
    if draw(st.booleans()):
        out["maxContains"] = 2
    return out


def member(draw: Draw, depth: int) -> dict[str, Any]:
    """A property's schema: mostly a leaf, sometimes an object or an array one level down."""
    if depth >= len(POOLS):
        return leaf(draw)
    kind = draw(st.sampled_from(["leaf", "leaf", "object", "array"]))
    if kind == "object":
        return object_schema(draw, depth)
    if kind == "array":
        return array_schema(draw, depth)
    return leaf(draw)


def object_schema(draw: Draw, depth: int = 0) -> dict[str, Any]:
    names = POOLS[depth]
    declared = draw(st.lists(st.sampled_from(names), unique=True, max_size=len(names)))
    schema: dict[str, Any] = {"type": "object", "properties": {n: member(draw, depth + 1) for n in declared}}
    required = draw(st.lists(st.sampled_from(declared), unique=True)) if declared else []
    if required:
        schema["required"] = required
    closing = draw(st.sampled_from(["open", "open", "additionalProperties", "unevaluatedProperties"]))
    if closing != "open":
        schema[closing] = False
    for _ in range(draw(st.integers(0, 2))):
        for key, value in object_feature(draw, names).items():
            schema.setdefault(key, value)
    return schema


def with_ref(schema: dict[str, Any], draw: Draw) -> dict[str, Any]:
    """The same schema with one property's schema moved behind a ``$ref`` (maybe)."""
    properties = schema.get("properties", {})
    if not properties or not draw(st.booleans()):
        return schema
    name = draw(st.sampled_from(sorted(properties)))
    out = copy.deepcopy(schema)
    out.setdefault("$defs", {})["shared"] = out["properties"][name]
    out["properties"][name] = {"$ref": "#/$defs/shared"}
    return out


def objects_in(schema: Any, depth: int = 0) -> Iterator[tuple[dict[str, Any], int]]:
    """Every object schema (with its depth) reachable through properties, items and prefixItems."""
    if not isinstance(schema, dict):
        return
    if schema.get("type") == "object":
        yield schema, depth
        for sub in schema.get("properties", {}).values():
            yield from objects_in(sub, depth + 1)
    for sub in (schema.get("items"), *schema.get("prefixItems", ())):
        yield from objects_in(sub, depth)


def edited(old: dict[str, Any], draw: Draw) -> dict[str, Any]:
    """``old`` with one to three edits at object positions: the issue's class first (a requirement or a
    declaration moved into a combinator), then declarations, requirements, closings and features."""
    new = copy.deepcopy(old)
    for _ in range(draw(st.integers(1, 3))):
        target, depth = draw(st.sampled_from(list(objects_in(new))))
        names = POOLS[depth]
        props: dict[str, Any] = target.setdefault("properties", {})
        required: list[str] = target.setdefault("required", [])
        edit = draw(st.sampled_from(["required-into-oneOf", "declaration-into-branch", "drop", "add", "require",
                                     "unrequire", "retype", "close", "open", "feature", "drop-feature", "add-in-branch"]))
        name = draw(st.sampled_from(names))
        if edit == "required-into-oneOf" and len(required) >= 2:
            moved = required[:2]
            del required[:2]
            target[draw(st.sampled_from(["oneOf", "anyOf"]))] = [{"required": [n]} for n in moved]
        elif edit == "declaration-into-branch" and name in props:
            held = props.pop(name)
            target[draw(st.sampled_from(["allOf", "anyOf", "oneOf"]))] = [{"properties": {name: held}}]
        elif edit == "drop":
            props.pop(name, None)
            if name in required:
                required.remove(name)
        elif edit == "add" and name not in props:
            props[name] = member(draw, depth + 1)
        elif edit == "require" and name not in required:
            required.append(name)
        elif edit == "unrequire" and name in required:
            required.remove(name)
        elif edit == "retype" and name in props:
            props[name] = leaf(draw)
        elif edit == "close":
            target["additionalProperties"] = False
        elif edit == "open":
            target.pop("additionalProperties", None)
            target.pop("unevaluatedProperties", None)
        elif edit == "feature":
            target.update(object_feature(draw, names))
        elif edit == "add-in-branch":  # the default reading's adjustments reach into combinators
            branches = [b for k in ("oneOf", "anyOf", "allOf") for b in target.get(k, ())]
            if branches:
                draw(st.sampled_from(branches)).setdefault("properties", {})[name] = leaf(draw)
        elif edit == "drop-feature":
            for key in ("oneOf", "anyOf", "allOf", "if", "then", "else", "dependentRequired", "patternProperties"):
                target.pop(key, None)
        if not required:
            target.pop("required")
    return new


@st.composite
def schema_pairs(draw: Draw) -> tuple[dict[str, Any], dict[str, Any]]:
    old = object_schema(draw)
    new = edited(old, draw)
    return with_ref(old, draw), with_ref(new, draw)


# --- instances ---------------------------------------------------------------------------------------

def invented(rng: random.Random, names: list[str], depth: int = 0) -> Any:
    """A value built from the names the schema mentions (the stranger now and then) and a few telling
    scalars: objects of any of those names at any depth, arrays of such values."""
    roll = rng.random()
    if depth < len(POOLS) and roll < 0.55:
        chosen = [n for n in names if rng.random() < 0.5]
        if rng.random() < 0.15:
            chosen.append(STRANGER)
        return {n: invented(rng, names, depth + 1) for n in chosen}
    if depth < len(POOLS) and roll < 0.7:
        return [invented(rng, names, depth + 1) for _ in range(rng.randint(0, 3))]
    return rng.choice(SCALARS)


def instances(schema: dict[str, Any], rng: random.Random, tries: int = 150) -> list[Any]:
    """Values ``schema`` accepts: the schema's own literals and values at its bounds (tests/diff_fuzz.py),
    then values of our own built from the names it mentions, kept where python jsonschema agrees.
    (hypothesis-jsonschema meets combinators by filtering, and a draw it rejects would silently discard
    the whole example; the mutation fuzz above uses it on real schemas.)"""
    check = validator(schema)
    found = [v for v in literal_candidates(schema) if accepts(check, v)]
    names = sorted(mentioned(schema))
    for _ in range(tries):
        value = invented(rng, names)
        if accepts(check, value):
            found.append(value)
    return found


# --- the default reading's policy, judged without the prover -------------------------------------------

def mentioned(schema: Any) -> set[str]:
    """Every member name a schema mentions anywhere (declared, required, a dependency, a pattern's name)."""
    found: set[str] = set()
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key in ("properties", "dependentRequired", "dependentSchemas") and isinstance(value, dict):
                found |= set(value)
                if key == "dependentRequired":
                    found |= {n for names in value.values() for n in names}
            elif key == "required" and isinstance(value, list):
                found |= set(value)
            elif key == "patternProperties" and isinstance(value, dict):
                found |= {n for pool in POOLS for n in pool if any(p == f"^{n}$" for p in value)}
            found |= mentioned(value)
    elif isinstance(schema, list):
        for item in schema:
            found |= mentioned(item)
    return found


def without_names(value: Any, keep: set[str]) -> Any:
    if isinstance(value, dict):
        return {k: without_names(v, keep) for k, v in value.items() if k in keep}
    if isinstance(value, list):
        return [without_names(v, keep) for v in value]
    return value


def has_other_names(value: Any, known: set[str]) -> bool:
    if isinstance(value, dict):
        return any(k not in known or has_other_names(v, known) for k, v in value.items())
    if isinstance(value, list):
        return any(has_other_names(v, known) for v in value)
    return False


@dataclass(frozen=True)
class Refutation:
    """A "covers" claim and the value that breaks it."""

    pointer: str
    strict: bool
    value: Any
    old: Any
    new: Any

    def __str__(self) -> str:
        reading = "--strict" if self.strict else "default"
        return f"{reading} claims #{self.pointer} is covered, but {self.value!r} breaks it\n" \
               f"    old={self.old}\n    new={self.new}"


def refute(old: Any, new: Any, direction: Direction, strict: bool, rng: random.Random,
           tally: Counter[str] | None = None) -> Any:
    """A value breaking "the old schema's values are still fine" in this reading, or None.

    Input: a call the old schema accepts that the new one refuses; under the default reading only calls
    whose every member the old schema mentions (callers never sent others). Output: a result the new
    schema allows that the old one excludes; under the default reading members the new schema does not
    mention are never sent and members the old one does not mention are never read.
    """
    src, dst = (old, new) if direction is Direction.INPUT else (new, old)
    src_check, dst_check = validator(src), validator(dst)
    for value in instances(src, rng):
        if not strict and direction is Direction.INPUT and has_other_names(value, mentioned(old)):
            continue
        if not strict and direction is Direction.OUTPUT:
            value = without_names(value, mentioned(new))
            if not accepts(src_check, value):
                continue
            value = without_names(value, mentioned(old))
        if tally is not None:
            tally["values"] += 1
        if accepts(dst_check, value) is False:
            return value
    return None


def claims(old: dict[str, Any], new: dict[str, Any], direction: Direction,
           strict: bool) -> Iterator[tuple[str, Any, Any]]:
    """(pointer, old, new) for every position of the structural diff the prover calls covered."""
    pair = ToolPair(tool(old, "1.0.0", direction), tool(new, "2.0.0", direction))
    seen: set[str] = set()
    for schema_pair in pair.pairs(direction):
        proof, _ = prove(schema_pair, strict)
        target = schema_pair
        while target is not None and not target.both:
            target = target.parent
        if proof.verdict is Verdict.COVERS and target is not None and target.pointer not in seen:
            seen.add(target.pointer)
            yield target.pointer, plain(target.old), plain(target.new)
