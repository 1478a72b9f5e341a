"""Witnesses: values one schema accepts and another rejects, and the whole argument objects (or
results) that show a finding with them. The prover's one witness module.

``find_witness`` builds candidates from both schemas' own terms: the algebra's difference schema,
then a walk of both schemas position by position (boundary numbers and lengths, both patterns,
property names, tuple slots, branches). ``WitnessFinder`` writes a rule's ``Mutation``s (a value set
or deleted at an instance path of ``Step``s) into a valid base (the old manifest's examples, then a
generated minimal instance). Nothing here is trusted: only a value python ``jsonschema`` confirms on both sides is returned, and when nothing
qualifies the finding says so instead of showing a guess.
"""

from __future__ import annotations

import copy
import json
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any

from ..runtime.jsonvalue import thaw
from ..runtime.reference_validator import PatternUndecided
from .formats import format_gap
from .instances import (
    FORMAT_BREAKERS,
    NOTHING,
    accepts,
    candidates,
    generate,
    member_schema,
    regex_samples,
    rejects,
    text_of,
    with_contained,
)

ITEM = "[]"  # a path step into an array's items (the witness uses ``Step.index``, 0 for ``items``)


@dataclass(frozen=True)
class Step:
    """One step of an instance path, with the old schema there (to build missing containers)."""

    key: str  # a property name, or ITEM
    schema: Any = None  # the old side's normalized schema for the value at this step
    #: for ITEM: the array index the step enters (a tuple slot, or the first item past the slots)
    index: int = 0
    #: for ITEM: the old schemas of the slots before ``index``, to build them when the array is shorter
    before: tuple[Any, ...] = ()


@dataclass(frozen=True)
class Mutation:
    """A candidate witness: set (or delete) the value at ``path`` in a valid base argument object."""

    path: tuple[Step, ...]
    action: str = "set"  # "set" | "delete"
    value: Any = None


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
        from .instances import validator_for

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
        import jsonschema_rs

        # plain JSON (the algebra drops annotations such as ``examples`` itself)
        both = jsonschema_rs.canonicalize(json.loads(text_of(old))).intersect(
            jsonschema_rs.canonicalize(json.loads(text_of(new))))
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


# --- candidate values from both schemas (the proof's search and the rules' fallbacks) ---------------

#: candidates tried per search; each costs two validations
BUDGET = 1500
_MAX_DEPTH = 4


def find_witness(inner: Any, outer: Any, hints: Sequence[Any] = ()) -> Any:
    """A value ``inner`` accepts and ``outer`` rejects, or NOTHING."""
    seen: set[str] = set()
    for value in islice(_pool(inner, outer, hints), BUDGET):
        if value is NOTHING:
            continue
        key = repr(value)
        if key in seen:
            continue
        seen.add(key)
        if accepts(inner, value) and rejects(outer, value):
            return value
    return NOTHING


def _pool(inner: Any, outer: Any, hints: Sequence[Any]) -> Iterator[Any]:
    for hint in hints:
        yield from candidates(hint)
        if isinstance(hint, dict) and "not" in hint:
            yield from candidates({k: v for k, v in hint.items() if k != "not"})
    yield from _values(inner, outer, 0)


def _sub(schema: Any, *path: Any) -> Any:
    for step in path:
        if not isinstance(schema, dict):
            return {}
        schema = schema.get(step, {})
    return schema if isinstance(schema, (dict, bool)) else {}


def _values(inner: Any, outer: Any, depth: int) -> Iterator[Any]:
    """Candidates for one position: inner's own values first, then values at both schemas' edges."""
    if depth > _MAX_DEPTH or not isinstance(inner, dict):
        return
    yield from candidates(inner)
    rest = {k: v for k, v in inner.items() if k not in ("anyOf", "oneOf")}
    # each branch's values in turn, one at a time: a caller reading only the first few dozen values
    # (a property's share) still meets every branch, not only the first one's long list
    yield from _in_turn([_values({**rest, **branch}, outer, depth + 1)
                         for branch in (*inner.get("anyOf", ()), *inner.get("oneOf", ())) if isinstance(branch, dict)])
    for part in inner.get("allOf", ()):
        if isinstance(part, dict):
            yield from _values({**{k: v for k, v in inner.items() if k != "allOf"}, **part}, outer, depth + 1)
    yield from _scalars(inner, outer)
    yield from _objects(inner, outer, depth)
    yield from _arrays(inner, outer, depth)
    yield from PROBES


def _in_turn(pools: list[Iterator[Any]]) -> Iterator[Any]:
    """The values of ``pools`` taken one from each in turn until all are spent."""
    while pools:
        for pool in list(pools):
            value = next(pool, _SPENT)
            if value is _SPENT:
                pools.remove(pool)
            else:
                yield value


_SPENT = object()


def _limits(keyword: str, *schemas: Any) -> list[Any]:
    found: list[Any] = []

    def collect(node: Any) -> None:
        if isinstance(node, dict):
            value = node.get(keyword)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                found.append(value)
            for key in ("anyOf", "oneOf", "allOf"):
                for branch in node.get(key, ()) if isinstance(node.get(key), list) else ():
                    collect(branch)
            if isinstance(node.get("not"), dict):
                collect(node["not"])

    for schema in schemas:
        collect(schema)
    return found


def numbers_near(*limits: float | None) -> list[float]:
    """Integers and halves around each limit: where a moved bound lets a value through on one side only."""
    out: list[float] = []
    for limit in limits:
        if limit is None:
            continue
        for delta in (0, -1, 1, -0.5, 0.5, -2, 2, -10, 10):
            value = limit + delta
            out.append(int(value) if float(value).is_integer() else value)
    return out


def _scalars(inner: Any, outer: Any) -> Iterator[Any]:
    bounds = [v for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
              for v in _limits(k, inner, outer)]
    yield from numbers_near(*bounds)
    for step in _limits("multipleOf", inner, outer):
        if step > 0:
            for factor in (1, 2, 3, 5, 6, 0.5, -1, -2):
                value = step * factor
                yield int(value) if float(value).is_integer() else value
    for low, high in ((0, 0.5), (-0.5, 2.5)):
        yield from (low, high)
    lengths = [v for k in ("minLength", "maxLength") for v in _limits(k, inner, outer)]
    for length in {max(0, int(n) + d) for n in lengths for d in (-1, 0, 1)}:
        yield "a" * length
        yield "1" * length
    for schema in (inner, outer):
        for pattern in _patterns(schema):
            yield from regex_samples(pattern, 12)
    if isinstance(inner, dict) and isinstance(outer, dict):  # texts of inner's format outer's refuses
        yield from format_gap(outer.get("format"), inner.get("format"))
    yield from FORMAT_BREAKERS


def _patterns(schema: Any) -> list[str]:
    if not isinstance(schema, dict):
        return []
    found = [schema["pattern"]] if isinstance(schema.get("pattern"), str) else []
    for key in ("anyOf", "oneOf", "allOf"):
        for branch in schema.get(key, ()) if isinstance(schema.get(key), list) else ():
            found.extend(_patterns(branch))
    if isinstance(schema.get("not"), dict):
        found.extend(_patterns(schema["not"]))
    return found


def _property_names(inner: Any, outer: Any) -> list[str]:
    """The object's own names, an undeclared one, then names only its subschemas speak of (last: each
    name's values take a share of the budget, which the names read before them must still get)."""
    names: list[str] = []
    for schema in (inner, outer):
        names.extend(_names_of(schema, 0, nested=False))
    names.append("extra")
    for schema in (inner, outer):
        names.extend(_names_of(schema, 0))
    return list(dict.fromkeys(names))


#: subschemas that judge the same object as their parent: a name they speak of is a name of it
_SAME_INSTANCE = ("allOf", "anyOf", "oneOf", "not", "if", "then", "else")


def _names_of(schema: Any, depth: int, nested: bool = True) -> list[str]:
    """The member names ``schema`` speaks of: declared, required, matched by a pattern, around its name
    rule, named by a dependency, and the same in the subschemas judging the same object (a name only
    an ``if``/``then`` or a ``dependentSchemas`` entry names is where a changed condition shows)."""
    if not isinstance(schema, dict) or depth > _MAX_DEPTH:
        return []
    names: list[str] = [*_mapping(schema, "properties"), *(n for n in _listed(schema, "required") if isinstance(n, str))]
    for pattern in _mapping(schema, "patternProperties"):
        names.extend(regex_samples(pattern, 3))
    names.extend(_names_around(schema.get("propertyNames")))
    if not nested:
        return names
    for trigger, needed in _mapping(schema, "dependentRequired").items():
        names.extend([trigger, *(n for n in needed if isinstance(n, str))] if isinstance(needed, list) else [trigger])
    for trigger, sub in _mapping(schema, "dependentSchemas").items():
        names.extend([trigger, *_names_of(sub, depth + 1)])
    for key in _SAME_INSTANCE:
        for sub in _listed(schema, key) if key.endswith("Of") else (schema.get(key),):
            names.extend(_names_of(sub, depth + 1))
    return names


def _mapping(schema: dict[str, Any], key: str) -> dict[str, Any]:
    value = schema.get(key)
    return value if isinstance(value, dict) else {}


def _listed(schema: dict[str, Any], key: str) -> list[Any]:
    value = schema.get(key)
    return value if isinstance(value, list) else []


#: names a name rule (a pattern, a format, a ``not``) commonly refuses: capitals, digits, separators
_NAME_BREAKERS = ("A", "B", "0", "a-b", "a b", "a_b", "aB", "_", "-", "a.b", "\u00e9")


def _names_around(names: Any) -> list[str]:
    """Property names at and just past a ``propertyNames`` schema's length limits, the texts it lists
    (at any depth: the name a ``not: {const: ...}`` refuses), samples of its pattern, and names a
    name rule commonly refuses: where a narrowed name rule starts refusing names the old one allowed."""
    if not isinstance(names, dict):
        return []
    found: list[str] = [*_listed_texts(names), *_NAME_BREAKERS]
    for key in ("minLength", "maxLength"):
        limit = names.get(key)
        if isinstance(limit, int) and not isinstance(limit, bool) and 0 <= limit < 200:
            found.extend("n" * length for length in (limit - 1, limit, limit + 1) if length > 0)
    if isinstance(names.get("pattern"), str):
        found.extend(regex_samples(names["pattern"], 3))
    return found


def _listed_texts(schema: Any, depth: int = 0) -> list[str]:
    """The strings ``schema`` lists under ``const`` or ``enum``, at any depth of its subschemas."""
    if depth > _MAX_DEPTH or not isinstance(schema, dict):
        return []
    found = [v for v in (*(schema["enum"] if isinstance(schema.get("enum"), list) else ()),
                         *((schema["const"],) if "const" in schema else ())) if isinstance(v, str)]
    for value in schema.values():
        for sub in value if isinstance(value, list) else (value,):
            found.extend(_listed_texts(sub, depth + 1))
    return found


def _objects(inner: Any, outer: Any, depth: int) -> Iterator[Any]:
    base = generate(inner)
    if not isinstance(base, dict):
        if not _may_be(inner, "object"):
            return
        base = {}
    for name in _property_names(inner, outer):
        if name in base:
            trimmed = dict(base)
            del trimmed[name]
            yield trimmed
        inner_sub, outer_sub = member_schema(inner, name), member_schema(outer, name)
        partners = _partners(inner, base, name)
        for value in islice(_values(inner_sub, outer_sub, depth + 1), 60):
            if value is not NOTHING:
                yield {**base, name: value}
                if partners:  # the names a dependentRequired asks for beside it
                    yield {**base, **partners, name: value}
                padded = _padded(inner, {**base, **partners, name: value})
                if padded is not None:  # as many members as minProperties asks for
                    yield padded
    counts = [int(v) for k in ("minProperties", "maxProperties") for v in _limits(k, inner, outer)]
    for count in {c + d for c in counts for d in (-1, 0, 1) if c + d >= 0}:
        grown = dict(base)
        for index in range(count + 3):
            if len(grown) >= count:
                break
            grown.setdefault(f"p{index}", 1)
        yield grown


def _partners(schema: Any, base: dict[str, Any], name: str) -> dict[str, Any]:
    """Members ``schema``'s dependentRequired asks for beside ``name`` that ``base`` lacks, each valued
    as the object asks (empty when one cannot be built)."""
    needed = _mapping(schema, "dependentRequired").get(name) if isinstance(schema, dict) else None
    partners: dict[str, Any] = {}
    for other in needed if isinstance(needed, list) else ():
        if isinstance(other, str) and other not in base and other != name:
            value = generate(member_schema(schema, other))
            if value is NOTHING:
                return {}
            partners[other] = value
    return partners


def _padded(schema: Any, value: dict[str, Any]) -> dict[str, Any] | None:
    """``value`` grown by undeclared members, valued as the object asks, to ``schema``'s minProperties
    (None when it holds enough already or no member can be built)."""
    low = schema.get("minProperties") if isinstance(schema, dict) else None
    if not isinstance(low, int) or isinstance(low, bool) or len(value) >= low or low > 50:
        return None
    grown = dict(value)
    for index in range(low + len(value)):
        if len(grown) >= low:
            return grown
        name = f"p{index}"
        if name not in grown:
            member = generate(member_schema(schema, name))
            if member is NOTHING:
                return None
            grown[name] = member
    return grown if len(grown) >= low else None


def _may_be(schema: Any, json_type: str) -> bool:
    declared = schema.get("type") if isinstance(schema, dict) else None
    if declared is None:
        return True
    return json_type in ([declared] if isinstance(declared, str) else declared)


def _arrays(inner: Any, outer: Any, depth: int) -> Iterator[Any]:
    if not _may_be(inner, "array"):
        return
    base = generate(inner)
    base = base if isinstance(base, list) else []
    prefix = inner.get("prefixItems", []) if isinstance(inner.get("prefixItems"), list) else []
    outer_prefix = _sub(outer, "prefixItems") if isinstance(_sub(outer, "prefixItems"), list) else []
    filled = [generate(s) for s in prefix]
    if all(v is not NOTHING for v in filled):
        yield filled
        for extra in (None, 0, "a"):
            yield [*filled, extra]
        for index, slot in enumerate(prefix):
            other = outer_prefix[index] if index < len(outer_prefix) else _sub(outer, "items")
            for value in islice(_values(slot, other, depth + 1), 30):
                varied = [*filled[:index], value, *filled[index + 1:]]
                yield varied
                # a slot's value the array's contains does not match: the items it asks for after it
                yield with_contained(inner, varied, depth)
    # the items past the tuple meet `items`, or else `unevaluatedItems`
    items, outer_items = _past_tuple(inner), _past_tuple(outer)
    contains = _sub(inner, "contains")
    item_values = list(islice(_values(items, outer_items, depth + 1), 40))
    item_values += list(islice(_values(contains, _sub(outer, "contains"), depth + 1), 20)) if contains else []
    lengths = [int(v) for k in ("minItems", "maxItems", "minContains", "maxContains") for v in _limits(k, inner, outer)]
    for value in item_values:
        if value is NOTHING:
            continue
        yield [value]
        yield [*base, value]
        if prefix and all(v is not NOTHING for v in filled):
            yield [*filled, value]
        for count in {n + d for n in lengths for d in (-1, 0, 1) if 0 <= n + d <= 50}:
            yield [value] * count
            yield [value, *([generate(items)] * max(0, count - 1))] if generate(items) is not NOTHING else [value]


def _past_tuple(schema: Any) -> Any:
    return _sub(schema, "items") if not isinstance(schema, dict) or "items" in schema \
        else _sub(schema, "unevaluatedItems")
