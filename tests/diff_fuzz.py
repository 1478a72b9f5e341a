"""Soundness fuzzing of `contractgen diff` verdicts: realistic mutations of real input schemas, and an
independent search for values the old schema accepts and the new one refuses (a quiet "not breaking"
with such a value is a false negative). Used by tests/test_diff_soundness.py and runnable for counts:

    python tests/diff_fuzz.py [--examples 600] [--direction input|output] [--verbose]
"""

from __future__ import annotations

import copy
import functools
import json
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import jsonschema
from hypothesis import strategies as st
from hypothesis.errors import HypothesisException, InvalidArgument

from contractgen.diff import RULES_BY_ID, Context, DiffSettings, Direction, Level, run_diff
from contractgen.diff.structure import ToolPair
from contractgen.ir import ToolVersion
from contractgen.manifest.load import load_contracts
from contractgen.runtime import reference_validator
from contractgen.runtime.contract import Contract

ROOT = Path(__file__).resolve().parents[1]
CORPUS = (ROOT / ".." / "shared" / "corpus").resolve()
META = reference_validator.validator(jsonschema.Draft202012Validator.META_SCHEMA)
MAX_SCHEMA_CHARS = 6000
Path_ = tuple[str, ...]  # a position in the value: property names, "[]" for array items


def validator(schema: dict[str, Any]) -> Any:
    """The reference judge: jsonschema, formats checked, patterns read as the guard reads them."""
    return reference_validator.validator(schema)


def accepts(check: Any, value: Any) -> bool | None:
    try:
        return bool(check.is_valid(value))
    except Exception:  # noqa: BLE001 - a pattern the guard's validator cannot judge, a recursion limit
        return None


# --- the schemas ------------------------------------------------------------------------------------

def seed_schemas(corpus: Path | None = CORPUS, with_function_calling: bool = False) -> list[tuple[str, dict[str, Any]]]:
    """Real input schemas: the repo's own contracts, then the shared corpus's MCP tools (when present),
    and its function-calling tools when asked (the fuzzing's example counts were tuned without them)."""
    found: list[tuple[str, dict[str, Any]]] = []
    loaded = load_contracts([ROOT / "contracts"])
    for tool in loaded.contracts.tools:
        found.append((f"contracts/{tool.contract.name}/{tool.contract.version}", tool.contract.input_schema))
        found.append((f"contracts/{tool.contract.name}/{tool.contract.version}#output", tool.contract.output_schema))
    if corpus is not None and (corpus / "mcp_tools").is_dir():
        for path in sorted((corpus / "mcp_tools").glob("*/*.json")):
            schema = json.loads(path.read_text("utf-8")).get("inputSchema")
            if isinstance(schema, dict):
                found.append((f"{path.parent.name}/{path.stem}", schema))
    if with_function_calling and corpus is not None and (corpus / "function_calling").is_dir():
        for path in sorted((corpus / "function_calling").glob("*/*/*.json")):
            schema = (json.loads(path.read_text("utf-8")).get("function") or {}).get("parameters")
            if isinstance(schema, dict):
                found.append((f"{path.parent.name}/{path.stem}", schema))
    usable = []
    for name, schema in found:
        text = json.dumps(schema)
        if len(text) > MAX_SCHEMA_CHARS or "http" in text.replace('"$schema"', "") or not positions(schema):
            continue
        if any(META.iter_errors({k: v for k, v in schema.items() if k != "$schema"})):
            continue
        usable.append((name, {k: v for k, v in schema.items() if k != "$schema"}))
    return usable


def positions(schema: Any, path: Path_ = (), depth: int = 0) -> list[tuple[Path_, tuple[str, ...]]]:
    """Every (value path, schema pointer parts) reachable through properties and items, root first."""
    out: list[tuple[Path_, tuple[str, ...]]] = []
    if not isinstance(schema, dict) or depth > 4:
        return out
    out.append((path, ()))
    props = schema.get("properties")
    if isinstance(props, dict):
        for name, sub in props.items():
            for p, ptr in positions(sub, (*path, name), depth + 1):
                out.append((p, ("properties", name, *ptr)))
    items = schema.get("items")
    if isinstance(items, dict):
        for p, ptr in positions(items, (*path, "[]"), depth + 1):
            out.append((p, ("items", *ptr)))
    return out


def at(schema: Any, ptr: tuple[str, ...]) -> Any:
    for part in ptr:
        schema = schema[part]
    return schema


# --- the mutations: each takes the subschema (a copy, edited in place) and a draw function ----------

Draw = Callable[[st.SearchStrategy[Any]], Any]
SAMPLE_VALUES: tuple[Any, ...] = (0, 1, -1, 2.5, "", "a", "zz", True, None, [], {})
FORMATS = ("email", "date", "uuid", "ipv4", "date-time", "uri")
PATTERNS = ("^[a-z]+$", "^[0-9]{2,}$", "^A", "x", "^.{0,3}$")


def _types(sub: dict[str, Any]) -> list[str]:
    t = sub.get("type")
    return [t] if isinstance(t, str) else list(t) if isinstance(t, list) else []


def _optional_first(sub: dict[str, Any]) -> list[str]:
    """The object's property names, optional ones first (hypothesis favours early choices)."""
    required = sub.get("required") if isinstance(sub.get("required"), list) else []
    return sorted(sub["properties"], key=lambda n: (n in required, n))


def m_drop_property(sub: dict[str, Any], draw: Draw) -> bool:
    props = sub.get("properties")
    if not isinstance(props, dict) or not props:
        return False
    name = draw(st.sampled_from(_optional_first(sub)))
    del props[name]
    if isinstance(sub.get("required"), list) and name in sub["required"]:
        sub["required"] = [r for r in sub["required"] if r != name]
    return True


def m_rename_property(sub: dict[str, Any], draw: Draw) -> bool:
    props = sub.get("properties")
    if not isinstance(props, dict) or not props:
        return False
    name = draw(st.sampled_from(_optional_first(sub)))
    props[name + "_v2"] = props.pop(name)
    if isinstance(sub.get("required"), list):
        sub["required"] = [r + "_v2" if r == name else r for r in sub["required"]]
    return True


def m_add_required(sub: dict[str, Any], draw: Draw) -> bool:
    props = sub.get("properties")
    if not isinstance(props, dict):
        return False
    required = list(sub.get("required", [])) if isinstance(sub.get("required"), list) else []
    optional = sorted(set(props) - set(required))
    name = draw(st.sampled_from([*optional, "added_name"]))
    if name == "added_name":
        props[name] = {"type": "string"}
    sub["required"] = sorted({*required, name})
    return True


def m_add_optional(sub: dict[str, Any], draw: Draw) -> bool:
    if "object" not in _types(sub) and "properties" not in sub:
        return False
    sub.setdefault("properties", {})["added_option"] = draw(
        st.sampled_from([{"type": "integer", "minimum": 0}, {"type": "string"}]))
    return True


def m_map_values(sub: dict[str, Any], draw: Draw) -> bool:
    """An open object becomes a map of strings (or a map's value schema changes)."""
    if "object" not in _types(sub) and "properties" not in sub:
        return False
    sub["additionalProperties"] = draw(st.sampled_from([{"type": "string"}, {"type": "integer"}, {}]))
    return True


def with_map(schema: dict[str, Any], ptr: tuple[str, ...], draw: Draw) -> bool:
    """A seed variant (both versions): the object at ptr also takes any other name (a map of scalars)."""
    sub = at(schema, ptr)
    if ("object" not in _types(sub) and "properties" not in sub) or "additionalProperties" in sub:
        return False
    sub["additionalProperties"] = draw(st.sampled_from([{"type": "string"}, {"type": ["string", "integer", "null"]}]))
    if draw(st.booleans()):
        sub.pop("required", None)  # every property optional: removing one is then a question of the map
    return True


def m_close_object(sub: dict[str, Any], draw: Draw) -> bool:
    if "object" not in _types(sub) and "properties" not in sub:
        return False
    if sub.get("additionalProperties") is False:
        sub.pop("additionalProperties")
    else:
        sub["additionalProperties"] = False
    return True


def m_narrow_type(sub: dict[str, Any], draw: Draw) -> bool:
    types = _types(sub)
    if len(types) > 1:
        sub["type"] = draw(st.sampled_from(types))
    elif types == ["number"]:
        sub["type"] = "integer"
    elif not types:
        sub["type"] = draw(st.sampled_from(["string", "object", "integer"]))
    else:
        sub["type"] = draw(st.sampled_from([t for t in ("string", "integer", "boolean") if t != types[0]]))
    return True


def m_widen_type(sub: dict[str, Any], draw: Draw) -> bool:
    types = _types(sub)
    if not types:
        return False
    extra = draw(st.sampled_from([t for t in ("null", "string", "integer", "number") if t not in types] or ["null"]))
    sub["type"] = sorted({*types, extra})
    return True


def m_nullable(sub: dict[str, Any], draw: Draw) -> bool:
    types = _types(sub)
    if "null" in types:
        rest = [t for t in types if t != "null"]
        sub["type"] = rest[0] if len(rest) == 1 else rest
        return bool(rest)
    any_of = sub.get("anyOf")
    if isinstance(any_of, list) and {"type": "null"} in any_of and len(any_of) == 2:
        other = next(b for b in any_of if b != {"type": "null"})
        sub.pop("anyOf")
        sub.update(other)
        return True
    if types:
        sub["type"] = [*types, "null"]
        return True
    return False


def m_enum(sub: dict[str, Any], draw: Draw) -> bool:
    enum = sub.get("enum")
    if isinstance(enum, list) and enum:
        if len(enum) > 1 and draw(st.booleans()):
            sub["enum"] = [v for v in enum if v != draw(st.sampled_from(enum))]
        else:
            sub["enum"] = [*enum, draw(st.sampled_from(["added_value", 99]))]
        return True
    types = _types(sub)
    if types == ["string"]:
        sub["enum"] = draw(st.sampled_from([["a", "b"], [""], ["low", "high"]]))
        return True
    return False


def m_const(sub: dict[str, Any], draw: Draw) -> bool:
    if "const" in sub:
        sub["const"] = draw(st.sampled_from([c for c in SAMPLE_VALUES if c != sub["const"]]))
    else:
        sub["const"] = draw(st.sampled_from(SAMPLE_VALUES[:7]))
    return True


def m_bounds(sub: dict[str, Any], draw: Draw) -> bool:
    types = _types(sub) or ["number"]
    kind = draw(st.sampled_from(types))
    keys = {"integer": ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"),
            "number": ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"),
            "string": ("minLength", "maxLength"), "array": ("minItems", "maxItems", "uniqueItems"),
            "object": ("minProperties", "maxProperties")}.get(kind)
    if not keys:
        return False
    key = draw(st.sampled_from(keys))
    if key in sub and draw(st.booleans()):
        del sub[key]  # loosen
    elif key == "uniqueItems":
        sub[key] = True
    elif key == "multipleOf":
        sub[key] = draw(st.sampled_from([2, 0.5, 3]))
    else:
        current = sub.get(key)
        base = current if isinstance(current, int | float) and not isinstance(current, bool) else 1
        sub[key] = max(0, base + draw(st.sampled_from([-2, -1, 1, 2, 5])))
    return True


def _string_keyword(keyword: str, choices: tuple[str, ...]) -> Callable[[dict[str, Any], Draw], bool]:
    """A mutation that removes, adds or changes one string keyword (pattern, format)."""
    def mutate(sub: dict[str, Any], draw: Draw) -> bool:
        if _types(sub) not in (["string"], []):
            return False
        if keyword in sub and draw(st.booleans()):
            del sub[keyword]
        else:
            sub[keyword] = draw(st.sampled_from([c for c in choices if c != sub.get(keyword)]))
        return True
    mutate.__name__ = f"m_{keyword}"
    return mutate


m_pattern = _string_keyword("pattern", PATTERNS)
m_format = _string_keyword("format", FORMATS)


def m_wrap(sub: dict[str, Any], draw: Draw) -> bool:
    inner = dict(sub)
    other = draw(st.sampled_from([{"type": "null"}, {"type": "string"}, {"type": "integer", "minimum": 0},
                                  dict(inner)]))
    keyword = draw(st.sampled_from(["anyOf", "oneOf"]))
    sub.clear()
    sub[keyword] = [inner, other]
    return True


def m_items(sub: dict[str, Any], draw: Draw) -> bool:
    items = sub.get("items")
    if not isinstance(items, dict):
        return False
    sub["items"] = draw(st.sampled_from([{"type": "string"}, {"type": "integer"}, {**items, "minLength": 2},
                                         {**items, "type": "object", "additionalProperties": False}, {}]))
    return True


def m_object_keyword(sub: dict[str, Any], draw: Draw) -> bool:
    """dependentRequired, propertyNames, if/then or not on an object (added, or removed when present)."""
    props = sub.get("properties")
    if not isinstance(props, dict) or not props:
        return False
    names = sorted(props)
    first, last = names[0], names[-1]
    keyword, value = draw(st.sampled_from([
        ("dependentRequired", {first: [last]} if first != last else {first: ["added_name"]}),
        ("propertyNames", {"maxLength": 12}),
        ("if", {"required": [first]}),
        ("not", {"required": [last]}),
    ]))
    if keyword in sub:
        del sub[keyword]
        sub.pop("then", None)
    else:
        sub[keyword] = value
        if keyword == "if":
            sub["then"] = {"required": [last]} if first != last else {"maxProperties": 1}
    return True


MUTATIONS: dict[str, Callable[[dict[str, Any], Draw], bool]] = {
    f.__name__[2:]: f for f in (m_drop_property, m_rename_property, m_add_required, m_add_optional, m_close_object,
                                m_narrow_type, m_widen_type, m_nullable, m_enum, m_const, m_bounds, m_pattern,
                                m_format, m_wrap, m_items, m_map_values, m_object_keyword)
}


def move_to_defs(schema: dict[str, Any], ptr: tuple[str, ...]) -> bool:
    """A meaning-preserving edit that must produce no ERR: the subschema at ptr moves into $defs."""
    try:
        if not ptr or "$ref" in json.dumps(at(schema, ptr)):
            return False
    except (KeyError, TypeError):  # a second edit removed that position
        return False
    parent = at(schema, ptr[:-1])
    schema.setdefault("$defs", {})["moved"] = parent[ptr[-1]]
    parent[ptr[-1]] = {"$ref": "#/$defs/moved"}
    return True


# --- values the old schema accepts ------------------------------------------------------------------

def literal_candidates(sub: Any) -> list[Any]:
    """Values named by the schema itself, and values at and around its bounds."""
    if not isinstance(sub, dict):
        return list(SAMPLE_VALUES)
    out: list[Any] = []
    for key in ("enum", "examples"):
        if isinstance(sub.get(key), list):
            out.extend(sub[key])
    for key in ("const", "default"):
        if key in sub:
            out.append(sub[key])
    for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        bound = sub.get(key)
        if isinstance(bound, int | float) and not isinstance(bound, bool):
            out.extend([bound, bound - 1, bound + 1, bound - 0.5, bound + 0.5])
    for key in ("minLength", "maxLength"):
        if isinstance(sub.get(key), int):
            out.extend(["a" * max(0, sub[key] + d) for d in (-1, 0, 1)])
    for key in ("minItems", "maxItems"):
        if isinstance(sub.get(key), int):
            out.extend([["a"] * max(0, sub[key] + d) for d in (-1, 0, 1)] + [[0] * sub[key]])
    out.extend(["a@example.com", "2024-01-31", "2024-01-31T10:00:00Z", "123e4567-e89b-12d3-a456-426614174000",
                "127.0.0.1", "https://example.com/x", "abc", "12", "A", "x", 3, 0.5, 7, 100, [1, 1], [{}]])
    for branch in (*sub.get("anyOf", []), *sub.get("oneOf", [])):
        out.extend(literal_candidates(branch))
    out.extend(SAMPLE_VALUES)
    return out


def drawn_candidates(sub: Any, draw: Draw, count: int = 3, root: dict[str, Any] | None = None) -> list[Any]:
    """Values hypothesis-jsonschema generates for a schema, whole objects included (local ``$ref``s are
    read against ``root``'s ``$defs``); a schema it cannot handle gives none. Needs a hypothesis its
    internals still fit (pyproject's test extra pins the range)."""
    if not isinstance(sub, dict):
        return []
    if root is not None and isinstance(root.get("$defs"), dict) and sub is not root:
        sub = {**sub, "$defs": root["$defs"]}
    strategy = _strategy(json.dumps(sub, sort_keys=True), count)
    if strategy is None:
        return []
    try:
        return list(draw(strategy))
    except InvalidArgument:  # a strategy it built wrong for this schema (max_size=0 < min_size=1)
        return []
    except HypothesisException:
        raise  # a rejected draw is hypothesis's own control flow
    except Exception:  # noqa: BLE001 - a keyword it reads differently fails mid-draw
        return []


@functools.lru_cache(maxsize=4096)
def _strategy(schema_text: str, count: int) -> st.SearchStrategy[list[Any]] | None:
    """hypothesis-jsonschema's strategy for a schema (built once per schema text; None when it cannot
    handle the schema). It is given its own copy: it inlines $refs into the schema it is given."""
    from hypothesis_jsonschema import from_schema

    try:
        strategy = st.lists(from_schema(json.loads(schema_text)), min_size=1, max_size=count)
        strategy.validate()  # builds it now: a schema it cannot handle fails here, before any draw
    except Exception:  # noqa: BLE001 - its schema support is partial (unsatisfiable, unsupported keywords)
        return None
    return strategy


def base_objects(schema: dict[str, Any], draw: Draw) -> list[Any]:
    """Whole argument objects the old schema accepts: its examples and a built minimal object."""
    check = validator(schema)
    out = [e for e in schema.get("examples", []) if accepts(check, e)] if isinstance(schema.get("examples"), list) else []
    built = build(schema, schema, draw, 0)
    if accepts(check, built):
        out.append(built)
    out.extend(value for value in drawn_candidates(schema, draw, 2) if accepts(check, value))
    return out or [{}]


def build(sub: Any, root: dict[str, Any], draw: Draw, depth: int) -> Any:
    """A small value meant to be valid under sub: every required property, from the first candidate that fits."""
    if not isinstance(sub, dict) or depth > 6:
        return {}
    if "$ref" in sub and isinstance(sub["$ref"], str) and sub["$ref"].startswith("#/"):
        target: Any = root
        for part in sub["$ref"][2:].split("/"):
            target = target.get(part, {}) if isinstance(target, dict) else {}
        return build(target, root, draw, depth + 1)
    if "object" in _types(sub) or "properties" in sub:
        props = sub.get("properties", {}) if isinstance(sub.get("properties"), dict) else {}
        return {name: build(props.get(name, {}), root, draw, depth + 1)
                for name in sub.get("required", []) if isinstance(name, str)}
    wrapped = {**sub, "$defs": root.get("$defs", {})} if "$defs" in root else sub
    try:
        check = validator(wrapped)
    except Exception:  # noqa: BLE001
        return None
    for value in [*drawn_candidates(sub, draw, 2, root), *literal_candidates(sub)]:
        if accepts(check, value):
            return value
    return None


def place(base: Any, path: Path_, value: Any) -> Any:
    """base with value written at path (containers created as needed; "[]" is one array element)."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    if head == "[]":
        return [place(base[0] if isinstance(base, list) and base else {}, rest, value)]
    out = dict(base) if isinstance(base, dict) else {}
    out[head] = place(out.get(head, {}), rest, value)
    return out


def without(base: Any, path: Path_) -> Any:
    if not path or not isinstance(base, dict) or path[0] == "[]":
        return base
    out = dict(base)
    if len(path) == 1:
        out.pop(path[0], None)
    elif path[0] in out:
        out[path[0]] = without(out[path[0]], path[1:])
    return out


#: the values a search builds its candidates from: whole objects of the old schema, and leaves for the
#: mutated position
Ingredients = tuple[list[Any], list[Any]]


def ingredients(old: dict[str, Any], new: dict[str, Any], path: Path_, draw: Draw) -> Ingredients:
    """Whole objects ``old`` accepts and values for the position at ``path`` (drawn, and named by either
    schema). Drawing is most of a trial's time: both readings of one pair search the same ingredients."""
    old_sub = _sub_at_path(old, path)
    new_sub = _sub_at_path(new, path)
    bases = base_objects(old, draw)
    leaves = [*drawn_candidates(old_sub, draw, root=old), *literal_candidates(old_sub), *literal_candidates(new_sub)]
    return bases, leaves


def source_values(old: dict[str, Any], new: dict[str, Any], path: Path_, draw: Draw, strict: bool,
                  drawn: Ingredients | None = None) -> Iterator[Any]:
    """Candidate values of ``old`` around the mutated position (not yet checked against it), from
    ``drawn`` (or from ingredients drawn here). For the output direction the caller passes the new
    schema as ``old`` (values it may now return)."""
    bases, leaves = drawn if drawn is not None else ingredients(old, new, path, draw)
    new_sub = _sub_at_path(new, path)
    for base in bases:
        yield base
        for leaf in leaves:
            yield place(base, path, leaf)
        for parent_len in range(len(path) + 1):
            yield without(base, path[:parent_len])
        obj_path = path if isinstance(new_sub, dict) and "properties" in new_sub else path[:-1]
        names = set(_props(_sub_at_path(new, obj_path))) | set(_props(_sub_at_path(old, obj_path)))
        for name in sorted(names):
            for leaf in SAMPLE_VALUES:
                candidate = place(base, (*obj_path, name), leaf)
                if strict or sendable(_sub_at_path(old, obj_path), name):
                    yield candidate
        if strict:
            yield place(base, (*obj_path, "undeclared_name"), 1)


def pruned(value: Any, schema: Any) -> Any:
    """value without the object members ``schema`` does not describe (a consumer never reads them)."""
    if isinstance(value, list):
        items = schema.get("items") if isinstance(schema, dict) else None
        return [pruned(v, items) for v in value]
    if not isinstance(value, dict) or not isinstance(schema, dict):
        return value
    extra = schema.get("additionalProperties")
    return {k: pruned(v, _props(schema).get(k, extra)) for k, v in value.items() if sendable(schema, k)}


def sendable(obj: Any, name: str) -> bool:
    """Whether callers of the old object sent ``name`` under the default policy: it declared the name,
    a patternProperties regex matches it, or additionalProperties gives the values of any other name
    a schema (a map)."""
    if not isinstance(obj, dict):
        return False
    patterns = obj.get("patternProperties") if isinstance(obj.get("patternProperties"), dict) else {}
    extra = obj.get("additionalProperties")
    return (name in _props(obj) or any(re.search(p, name) for p in patterns)
            or (isinstance(extra, dict) and extra not in ({}, {"not": {}})))


def _props(sub: Any) -> dict[str, Any]:
    return sub.get("properties", {}) if isinstance(sub, dict) and isinstance(sub.get("properties"), dict) else {}


def _sub_at_path(schema: Any, path: Path_) -> Any:
    for part in path:
        if not isinstance(schema, dict):
            return None
        if part == "[]":
            schema = schema.get("items")
        else:
            schema = _props(schema).get(part)
            if isinstance(schema, dict) and "$ref" in schema:
                return None
    return schema


# --- one trial -------------------------------------------------------------------------------------

def tool(schema: dict[str, Any], version: str, direction: Direction = Direction.INPUT) -> ToolVersion:
    """A tool version with ``schema`` as its input (or output) schema and a plain object on the other side."""
    slots = {"input_schema": {"type": "object"}, "output_schema": {"type": "object"}}
    slots["input_schema" if direction is Direction.INPUT else "output_schema"] = schema
    contract = Contract(name="t", version=version, summary="s", description="d", **slots)
    return ToolVersion(contract, f"{version}.yaml", {})


@dataclass
class Tally:
    trials: int = 0
    verdicts: Counter[str] = field(default_factory=Counter)
    false_negatives: list[str] = field(default_factory=list)  # silent, with a counterexample
    unproven: list[str] = field(default_factory=list)  # WARN only, with a counterexample
    bad_witnesses: list[str] = field(default_factory=list)
    by_mutation: Counter[str] = field(default_factory=Counter)
    err_confirmed: int = 0  # ERR verdicts the independent search also found a counterexample for


def trial(name: str, old: dict[str, Any], new: dict[str, Any], path: Path_, mutation: str, draw: Draw,
          tally: Tally, direction: Direction = Direction.INPUT) -> None:
    # input: a call old accepts and new refuses; output: a result new may return and old excluded
    src, dst = (old, new) if direction is Direction.INPUT else (new, old)
    src_check, dst_check = validator(src), validator(dst)
    drawn = ingredients(src, dst, path, draw)
    for strict in (False, True):
        reading = "strict" if strict else "default"
        report = run_diff([ToolPair(tool(old, "1.0.0", direction), tool(new, "2.0.0", direction))], [], DiffSettings(),
                          Context(date(2026, 1, 1), strict=strict))
        levels = set()
        for finding in report.findings:
            rule = RULES_BY_ID[finding.rule]
            if rule.direction is not direction:
                continue
            levels.add(finding.level)
            # input-property-removed-open's example call is valid on both sides by design (ignored argument)
            proves = finding.has_witness and finding.level is Level.BREAKING and rule.id != "input-property-removed-open"
            if proves and not (accepts(src_check, finding.witness) and accepts(dst_check, finding.witness) is False):
                tally.bad_witnesses.append(f"{name} {mutation} [{reading}] {finding.rule}: {finding.witness!r}")
        verdict = "ERR" if Level.BREAKING in levels else "WARN" if Level.DANGEROUS in levels else "quiet"
        tally.trials += 1
        tally.verdicts[f"{reading}:{verdict}"] += 1
        value = counterexample(src, dst, path, draw, strict, direction, drawn)
        if verdict == "ERR":
            tally.err_confirmed += value is not NOTHING
            continue
        if value is not NOTHING:
            line = (f"{name} {mutation} at {'/'.join(path) or '(root)'} [{reading}, {verdict}]: "
                    f"{json.dumps(value)[:200]}\n    old={json.dumps(old)[:600]}\n    new={json.dumps(new)[:600]}")
            (tally.false_negatives if verdict == "quiet" else tally.unproven).append(line)
            tally.by_mutation[mutation] += 1


NOTHING = object()


def counterexample(src: dict[str, Any], dst: dict[str, Any], path: Path_, draw: Draw, strict: bool,
                   direction: Direction = Direction.INPUT, drawn: Ingredients | None = None) -> Any:
    """A value ``src`` accepts and ``dst`` refuses, judged by python jsonschema (or NOTHING). Under the
    default reading, members the old schema does not describe are dropped first: a caller never sent
    them (input), a consumer never reads them (output). Candidates come from ``drawn`` when given."""
    src_check, dst_check = validator(src), validator(dst)
    described_by = None if strict else src if direction is Direction.INPUT else dst
    for value in source_values(src, dst, path, draw, strict, drawn):
        value = value if described_by is None else pruned(value, described_by)
        if accepts(src_check, value) and accepts(dst_check, value) is False:
            return value
    return NOTHING


def one_example(seeds: list[tuple[str, dict[str, Any]]], draw: Draw, tally: Tally, direction: Direction) -> None:
    name, schema = draw(st.sampled_from(seeds))
    spots = positions(schema)
    path, ptr = draw(st.sampled_from(spots))
    if draw(st.integers(0, 3)) == 0:
        schema = copy.deepcopy(schema)
        if with_map(schema, ptr, draw):
            name += "+map"
    mutation = draw(st.sampled_from(sorted(MUTATIONS)))
    new = copy.deepcopy(schema)
    if not MUTATIONS[mutation](at(new, ptr), draw) or new == schema:
        return
    if draw(st.integers(0, 3)) == 0:  # a second edit somewhere in the same version
        second = draw(st.sampled_from(sorted(MUTATIONS)))
        second_path, second_ptr = draw(st.sampled_from(positions(new)))
        if MUTATIONS[second](at(new, second_ptr), draw):
            mutation += "+" + second
            path = path if len(path) <= len(second_path) else second_path
    if draw(st.integers(0, 4)) == 0:
        move_to_defs(new, ptr)
    if any(META.iter_errors(new)):
        return
    trial(name, schema, new, path, mutation, draw, tally, direction)


def explore(examples: int, corpus: Path | None = CORPUS, direction: Direction = Direction.INPUT) -> Tally:
    """Run ``examples`` hypothesis examples (derandomized, no database) and count the verdicts. Output
    seeds are the same real object schemas (the corpus has no output schemas) plus the contracts' own."""
    from hypothesis import HealthCheck, given, settings

    seeds = seed_schemas(corpus)
    tally = Tally()

    @settings(max_examples=examples, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(st.data())
    def run(data: st.DataObject) -> None:
        one_example(seeds, data.draw, tally, direction)

    run()
    return tally


def summary(tally: Tally) -> str:
    err = sum(v for k, v in tally.verdicts.items() if k.endswith(":ERR"))
    lines = [f"{tally.trials} verdicts (2 readings per mutated pair): "
             + ", ".join(f"{k} {v}" for k, v in sorted(tally.verdicts.items())),
             f"false negatives (quiet, counterexample found): {len(tally.false_negatives)}",
             f"unproven (WARN only, counterexample found): {len(tally.unproven)}",
             f"ERR witnesses not valid-before/invalid-after: {len(tally.bad_witnesses)}",
             f"ERR verdicts the independent search confirms: {tally.err_confirmed} of {err}",
             f"counterexamples by mutation: {dict(sorted(tally.by_mutation.items()))}"]
    return "\n".join(lines)


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=600)
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--direction", choices=["input", "output"], default="input")
    args = parser.parse_args()
    result = explore(args.examples, direction=Direction(args.direction))
    print(summary(result))
    if args.verbose:
        print("\n".join([*result.false_negatives, *result.unproven, *result.bad_witnesses]))
    sys.exit(0)
