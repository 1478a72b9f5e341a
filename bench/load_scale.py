"""Benchmark: loading N synthetic manifests (parse + check + lower), fast paths against the reference.

Prints, all measured in this run: the pure-Python YAML parse against the libyaml parse, jsonschema's
meta-schema check of every embedded schema against the jsonschema-rs pre-check, and
``load_contracts`` end to end with the fast paths off and on. It also confirms that both ways give
identical results (values, positions, diagnostics); nothing here asserts a time.

    python bench/load_scale.py [--tools 1000] [--repeat 2] [--seed 11]
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import yaml

from contractgen.manifest import fast_validate, parse, schema_checks
from contractgen.manifest.load import LoadResult, load_contracts
from contractgen.manifest.parse import ParsedFile, parse_manifest_text

sys.path.insert(0, str(Path(__file__).resolve().parent))
from diff_scale import synthetic_tool

T = TypeVar("T")

EXTRA_PROPERTIES: tuple[Callable[[random.Random], dict[str, Any]], ...] = (
    lambda r: {"type": "string", "format": r.choice(["date", "date-time", "email", "uuid"]),
               "description": "A formatted value."},
    lambda r: {"type": "number", "exclusiveMinimum": 0, "multipleOf": 0.5, "description": "An amount."},
    lambda r: {"enum": [f"v{i}" for i in range(r.randint(2, 8))], "default": "v0",
               "description": "One choice."},
    lambda r: {"type": "object", "additionalProperties": False, "description": "A nested record.",
               "properties": {"street": {"type": "string", "maxLength": 80},
                              "zip": {"type": "string", "pattern": r"^\d{5}$", "examples": ["12345"]}}},
    lambda r: {"anyOf": [{"type": "string"}, {"type": "integer", "minimum": 0}],
               "description": "A name or a number."},
    lambda r: {"type": "array", "items": {"$ref": "#/$defs/filter"}, "maxItems": r.randint(1, 9),
               "description": "More filters."},
    lambda r: {"type": "boolean", "default": r.choice([True, False]), "description": "A switch."},
)


def varied_tool(index: int, rng: random.Random) -> dict[str, Any]:
    """The diff benchmark's tool with 0-10 extra input properties of several shapes."""
    tool = synthetic_tool(index, rng)
    properties = tool["input"]["properties"]
    for n in range(rng.randint(0, 10)):
        properties[f"extra_{n}"] = rng.choice(EXTRA_PROPERTIES)(rng)
    if rng.random() < 0.3:
        tool["output"]["properties"]["total"] = {"type": "integer", "minimum": 0}
    if rng.random() < 0.3:
        tool["deprecated"] = {"since": "1.0.0", "sunset": "2030-01-01"} if rng.random() < 0.2 else None
        if tool["deprecated"] is None:
            del tool["deprecated"]
    return tool


def write_tree(root: Path, count: int, seed: int) -> list[Path]:
    """Every fifth manifest is JSON, the rest YAML."""
    rng = random.Random(seed)
    files = []
    for index in range(count):
        tool = varied_tool(index, rng)
        folder = root / tool["name"]
        folder.mkdir(parents=True)
        if index % 5 == 4:
            path = folder / f"{tool['version']}.json"
            path.write_text(json.dumps(tool, indent=2), "utf-8")
        else:
            path = folder / f"{tool['version']}.yaml"
            path.write_text(yaml.safe_dump(tool, sort_keys=False), "utf-8")
        files.append(path)
    return files


@contextmanager
def reference_paths() -> Iterator[None]:
    """Turn both fast paths off: the pure-Python parser and jsonschema alone, as before them."""
    saved = parse.USE_LIBYAML, fast_validate.USE_JSONSCHEMA_RS
    parse.USE_LIBYAML, fast_validate.USE_JSONSCHEMA_RS = False, False
    try:
        yield
    finally:
        parse.USE_LIBYAML, fast_validate.USE_JSONSCHEMA_RS = saved


def best(repeat: int, work: Callable[[], T]) -> tuple[float, T]:
    times, result = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        result = work()
        times.append(time.perf_counter() - started)
    assert result is not None
    return min(times), result


def same_parse(a: ParsedFile, b: ParsedFile) -> bool:
    return (json.dumps(a.value, sort_keys=True), a.positions, a.key_positions, a.diagnostics) == (
        json.dumps(b.value, sort_keys=True), b.positions, b.key_positions, b.diagnostics)


def same_load(a: LoadResult, b: LoadResult) -> bool:
    return (a.diagnostics, a.files, a.contracts) == (b.diagnostics, b.files, b.contracts)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--tools", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        files = write_tree(root, args.tools, args.seed)
        raws = [(str(path), path.read_bytes()) for path in files]
        size = sum(len(raw) for _, raw in raws)
        print(f"{args.tools} manifests ({size / 1e6:.1f} MB, every fifth JSON), best of {args.repeat} runs;"
              f" libyaml {'available' if parse._FastLoader is not None else 'MISSING'}\n")

        slow_parse_time, slow_parsed = best(
            args.repeat, lambda: [parse_manifest_text(p, raw, fast=False) for p, raw in raws])
        fast_parse_time, fast_parsed = best(
            args.repeat, lambda: [parse_manifest_text(p, raw, fast=True) for p, raw in raws])
        parse_same = all(same_parse(a, b) for a, b in zip(slow_parsed, fast_parsed, strict=True))

        schemas = [copy.deepcopy(item.value[key]) for item in fast_parsed for key in ("input", "output")
                   if isinstance(item.value, dict) and isinstance(item.value.get(key), dict)]
        meta = schema_checks._META_VALIDATOR
        slow_meta_time, slow_meta = best(args.repeat, lambda: [not list(meta.iter_errors(s)) for s in schemas])
        fast_meta_time, fast_meta = best(args.repeat, lambda: [schema_checks.fast_meta_valid(s) for s in schemas])
        meta_same = slow_meta == fast_meta

        with reference_paths():
            slow_load_time, slow_load = best(args.repeat, lambda: load_contracts([root]))
        fast_load_time, fast_load = best(args.repeat, lambda: load_contracts([root]))
        load_same = same_load(slow_load, fast_load)

    rows = [
        ("parse: pure-Python YAML (reference)", slow_parse_time, slow_parse_time),
        ("parse: libyaml, pure-Python on any problem", fast_parse_time, slow_parse_time),
        (f"meta-schema: jsonschema iter_errors, {len(schemas)} schemas", slow_meta_time, slow_meta_time),
        ("meta-schema: jsonschema-rs pre-check", fast_meta_time, slow_meta_time),
        ("load_contracts: fast paths off (reference)", slow_load_time, slow_load_time),
        ("load_contracts: fast paths on", fast_load_time, slow_load_time),
    ]
    print(f"{'step':<56} {'seconds':>8}  {'x ref':>6}")
    for label, seconds, baseline in rows:
        print(f"{label:<56} {seconds:>8.3f}  {seconds / baseline:>6.3f}")
    print(f"\nspeed-up: parse {slow_parse_time / fast_parse_time:.1f}x, meta-schema "
          f"{slow_meta_time / fast_meta_time:.1f}x, load_contracts {slow_load_time / fast_load_time:.1f}x")
    print(f"identical results: parse {'yes' if parse_same else 'NO'}, meta-schema "
          f"{'yes' if meta_same else 'NO'}, load_contracts {'yes' if load_same else 'NO'} "
          f"({len(fast_load.contracts.tools)} contracts, {len(fast_load.diagnostics)} diagnostics)")
    return 0 if parse_same and meta_same and load_same else 1


if __name__ == "__main__":
    sys.exit(main())
