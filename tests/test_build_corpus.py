"""Real schemas: every MCP tool and tau-bench function in the shared corpus, wrapped as a manifest,
builds into importable code whose guard accepts a valid argument object and rejects an invalid one.

Tools that cannot build must fail with a clean diagnostic naming their manifest; the counts are
printed (run with -s) and checked against the corpus size.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from build_support import build, build_every_model, imported_package, make_project
from conftest import run_cli

from contractgen.runtime import reference_validator


def _corpus_tools(corpus: Path) -> list[tuple[str, str, dict[str, Any]]]:
    """(source, name, description, input schema) for every tool file in the corpus."""
    tools = []
    for path in sorted((corpus / "mcp_tools").glob("*/*.json")):
        data = json.loads(path.read_text("utf-8"))
        tools.append((f"mcp_tools/{path.parent.name}/{path.name}", data["name"], data.get("description") or "",
                      data.get("inputSchema") or {"type": "object"}))
    for path in sorted((corpus / "function_calling" / "tau_bench").glob("*/*.json")):
        function = json.loads(path.read_text("utf-8"))["function"]
        tools.append((f"tau_bench/{path.parent.name}/{path.name}", function["name"],
                      function.get("description") or "", function.get("parameters") or {"type": "object"}))
    return tools  # type: ignore[return-value]


def _errored_files(stderr: str) -> set[str]:
    """Manifests named by an error diagnostic (warnings do not block a build)."""
    return {line.split(":", 1)[0] for line in stderr.splitlines()
            if line.startswith("contracts/") and ": warning: " not in line}


def _manifest(name: str, description: str, schema: dict[str, Any]) -> dict[str, Any]:
    text = " ".join(description.split()) or f"The {name} tool."
    summary = re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0][:200]
    return {"name": name, "version": "1.0.0", "summary": summary, "description": text, "input": schema,
            "output": {"type": "object"}}


def valid_instance(schema: Any, root: dict[str, Any], depth: int = 0) -> Any:
    """A small instance meant to satisfy ``schema`` (checked with jsonschema by the caller)."""
    if not isinstance(schema, dict) or depth > 6:
        return {}
    if "$ref" in schema and isinstance(schema["$ref"], str) and schema["$ref"].startswith("#/"):
        node: Any = root
        for token in schema["$ref"][2:].split("/"):
            node = node.get(token.replace("~1", "/").replace("~0", "~"), {}) if isinstance(node, dict) else {}
        return valid_instance(node, root, depth + 1)
    for key in ("const",):
        if key in schema:
            return schema[key]
    if schema.get("enum"):
        return schema["enum"][0]
    for key in ("default",):
        if key in schema:
            return schema[key]
    if isinstance(schema.get("examples"), list) and schema["examples"]:
        return schema["examples"][0]
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            return valid_instance(schema[key][0], root, depth + 1)
    if isinstance(schema.get("allOf"), list) and schema["allOf"]:
        merged: dict[str, Any] = {}
        for part in schema["allOf"]:
            value = valid_instance(part, root, depth + 1)
            if isinstance(value, dict):
                merged.update(value)
        return merged
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object" or (kind is None and "properties" in schema):
        properties = schema.get("properties") or {}
        return {name: valid_instance(properties.get(name, {}), root, depth + 1)
                for name in schema.get("required", []) if isinstance(name, str)}
    if kind == "array":
        count = int(schema.get("minItems", 0))
        return [valid_instance(schema.get("items", {}), root, depth + 1) for _ in range(count)]
    if kind == "string":
        formats = {"date": "2026-01-31", "date-time": "2026-01-31T10:00:00Z", "email": "ana@example.com",
                   "uri": "https://example.com/x", "uuid": "12345678-1234-5678-1234-567812345678",
                   "time": "10:00:00"}
        text = formats.get(schema.get("format", ""), "abc")
        return text * max(1, -(-int(schema.get("minLength", 0)) // len(text)))
    if kind == "integer":
        return int(schema.get("minimum", 1))
    if kind == "number":
        return float(schema.get("minimum", 1))
    if kind == "boolean":
        return True
    if kind == "null":
        return None
    return {}


def invalid_instance(schema: dict[str, Any], valid: dict[str, Any]) -> Any:
    """Arguments the schema must reject: a missing required property, a wrong type, or not an object."""
    required = [r for r in schema.get("required", []) if isinstance(r, str)]
    if required:
        return {k: v for k, v in valid.items() if k != required[0]}
    for name, sub in (schema.get("properties") or {}).items():
        if isinstance(sub, dict) and sub.get("type") in ("string", "integer", "number", "boolean", "array", "object"):
            wrong = {"string": 12345, "integer": "not a number", "number": "not a number", "boolean": "maybe",
                     "array": "not a list", "object": "not an object"}[sub["type"]]
            return {**valid, name: wrong}
    return ["not", "an", "object"]


def test_corpus_tools_build_and_guard(corpus: Path, tmp_path: Path) -> None:
    tools = _corpus_tools(corpus)
    assert len(tools) >= 150
    root = make_project(tmp_path / "corpus")
    names: dict[str, int] = {}
    manifest_of: dict[str, tuple[str, dict[str, Any]]] = {}
    for source, name, description, schema in tools:
        names[name] = names.get(name, 0) + 1
        unique = name if names[name] == 1 else f"{name}_{names[name]}"
        manifest_of[f"contracts/{unique}/1.0.0.json"] = (source, _manifest(unique, description, schema))
    for relative, (_, manifest) in manifest_of.items():
        (root / relative).parent.mkdir(parents=True)
        (root / relative).write_text(json.dumps(manifest), "utf-8")

    # manifests `contractgen check` rejects are set aside with their (clean) diagnostics
    check = run_cli("check", cwd=root)
    assert "Traceback" not in check.stderr
    rejected = _errored_files(check.stderr)
    for relative in rejected:
        (root / relative).unlink()
    unbuildable: list[str] = []
    for _ in range(10):
        result = build(root, "--no-cache")
        assert "Traceback" not in result.stderr
        if result.returncode == 0:
            break
        failing = _errored_files(result.stderr)
        assert failing, result.stderr  # every failure names a manifest
        for relative in failing:
            unbuildable.append(f"{manifest_of[relative][0]}: {result.stderr.splitlines()[0]}")
            (root / relative).unlink()
    assert result.returncode == 0, result.stderr

    from contractgen.testing import check_contract

    accepted, rejected_invalid, no_valid_instance, proved = 0, 0, [], 0
    with imported_package(root) as package:
        for module_name in package.MODULES:
            stub = package.STUBS[module_name]
            assert build_every_model(getattr(package, module_name)) >= 2, module_name
            schema = json.loads(json.dumps(stub.contract.input_schema))
            guarded = stub.implement(lambda arguments: {})
            valid = valid_instance(schema, schema)
            if list(reference_validator.validator(schema, formats=False).iter_errors(valid)):
                no_valid_instance.append(module_name)
            else:
                envelope = guarded(valid)
                assert envelope["status"] == "ok", (module_name, valid, envelope)
                accepted += 1
                report = check_contract(stub, arguments=valid, raise_on_failure=False)
                assert report.ok, (module_name, report.failures)
                proved += 1
            invalid = invalid_instance(schema, valid if isinstance(valid, dict) else {})
            assert not reference_validator.validator(schema, formats=False).is_valid(invalid), (module_name, invalid)
            envelope = guarded(invalid)
            assert envelope["status"] == "error" and envelope["error"]["code"] == "INVALID_ARGUMENT", (module_name, envelope)
            rejected_invalid += 1
    built = len(package.MODULES)
    print(f"\ncorpus: {len(tools)} tools; {len(rejected)} rejected by check; {len(unbuildable)} with a build "
          f"diagnostic; {built} built and imported; {accepted} accepted a valid call "
          f"({len(no_valid_instance)} without a synthesized valid instance); {rejected_invalid} rejected an invalid one; "
          f"{proved} passed contractgen.testing.check_contract")
    for line in unbuildable:
        print("  cannot build:", line)
    assert built + len(rejected) + len(unbuildable) == len(tools)
    assert built >= 0.9 * len(tools), "most real schemas must build"
    assert accepted >= 0.9 * built
