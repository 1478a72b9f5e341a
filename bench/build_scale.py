"""Benchmark `contractgen build` on 500 synthetic tools with varied schemas.

Compares, in the same run and on the same machine:
  * the cold build (empty cache, empty output) against running the `datamodel-codegen` CLI once per
    schema (input and output of every tool: the usual way people use it); the CLI loop is timed on a
    sample and extrapolated, which the output says;
  * a no-op rebuild (nothing changed) against the cold build;
  * a one-manifest change against the cold build.
Targets: cold build >= 10x faster than the CLI loop; no-op rebuild >= 20x faster than the cold build.

    python bench/build_scale.py [--tools 500] [--sample 50]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ERROR_CODES = ["INVALID_ARGUMENT", "NOT_FOUND", "CONFLICT", "FAILED_PRECONDITION", "PERMISSION_DENIED",
               "RATE_LIMITED", "UNAVAILABLE", "TIMEOUT"]


def synthetic_property(rng: random.Random, depth: int = 0) -> dict:
    kind = rng.choice(["string", "string_fmt", "enum", "integer", "number", "boolean", "array", "object",
                       "nullable"] if depth < 2 else ["string", "enum", "integer", "boolean"])
    if kind == "string":
        return {"type": "string", "minLength": 1, "maxLength": rng.choice([40, 200]), "description": "A text value."}
    if kind == "string_fmt":
        return {"type": "string", "format": rng.choice(["date", "date-time", "uri", "uuid", "email"]),
                "description": "A formatted value."}
    if kind == "enum":
        return {"enum": [f"v{i}" for i in range(rng.randint(2, 6))], "description": "One choice."}
    if kind == "integer":
        return {"type": "integer", "minimum": 0, "maximum": rng.choice([10, 1000]), "default": 1}
    if kind == "number":
        return {"type": "number", "exclusiveMinimum": 0}
    if kind == "boolean":
        return {"type": "boolean", "default": False}
    if kind == "array":
        return {"type": "array", "items": synthetic_property(rng, depth + 1), "maxItems": 20}
    if kind == "nullable":
        return {"type": ["string", "null"]}
    return synthetic_object(rng, depth + 1)


def synthetic_object(rng: random.Random, depth: int = 0) -> dict:
    names = rng.sample(["id", "name", "query", "limit", "class", "from", "page-size", "2fa", "status", "kind",
                        "owner", "created_at", "tags", "items", "filter", "sort", "note", "amount"],
                       rng.randint(2, 7))
    properties = {name: synthetic_property(rng, depth) for name in names}
    required = [n for n in names if rng.random() < 0.5]
    schema: dict = {"type": "object", "additionalProperties": rng.random() < 0.7, "properties": properties}
    if schema["additionalProperties"]:
        del schema["additionalProperties"]
    else:
        schema["additionalProperties"] = False
    if required:
        schema["required"] = required
    return schema


def synthetic_manifest(index: int, rng: random.Random) -> dict:
    input_schema = synthetic_object(rng)
    if rng.random() < 0.3:
        input_schema.setdefault("properties", {})["ref"] = {"$ref": "#/$defs/shared"}
        input_schema["$defs"] = {"shared": synthetic_object(rng, 1)}
    errors = [{"class": f"Failure{i}", "code": rng.choice(ERROR_CODES), "message": f"Failure {i} happened. Fix it."}
              for i in range(rng.randint(0, 3))]
    return {
        "name": f"tool_{index:04d}", "version": "1.0.0", "summary": f"Synthetic tool {index}.",
        "description": "Does synthetic work for the benchmark. Use it when benchmarking.",
        "input": input_schema, "output": synthetic_object(rng), "errors": errors,
        "timeout": {"seconds": rng.choice([5, 30])},
    }


def make_project(root: Path, count: int, seed: int) -> list[dict]:
    rng = random.Random(seed)
    (root / "pyproject.toml").write_text('[tool.contractgen]\ncontracts = "contracts"\noutput = "generated"\n')
    manifests = []
    for index in range(count):
        manifest = synthetic_manifest(index, rng)
        folder = root / "contracts" / manifest["name"]
        folder.mkdir(parents=True)
        (folder / "1.0.0.json").write_text(json.dumps(manifest, indent=1))
        manifests.append(manifest)
    return manifests


#: CPU seconds (user + system) of the last command, which a busy machine distorts far less than wall time
CPU: list[float] = []


def run(cmd: list[str], cwd: Path) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    if result.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{result.stderr[-2000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", type=int, default=500)
    parser.add_argument("--sample", type=int, default=50, help="datamodel-codegen CLI runs actually timed")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    build = [sys.executable, "-m", "contractgen", "build"]
    codegen = shutil.which("datamodel-codegen", path=str(Path(sys.executable).parent)) or "datamodel-codegen"
    with tempfile.TemporaryDirectory(prefix="contractgen-bench-") as scratch:
        root = Path(scratch)
        manifests = make_project(root, args.tools, args.seed)
        cold = run(build, root)
        cold_cpu = CPU[-1]
        modules = len(list((root / "generated").glob("*.py"))) - 1
        noops = [run(build, root) for _ in range(3)]
        noop = statistics.median(noops)
        noop_cpu = statistics.median(CPU[-3:])
        changed = root / "contracts" / manifests[0]["name"] / "1.0.0.json"
        data = json.loads(changed.read_text())
        data["summary"] = "Synthetic tool 0, changed."
        changed.write_text(json.dumps(data, indent=1))
        one_change = run(build, root)
        one_cpu = CPU[-1]

        schemas = [m[side] for m in manifests for side in ("input", "output")]
        sample = random.Random(args.seed).sample(schemas, min(args.sample, len(schemas)))
        cli_times, cli_cpu = [], []
        for index, schema in enumerate(sample):
            source = root / f"schema_{index}.json"
            source.write_text(json.dumps(schema))
            cli_times.append(run([codegen, "--input", str(source), "--input-file-type", "jsonschema",
                                  "--output", str(root / f"model_{index}.py"), "--output-model-type",
                                  "pydantic_v2.BaseModel", "--disable-timestamp", "--formatters", "builtin"],
                                 root))
            cli_cpu.append(CPU[-1])
        per_schema_cpu = statistics.mean(cli_cpu)
        per_schema = statistics.mean(cli_times)
        cli_total = per_schema * len(schemas)

    cli_cpu_total = per_schema_cpu * len(schemas)
    print(f"tools: {args.tools} ({modules} modules generated), schemas: {len(schemas)} (input + output)")
    print(f"{'':38}{'wall':>9}{'cpu':>9}")
    print(f"{'cold build (empty cache)':38}{cold:8.2f}s{cold_cpu:8.2f}s")
    print(f"{'datamodel-codegen CLI, per schema':38}{per_schema:8.3f}s{per_schema_cpu:8.3f}s  (mean of {len(sample)} timed runs)")
    print(f"{'datamodel-codegen CLI, all schemas':38}{cli_total:8.1f}s{cli_cpu_total:8.1f}s  (extrapolated: {len(schemas)} x mean)")
    print(f"{'no-op rebuild (median of 3)':38}{noop:8.3f}s{noop_cpu:8.3f}s")
    print(f"{'rebuild after one manifest changed':38}{one_change:8.2f}s{one_cpu:8.2f}s")
    print(f"cold build vs CLI loop:  {cli_total / cold:6.1f}x wall, {cli_cpu_total / cold_cpu:6.1f}x cpu faster (target >= 10x)")
    print(f"no-op vs cold build:     {cold / noop:6.1f}x wall, {cold_cpu / noop_cpu:6.1f}x cpu faster (target >= 20x)")
    print(f"one change vs cold:      {cold / one_change:6.1f}x wall, {cold_cpu / one_cpu:6.1f}x cpu faster")


if __name__ == "__main__":
    os.environ.pop("CONTRACTGEN_NO_CACHE", None)
    main()
