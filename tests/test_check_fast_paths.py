"""The fast paths of loading (libyaml parse, jsonschema-rs pre-checks) agree with the reference
paths (pure-Python parse, jsonschema) on every input we can find or make: same values, positions,
diagnostics, and the same valid/invalid answer for every schema and manifest."""

from __future__ import annotations

import copy
import json
import math
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contractgen.manifest import fast_validate, parse
from contractgen.manifest.load import LoadResult, load_contracts
from contractgen.manifest.meta import _fast_manifest_validator, manifest_meta_schema
from contractgen.manifest.parse import ParsedFile, parse_manifest_text
from contractgen.manifest.schema_checks import fast_meta_valid, meta_schema_errors
from contractgen.runtime import reference_validator

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / ".." / "shared" / "corpus"
CASES = ROOT / "tests" / "cases"
BUNDLED = sorted((ROOT / "contracts").rglob("*.yaml"))
MANIFEST_FILES = sorted(
    p
    for p in [*CASES.rglob("*"), *BUNDLED]
    if p.suffix in (".yaml", ".yml", ".json") and p.is_file()
)
#: values that trip one library or the other: regex dialects, URIs, big and float integers, types
ODD_VALUES: tuple[Any, ...] = (
    None,
    [],
    {},
    "x",
    -1,
    1.0,
    1.5,
    True,
    2**70,
    "(",
    r"\p{L}",
    "(?P<n>a)",
    "a\n",
    "#/a b",
    "http://x y",
    "١٢",
    {"type": "strin"},
    {"pattern": "["},
)

needs_libyaml = pytest.mark.skipif(parse._FastLoader is None, reason="PyYAML without libyaml")


def _positions(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _positions(child, (*prefix, key))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from _positions(child, (*prefix, i))


def _with(value: Any, where: tuple[Any, ...], odd: Any) -> Any:
    changed = copy.deepcopy(value)
    target = changed
    for step in where[:-1]:
        target = target[step]
    target[where[-1]] = copy.deepcopy(odd)
    return changed


def _mutants(value: Any, limit: int) -> Iterator[Any]:
    """``value`` with each odd value at each of its first ``limit`` positions."""
    for where in list(_positions(value))[1 : limit + 1]:
        for odd in ODD_VALUES:
            yield _with(value, where, odd)


def _same_parse(text: bytes, name: str = "x.yaml") -> None:
    slow = parse_manifest_text(name, text, fast=False)
    fast = parse_manifest_text(name, text, fast=True)
    assert _parse_view(fast) == _parse_view(slow), text[:200]


def _parse_view(parsed: ParsedFile) -> tuple[Any, ...]:
    # repr keeps NaN comparable and tells 1 from 1.0 from True
    return (repr(parsed.value), parsed.positions, parsed.key_positions, parsed.diagnostics)


def _schema_accepted(schema: Any) -> bool:
    """The reference verdict: jsonschema under the 2020-12 meta-schema, with ``format: regex`` read
    as the guard's validator reads patterns (ECMA-262), the project's one regex semantics, and no
    other format asserted (``$ref`` and ``$id`` are resolved by their text)."""
    return not any(_REFERENCE_META.iter_errors(schema))


_REFERENCE_META = reference_validator.validator(jsonschema.Draft202012Validator.META_SCHEMA,
                                                format_checker=reference_validator.schema_format_checker())


# ---- parse: libyaml against pure-Python


@needs_libyaml
def test_every_case_and_bundled_manifest_parses_identically() -> None:
    assert len(MANIFEST_FILES) > 50
    for path in MANIFEST_FILES:
        _same_parse(path.read_bytes(), path.name)


@needs_libyaml
def test_corpus_files_parse_identically() -> None:
    if not CORPUS.is_dir():
        pytest.skip(f"shared corpus not found at {CORPUS}")
    files = sorted(CORPUS.glob("mcp_tools/*/*.json")) + sorted(
        CORPUS.glob("function_calling/tau_bench/*/*.json")
    )
    assert files
    for path in files:
        raw = path.read_bytes()
        _same_parse(raw, "x.json")
        data = json.loads(raw)
        _same_parse(yaml.safe_dump(data, sort_keys=False, allow_unicode=True).encode(), "x.yaml")
        _same_parse(yaml.safe_dump(data, default_flow_style=True).encode(), "x.yaml")


@needs_libyaml
@pytest.mark.parametrize(
    "text",
    [
        "a: yes\nb: no\nc: on\nd: 2027-06-30\ne: 0x1F\nf: 1_000\ng: .5\nh: ~\ni: .inf\nj: -.Inf\nk: .NaN\n",
        "a: 1e3\nb: +1\nc: 012\nd: 1.\ne: TRUE\nf: Null\ng: ''\nh: '1'\ni: !!str 3\nj: !!int '4'\n",
        "a: !!python/object:os.system x\nb: !!binary aGk=\nc: !!timestamp 2020-01-01\nd: !custom z\n",
        "%YAML 1.2\n---\na: 1\n",
        "%YAML 1.1\n---\na: 1\n",
        "a: &x [1, 2]\nb: *x\nc: *x\n",
        "a: &x [1, *x]\n",
        "a: 1\na: 2\n",
        "{a: 1, a: 2}",
        "a: *nope\n",
        "a: 1\n---\nb: 2\n",
        "---\n...\n",
        "# only a comment\n",
        "a: b\n\tc: d\n",
        "a: [1, 2\n",
        'a: "unterminated\n',
        "a:\n  - b\n - c\n",
        "? [a, b]\n: 1\n",
        "? {a: 1}\n: 2\n",
        "1: a\n2.5: b\nnull: c\ntrue: d\n",
        "a: |\n  line\n  two\nb: >-\n  folded\n  text\n",
        "a: x\x85b: y\u2028c: z\u2029d: w\n",
        "a: x\r\nb: y\rc: z\n",
        "emoji: \U0001f600\U0001f600 ok\nnext: [\U0001f600, b]\n",
        "a: \x00\n",
        "a: \x07bell\n",
        "a: \ufffe\n",
        "a: '\ud7ff'\n",
        "<<: {a: 1}\nb: 2\n",
        "a: {b: [c, {d: e}]}\n",
        "- a\n- b\n",
        "just a string",
        "a:\n" + "".join(" " * (i + 1) + f"k{i}:\n" for i in range(70)) + " " * 71 + "leaf\n",
        "[" * 70 + "]" * 70,
        "[" * 400 + "]" * 400,
        "[" * 1200 + "]" * 1200,
        (
            "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
            "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
            "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
        ),
    ],
)
def test_yaml_edge_cases_parse_identically(text: str) -> None:
    _same_parse(text.encode("utf-8", "surrogatepass"))
    _same_parse(text.encode("utf-8", "surrogatepass"), "x.json")


@needs_libyaml
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet="{}[]:,-?&*!|>'\"#%@`\n\r\t\x85\u2028 ab1.~é\U0001f600\x00", max_size=120))
def test_yaml_punctuation_parses_identically(text: str) -> None:
    _same_parse(text.encode())


@needs_libyaml
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_edited_manifests_parse_identically(data: st.DataObject) -> None:
    """A real manifest with a few characters inserted, deleted or replaced anywhere."""
    path = data.draw(st.sampled_from(BUNDLED))
    text = path.read_text("utf-8")
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(text)))
        piece = data.draw(
            st.sampled_from([" ", "\n", "\t", ":", "- ", "{", "]", "&a ", "*a", "'", "#"])
        )
        cut = data.draw(st.integers(0, 3))
        text = text[:at] + piece + text[at + cut :]
    _same_parse(text.encode(), path.name)


@needs_libyaml
def test_json_with_positions_parses_identically() -> None:
    for path in BUNDLED:
        data = parse_manifest_text(str(path), path.read_bytes()).value
        for indent in (None, 2, "\t"):
            _same_parse(json.dumps(data, indent=indent).encode(), "x.json")


# ---- meta-schema of embedded schemas: jsonschema-rs against jsonschema's check_schema


def _suite_schemas() -> list[Any]:
    suite = CORPUS / "json_schema_test_suite" / "tests" / "draft2020-12"
    if not suite.is_dir():
        pytest.skip(f"shared corpus not found at {CORPUS}")
    found: list[Any] = []
    for path in sorted(suite.rglob("*.json")):
        for group in json.loads(path.read_text("utf-8")):
            found.append(group["schema"])
            # test data often looks like a schema ({"type": ...}, {"minLength": -1}): both answers count
            found.extend(case["data"] for case in group["tests"])
    return found


def _corpus_schemas() -> list[Any]:
    files = sorted(CORPUS.glob("mcp_tools/*/*.json")) + sorted(
        CORPUS.glob("function_calling/tau_bench/*/*.json")
    )
    found: list[Any] = []
    for path in files:
        tool = json.loads(path.read_text("utf-8"))
        found.extend(
            v for k, v in _walk_items(tool) if k in ("inputSchema", "outputSchema", "parameters")
        )
    return found


def _walk_items(value: Any) -> Iterator[tuple[Any, Any]]:
    if isinstance(value, dict):
        for key, child in value.items():
            yield key, child
            yield from _walk_items(child)
    elif isinstance(value, list):
        for child in value:
            yield from _walk_items(child)


def _bundled_schemas() -> list[Any]:
    found: list[Any] = []
    for path in MANIFEST_FILES:
        value = parse_manifest_text(str(path), path.read_bytes()).value
        if isinstance(value, dict):
            found.extend(value[k] for k in ("input", "output") if k in value)
    return found


def _non_finite(value: Any) -> bool:
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, dict):
        return any(_non_finite(v) for v in value.values())
    return isinstance(value, list) and any(_non_finite(v) for v in value)


def _assert_meta_agrees(schemas: list[Any]) -> None:
    """Never a "yes" jsonschema would not give; a "no" jsonschema overrules only where
    jsonschema-rs cannot hold the value (NaN, infinity)."""
    # an odd value put where it already was gives the same mutant again (half of them): ask once per
    # distinct value; repr tells 1 from 1.0 from True, as the parse comparison above does
    distinct = list({repr(s): s for s in schemas}.values())
    answers = [(s, fast_meta_valid(s), _schema_accepted(s)) for s in distinct]
    false_accepts = [s for s, fast, reference in answers if fast and not reference]
    assert not false_accepts, json.dumps(false_accepts[:3], default=repr)[:2000]
    disagreements = [
        s for s, fast, reference in answers if fast != reference and not _non_finite(s)
    ]
    assert not disagreements, json.dumps(disagreements[:3], default=repr)[:2000]


def test_meta_check_agrees_on_the_json_schema_test_suite() -> None:
    schemas = _suite_schemas()
    assert len(schemas) > 1000
    _assert_meta_agrees(schemas)


def test_meta_check_agrees_on_corpus_and_bundled_schemas() -> None:
    if not CORPUS.is_dir():
        pytest.skip(f"shared corpus not found at {CORPUS}")
    schemas = _corpus_schemas() + _bundled_schemas()
    assert len(schemas) > 150
    _assert_meta_agrees(schemas)


def test_meta_check_agrees_with_odd_values_everywhere() -> None:
    """Every odd value at the first positions of a deterministic sample of schemas."""
    rng = random.Random(2020)
    pool = [s for s in _suite_schemas() if isinstance(s, dict) and s]
    sample = rng.sample(pool, 50) + _bundled_schemas()[::4]
    mutants = [m for schema in sample for m in _mutants(schema, 8)]
    assert len(mutants) > 5_000
    _assert_meta_agrees(mutants)


def test_meta_check_defers_to_jsonschema_on_non_finite_numbers() -> None:
    """jsonschema-rs cannot hold NaN or infinity; it says "no" and jsonschema decides."""
    for schema in ({"minimum": math.nan}, {"maximum": math.inf}, {"minimum": -math.inf}):
        assert not fast_meta_valid(schema)
        assert _schema_accepted(schema)
        assert meta_schema_errors(schema) == []
    assert meta_schema_errors({"type": math.inf})  # and jsonschema still finds real errors


def test_reference_switch_turns_the_pre_check_off() -> None:
    assert fast_meta_valid({"type": "string"})
    fast_validate.USE_JSONSCHEMA_RS = False
    try:
        assert not fast_meta_valid({"type": "string"})
    finally:
        fast_validate.USE_JSONSCHEMA_RS = True


# ---- manifest meta-schema: jsonschema-rs against jsonschema


def test_manifest_meta_check_agrees_with_odd_values_everywhere() -> None:
    is_valid = _fast_manifest_validator()
    assert is_valid is not None
    # the reference reads patterns as the guard does (a name or version ending in a newline fails `$`)
    reference = reference_validator.validator(manifest_meta_schema(), formats=False)
    manifests = [
        value
        for path in MANIFEST_FILES
        if isinstance(value := parse_manifest_text(str(path), path.read_bytes()).value, dict)
    ]
    extra = [{**manifests[0], "name": "bad\n"}, {**manifests[0], "version": "1.0.0\n"}]
    candidates = (
        manifests
        + extra
        + [
            m
            for base in BUNDLED[:4]
            for m in _mutants(parse_manifest_text(str(base), base.read_bytes()).value, 40)
        ]
    )
    assert len(candidates) > 1000
    assert not any(reference.is_valid(m) for m in extra)
    assert any(reference.is_valid(m) for m in candidates)
    assert any(not reference.is_valid(m) for m in candidates)
    disagreements = [m for m in candidates if is_valid(m) != reference.is_valid(m)]
    assert not disagreements, json.dumps(disagreements[:2], default=repr)[:2000]


# ---- end to end: load_contracts with the fast paths on and off


def _load(paths: list[Path], fast: bool) -> LoadResult:
    saved = parse.USE_LIBYAML, fast_validate.USE_JSONSCHEMA_RS
    parse.USE_LIBYAML = fast_validate.USE_JSONSCHEMA_RS = fast
    try:
        return load_contracts(paths)
    finally:
        parse.USE_LIBYAML, fast_validate.USE_JSONSCHEMA_RS = saved


def test_every_check_case_loads_identically_with_and_without_fast_paths() -> None:
    cases = sorted(p for p in (CASES / "check").iterdir() if p.is_dir())
    assert len(cases) > 50
    for case in cases:
        slow, fast = _load([case], False), _load([case], True)
        assert (fast.diagnostics, fast.files, fast.contracts) == (
            slow.diagnostics,
            slow.files,
            slow.contracts,
        ), case.name
