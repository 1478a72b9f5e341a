"""`contractgen import` on the dialects tool definitions are written in: BFCL/Gorilla type names,
draft-3 per-property `required`, `allowed_values`, draft-04/07 forms, OpenAPI `nullable`, and
`output_parameters`/`response` as output schemas.

One case directory per dialect under tests/cases/import/ (``source.json`` + ``expected.txt``: the exit
code and the exact report). Every imported sample tool is built with the real `contractgen build`;
its guard is called with probes derived from what the *source* says (its own reading of each
dialect, not the importer's), so a conversion that drops a constraint shows as "validates less than
written". The counts print with ``python -m pytest -q -s tests/test_import_dialects.py -k measure``.
"""

from __future__ import annotations

import difflib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from build_support import imported_package, make_project
from conftest import run_cli
from test_build_corpus import valid_instance

from contractgen.importer import plan_import, write_plan
from contractgen.importer.formats import extract_tools
from contractgen.manifest.parse import parse_manifest_text
from contractgen.runtime import reference_validator
from contractgen.runtime.pointer import resolve_pointer

CASES = Path(__file__).parent / "cases" / "import"
UPDATE_COMMAND = "python -m pytest tests/test_import_dialects.py --update-goldens"
CASE_NAMES = sorted(p.name for p in CASES.iterdir() if p.is_dir())
REFUSED = {"refused-all-problems", "name-clash"}


def _run_case(case: str, tmp_path: Path, *extra: str) -> Any:
    work = tmp_path / case
    shutil.copytree(CASES / case, work)
    return run_cli("import", "source.json", "--out", "out", *extra, cwd=work)


@pytest.mark.parametrize("case", CASE_NAMES)
def test_import_case(case: str, tmp_path: Path, update_goldens: bool) -> None:
    result = _run_case(case, tmp_path)
    assert "Traceback" not in result.stderr + result.stdout
    actual = f"exit: {result.returncode}\n{result.stderr}"
    expected_path = CASES / case / "expected.txt"
    if update_goldens:
        expected_path.write_text(actual, "utf-8")
    expected = expected_path.read_text("utf-8")
    if actual != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True),
                                            f"{case}/expected.txt", "actual"))
        pytest.fail(f"report differs from the golden:\n{diff}\nto accept the new output: {UPDATE_COMMAND}",
                    pytrace=False)
    assert result.returncode == (2 if case in REFUSED else 0)
    assert (tmp_path / case / "out").exists() == (case not in REFUSED)  # a refused import writes nothing


def test_refusal_lists_every_problem_of_every_tool(tmp_path: Path) -> None:
    """Not the first problem per tool: each planted problem of both tools is reported."""
    result = _run_case("refused-all-problems", tmp_path)
    assert result.returncode == 2
    for where in ("#/0/parameters/properties/when/type", "#/0/parameters/properties/title/minLenght",
                  "#/0/parameters/properties/room/type", "#/1/parameters/properties/text/maxlength",
                  "#/1/parameters/properties/style/allowed_values", "#/1/response/type"):
        assert f" {where}: " in result.stderr, (where, result.stderr)


def test_import_diagnostics_are_checks_own_text(tmp_path: Path) -> None:
    """The same problem gets the same message and hint from `import` (at the source) and `check`
    (at the manifest): import runs the manifest checks on what it would write."""
    schema = {"type": "object", "properties": {
        "when": {"type": "datetime", "description": "Start."},
        "title": {"type": "string", "minLenght": 1, "description": "Title."}}}
    (tmp_path / "tool.json").write_text(json.dumps({"name": "plan", "description": "Plan.",
                                                    "inputSchema": schema}), "utf-8")
    imported = run_cli("import", "tool.json", "--out", "out", cwd=tmp_path)
    manifest = {"name": "plan", "version": "1.0.0", "summary": "Plan.", "description": "Plan.",
                "input": schema, "output": {"type": "object", "required": ["ok"],
                                            "properties": {"ok": {"type": "boolean"}}}}
    (tmp_path / "contracts" / "plan").mkdir(parents=True)
    (tmp_path / "contracts" / "plan" / "1.0.0.json").write_text(json.dumps(manifest), "utf-8")
    checked = run_cli("check", "contracts", cwd=tmp_path)
    assert imported.returncode == checked.returncode == 2

    def problems(stderr: str, prefix: str) -> dict[str, str]:
        found, lines = {}, stderr.splitlines()
        for i, line in enumerate(lines):
            if f" #{prefix}/" in line:
                pointer, text = line.split(f" #{prefix}", 1)[1].split(": ", 1)
                hint = lines[i + 1] if i + 1 < len(lines) and lines[i + 1].startswith("    hint:") else ""
                found[pointer] = text + "\n" + hint
        return found

    from_import = problems(imported.stderr, "/inputSchema")
    from_check = problems(checked.stderr, "/input")
    assert set(from_import) == {"/properties/when/type", "/properties/title/minLenght"}, imported.stderr
    assert from_import == from_check, (imported.stderr, checked.stderr)


def test_json_report_and_from_flag(tmp_path: Path) -> None:
    result = _run_case("draft3-parameter-map", tmp_path, "--format", "json", "--from", "openai")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["exit_code"] == 0 and report["written"] is True
    assert sorted(t["name"] for t in report["imported"]) == ["ToolSearcher", "get_weather"]
    codes = {(c["pointer"], c["code"]) for c in report["conversions"]}
    assert ("/0/parameters", "parameter-map") in codes
    assert ("/0/parameters/city/required", "draft3-required") in codes
    assert ("/0/parameters/unit/allowed_values", "allowed-values") in codes
    assert ("/0/output_parameters/temperature/type", "type-name") in codes
    assert all(c["file"] == "source.json" and c["line"] for c in report["conversions"])
    refused = _run_case("refused-all-problems", tmp_path / "r", "--format", "json")
    report = json.loads(refused.stdout)
    assert refused.returncode == report["exit_code"] == 2 and report["written"] is False
    assert len([d for d in report["diagnostics"] if d["level"] == "error"]) == 6


def _manifest(path: Path) -> dict[str, Any]:
    parsed = parse_manifest_text(str(path), path.read_bytes())
    assert not parsed.diagnostics
    return parsed.value


def test_mcp_annotations_icons_and_meta(tmp_path: Path) -> None:
    source = (CASES / "mcp-annotations" / "source.json").read_bytes()
    plan = plan_import([("source.json", source)], tmp_path / "c")
    assert plan.ok and not write_plan(plan)
    listed = _manifest(tmp_path / "c" / "list_files" / "1.0.0.yaml")
    # read-only: idempotent and non-destructive whatever the other two hints said
    assert listed["annotations"] == {"read_only": True, "destructive": False, "idempotent": True,
                                     "open_world": False}
    assert listed["icons"] == [{"src": "https://example.com/icons/files.png", "mimeType": "image/png",
                                "sizes": ["48x48"]}]
    assert listed["meta"] == {"example.com/owner": "storage-team"}
    stat = _manifest(tmp_path / "c" / "stat_file" / "1.0.0.yaml")
    assert stat["annotations"] == {"read_only": True, "destructive": False, "idempotent": True}
    deleted = _manifest(tmp_path / "c" / "delete_file" / "1.0.0.yaml")
    assert deleted["annotations"]["idempotent"] is False
    timeout = next(e for e in deleted["errors"] if e["code"] == "TIMEOUT")
    assert timeout["retryable"] is False and timeout["action"] == "stop_and_tell_user"
    check = run_cli("check", "c", cwd=tmp_path)
    assert check.returncode == 0, check.stderr
    assert "timeout-retry-not-idempotent" not in check.stderr and "non-idempotent" not in check.stderr
    # icons and _meta reach the MCP exports: the generated MCP_TOOL and the served Tool
    build = run_cli("build", "--contracts", "c", "--output", "generated", "--no-cache", cwd=tmp_path)
    assert build.returncode == 0, build.stderr
    from contractgen.runtime.mcp_server import tool_definition

    with imported_package(tmp_path) as package:
        module = package.list_files_v1
        assert module.MCP_TOOL["icons"] == listed["icons"]
        assert module.MCP_TOOL["_meta"] == {"example.com/owner": "storage-team"}
        assert "icons" not in package.stat_file_v1.MCP_TOOL
        served = tool_definition(package.STUBS["list_files_v1"].implement(lambda arguments: {})).model_dump(
            by_alias=True,
            exclude_none=True)
        assert served["icons"] == listed["icons"]
        assert served["_meta"]["example.com/owner"] == "storage-team"
        assert served["_meta"]["contractgen/version"] == "1.0.0"


def test_clash_with_a_manifest_already_in_the_tree_is_refused(tmp_path: Path) -> None:
    existing = tmp_path / "c" / "getWeather" / "1.0.0.yaml"
    source = (CASES / "name-clash" / "source.json").read_bytes()
    first = json.loads(source)["tools"][1]
    plan = plan_import([("one.json", json.dumps(first).encode())], tmp_path / "c")
    assert plan.ok and not write_plan(plan) and existing.is_file()
    second = json.loads(source)["tools"][0]
    plan = plan_import([("two.json", json.dumps(second).encode())], tmp_path / "c")
    assert not plan.ok and not plan.files
    clash = [d for d in plan.diagnostics if d.code == "name-clash"]
    assert clash and "both class prefix 'GetWeather'" in clash[0].message, plan.diagnostics


# --- every imported sample builds a guard that holds what its source says ----------------------

#: how this test reads each dialect's type names (independently of the importer's table)
SOURCE_KINDS: dict[str, str | None] = {
    "dict": "object", "hashmap": "object", "object": "object", "list": "array", "arraylist": "array",
    "tuple": "array", "array": "array", "float": "number", "double": "number", "number": "number",
    "int": "integer", "long": "integer", "short": "integer", "byte": "integer", "integer": "integer",
    "bool": "boolean", "boolean": "boolean", "str": "string", "string": "string", "char": "string",
    "any": None,
}
WRONG = {"object": "not an object", "array": "not a list", "number": "not a number",
         "integer": 1.5, "boolean": "maybe", "string": 12345}
#: values outside what the type name allows
OUT_OF_TYPE = {"char": "ab", "byte": 128, "short": 40000}


def _source_input(document: Any, pointer: str, key: str) -> dict[str, Any]:
    schema = resolve_pointer(document, f"{pointer}/{key}")
    assert isinstance(schema, dict)
    return schema


def _as_object(schema: dict[str, Any]) -> tuple[dict[str, Any], set[str]]:
    """Properties and required names as the source states them: an object schema, or a map of
    parameter name -> spec, with draft-3 `required: true` on a property."""
    if isinstance(schema.get("type"), str) or "properties" in schema:
        properties = schema.get("properties", {})
        required = set(schema.get("required", [])) if isinstance(schema.get("required"), list) else set()
    else:
        properties, required = schema, set()
    required |= {name for name, spec in properties.items() if isinstance(spec, dict) and spec.get("required") is True}
    return properties, required


def _probes(spec: dict[str, Any]) -> list[tuple[str, Any, bool]]:
    """(what, value, must the guard accept it) for one property, from the source's own words."""
    declared = spec.get("type")
    names = declared if isinstance(declared, list) else [declared] if isinstance(declared, str) else []
    kinds = {SOURCE_KINDS.get(n.lower(), n.lower()) for n in names}
    nullable = "null" in kinds or spec.get("nullable") is True or spec.get("x-nullable") is True
    if isinstance(spec.get("enum"), list) and None not in spec["enum"]:
        nullable = False  # OpenAPI 3.0.3: nullable adds null to the type; an enum must still list it
    kinds.discard("null")
    out: list[tuple[str, Any, bool]] = []
    if len(kinds) == 1 and None not in kinds:
        kind = next(iter(kinds))
        out.append(("wrong type", WRONG[kind], False))
        out.append(("null", None, nullable))
        if names and names[0].lower() in OUT_OF_TYPE:
            out.append((f"outside {names[0]}", OUT_OF_TYPE[names[0].lower()], False))
    enum = spec.get("enum") or spec.get("allowed_values")
    if isinstance(enum, list) and all(isinstance(v, str) for v in enum):
        out.append(("not listed", "zz-not-listed", False))
    for bound, inclusive, step in (("minimum", "exclusiveMinimum", -1), ("maximum", "exclusiveMaximum", 1)):
        value = spec.get(bound)
        if isinstance(value, (int, float)):
            out.append((f"at exclusive {bound}" if spec.get(inclusive) is True else f"beyond {bound}",
                        value if spec.get(inclusive) is True else value + step, False))
    if spec.get("minLength") == 1:
        out.append(("empty", "", False))
    if isinstance(spec.get("items"), list) and spec.get("additionalItems") is False:
        out.append(("extra tuple item", [1.0] * (len(spec["items"]) + 1), False))
    return out


def _tools_of(case: str) -> tuple[Any, list[Any]]:
    document = json.loads((CASES / case / "source.json").read_text("utf-8"))
    return document, extract_tools(document, path="source.json").tools


def test_measure_dialect_samples(tmp_path: Path) -> None:
    root = make_project(tmp_path / "project")
    total = imported = converted = refused = 0
    planted: list[tuple[str, Any, Any]] = []  # (manifest name, source document, ImportedTool)
    unconverted: list[str] = []
    for index, case in enumerate(CASE_NAMES):
        document, tools = _tools_of(case)
        total += len(tools)
        prefix = f"d{index}_"
        plan = plan_import([("source.json", (CASES / case / "source.json").read_bytes())], root / "contracts",
                           prefix=prefix)
        if not plan.ok:
            refused += len(tools)
            assert case in REFUSED, [d.format() for d in plan.diagnostics]
            continue
        assert case not in REFUSED
        assert not write_plan(plan)
        imported += len(tools)
        by_source = {source_name: name for source_name, name, _ in plan.tools}
        for tool in tools:
            mine = [c for c in plan.conversions if c.pointer == tool.pointer or c.pointer.startswith(tool.pointer + "/")]
            converted += bool(mine)
            if not mine:
                unconverted.append(tool.name)
            planted.append((by_source[tool.name], document, tool))
    check = run_cli("check", "contracts", cwd=root)
    assert check.returncode == 0, check.stderr
    build = run_cli("build", "--no-cache", cwd=root)
    assert build.returncode == 0, build.stderr

    less: list[str] = []
    more: list[str] = []
    with imported_package(root) as package:
        stubs = {stub.contract.name: stub for stub in package.STUBS.values()}
        assert len(stubs) == imported
        for name, document, tool in planted:
            stub = stubs[name]
            schema = json.loads(json.dumps(stub.contract.input_schema))
            valid = _valid_call(schema)
            assert reference_validator.validator(schema, formats=False).is_valid(valid), (name, valid)
            result = _result_for(stub)
            guarded = stub.implement(lambda arguments, result=result: result)
            envelope = guarded(valid)
            assert envelope["status"] == "ok", (name, valid, envelope)
            properties, required = _as_object(_source_input(document, tool.pointer, tool.input_key))
            for prop in sorted(required):
                missing = {k: v for k, v in valid.items() if k != prop}
                if guarded(missing)["status"] == "ok":
                    less.append(f"{name}: missing required {prop!r} accepted")
            for prop, spec in properties.items():
                if not isinstance(spec, dict):
                    continue
                for what, value, accept in _probes(spec):
                    status = guarded({**valid, prop: value})["status"]
                    if status == "ok" and not accept:
                        less.append(f"{name}: {prop!r} {what} ({value!r}) accepted")
                    elif status != "ok" and accept:
                        more.append(f"{name}: {prop!r} {what} ({value!r}) refused")
            if tool.output_key is not None and tool.output_schema is not None:
                _, out_required = _as_object(_source_input(document, tool.pointer, tool.output_key))
                if out_required and stub.implement(lambda arguments: {})(valid)["status"] == "ok":
                    less.append(f"{name}: a result without {sorted(out_required)} accepted")
    print(f"\ndialect samples ({len(CASE_NAMES)} cases, {total} tools): imported {imported}/{total} "
          f"({imported / total:.0%}), converted {converted}/{total} ({converted / total:.0%}), refused "
          f"{refused}/{total} ({refused / total:.0%}), built but validates less than written: {len(less)}, "
          f"validates more than written: {len(more)}")
    for line in less + more:
        print("  ", line)
    assert not less and not more
    # every sample tool needs converting, but for two written in 2020-12 already (a `response` schema,
    # an MCP tool whose hints need no reading)
    assert sorted(unconverted) == ["delete_file", "get_stock_price"]


def test_corpus_tools_import_into_guards_that_hold(corpus: Path, imported_corpus: Path, tmp_path: Path) -> None:
    """Every tool of the shared corpus (MCP servers, tau-bench OpenAI tools) imports, builds, and its
    guard accepts a valid call and rejects, for every required property, the call without it and the
    call with a value of the wrong type (for a tool with none required: a wrong-typed property)."""
    from build_support import read_bytes_tree
    from corpus_support import corpus_groups

    root = make_project(tmp_path / "project")
    total = 0
    for index, group in enumerate(corpus_groups(corpus)):
        sources = [(str(p), p.read_bytes()) for p in sorted(group.glob("*.json"))]
        total += len(sources)
        plan = plan_import(sources, root / "contracts", prefix=f"g{index}_")
        assert plan.ok, [d.format() for d in plan.diagnostics if d.level.value == "error"]
        assert not write_plan(plan)
    # the library import wrote exactly what the session's `contractgen import` runs wrote, so the
    # session's build of those contracts (`imported_corpus`) is this build
    assert read_bytes_tree(root / "contracts") == read_bytes_tree(imported_corpus / "contracts")
    probes = 0
    failures: list[str] = []
    with imported_package(imported_corpus) as package:
        assert len(package.STUBS) == total
        for module, stub in package.STUBS.items():
            schema = json.loads(json.dumps(stub.contract.input_schema))
            valid = _valid_call(schema)
            if not reference_validator.validator(schema, formats=False).is_valid(valid):
                failures.append(f"{module}: no valid call synthesised")
                continue
            guarded = stub.implement(lambda arguments: {})
            if guarded(valid)["status"] != "ok":
                failures.append(f"{module}: valid call {valid!r} refused")
            properties = schema.get("properties", {})
            required = [r for r in schema.get("required", []) if r in properties]
            typed = [p for p, s in properties.items() if isinstance(s, dict) and s.get("type") in WRONG]
            for prop in required or typed[:1]:
                calls = [({k: v for k, v in valid.items() if k != prop}, "missing")] if prop in required else []
                kind = properties[prop].get("type") if isinstance(properties[prop], dict) else None
                if kind in WRONG:
                    calls.append(({**valid, prop: WRONG[kind]}, "wrong type"))
                for call, what in calls:
                    probes += 1
                    envelope = guarded(call)
                    if envelope["status"] != "error" or envelope["error"]["code"] != "INVALID_ARGUMENT":
                        failures.append(f"{module}: {prop!r} {what} accepted")
    print(f"\ncorpus: {total} tools imported and built; {probes} missing/wrong-type probes; failures: {len(failures)}")
    assert not failures, failures


def _valid_call(schema: dict[str, Any]) -> dict[str, Any]:
    """``valid_instance`` (which knows no ``maxLength``), strings cut to their ``maxLength``."""
    valid = valid_instance(schema, schema)
    for name, value in valid.items():
        limit = schema.get("properties", {}).get(name, {}).get("maxLength")
        if isinstance(value, str) and isinstance(limit, int):
            valid[name] = value[:limit]
    return dict(valid)


def _result_for(stub: Any) -> dict[str, Any]:
    output = json.loads(json.dumps(stub.contract.output_schema))
    value = valid_instance(output, output)
    return value if isinstance(value, dict) else {}


def test_output_required_only_from_the_results_own_examples(tmp_path: Path) -> None:
    source = json.loads((CASES / "response-output" / "source.json").read_text("utf-8"))
    without_examples = json.loads(json.dumps(source[2]))
    without_examples["name"] = "get_order_status_no_examples"
    del without_examples["response"]["examples"]
    plan = plan_import([("source.json", json.dumps([*source, without_examples]).encode())], tmp_path / "c")
    assert plan.ok and not write_plan(plan)
    proposed = _manifest(tmp_path / "c" / "get_order_status" / "1.0.0.yaml")["output"]
    assert proposed["required"] == ["status", "eta"]  # carrier is missing from the second example
    assert "required" not in _manifest(tmp_path / "c" / "get_order_status_no_examples" / "1.0.0.yaml")["output"]
    assert _manifest(tmp_path / "c" / "get_stock_price" / "1.0.0.yaml")["output"]["required"] == ["price", "currency"]


@pytest.mark.parametrize("draft", ["draft-04", "draft-06", "draft-07", "draft/2019-09", None])
def test_keywords_beside_a_ref_that_start_to_apply_are_listed(draft: str | None) -> None:
    """Up to draft-07 a ``$ref`` overrides the keywords beside it; read as 2020-12 they apply, so the
    imported guard refuses calls the source's validator accepted (``"abc"`` under ``maxLength: 2``).
    The conversion was silent; each such place is now listed (annotations beside it change nothing)."""
    from contractgen.importer.dialects import convert_schema

    schema: dict[str, Any] = {"type": "object", "definitions": {"q": {"type": "string"}},
                              "properties": {"a": {"$ref": "#/definitions/q", "maxLength": 2, "description": "a"},
                                             "b": {"$ref": "#/definitions/q", "description": "b", "title": "B"},
                                             "c": {"type": "array", "items": {"$ref": "#/definitions/q", "enum": ["x"]}}}}
    if draft is not None:
        schema["$schema"] = f"http://json-schema.org/{draft}/schema#"
    listed = {(c.pointer, c.code) for c in convert_schema(schema).conversions if c.code == "ref-siblings"}
    expected = {("/properties/a/$ref", "ref-siblings"), ("/properties/c/items/$ref", "ref-siblings")}
    assert listed == (expected if draft in ("draft-04", "draft-06", "draft-07") else set())


def test_imported_content_keywords_become_patterns_check_accepts(tmp_path: Path) -> None:
    """`contentEncoding: base64|base64url|base16` was copied into the manifest, which check refuses
    (content-not-enforced): the imported tool failed check. Import now writes the pattern check's hint
    gives (one table: unkept_annotations.ENCODING_PATTERNS), beside the author's own pattern when there
    is one, and drops contentMediaType / contentSchema with a note; the imported tool passes check and
    its schema refuses what is not in the encoding."""
    import base64

    from contractgen.manifest.unkept_annotations import CONTENT_KEYWORDS, ENCODING_PATTERNS

    result = _run_case("content-keywords", tmp_path)
    assert result.returncode == 0, result.stderr
    work = tmp_path / "content-keywords"
    checked = run_cli("check", "out", cwd=work)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    schema = _manifest(work / "out" / "upload_report" / "1.0.0.yaml")["input"]
    assert not any(key in CONTENT_KEYWORDS for _, key in _all_keys(schema))
    assert schema["properties"]["body"]["pattern"] == ENCODING_PATTERNS["base64"]
    assert schema["properties"]["token"]["pattern"] == ENCODING_PATTERNS["base64url"]
    check = reference_validator.validator(schema, formats=False)
    data = bytes(range(200, 233))
    good = {"body": base64.b64encode(data).decode(), "digest": data[:32].hex(),
            "token": base64.urlsafe_b64encode(data).decode().rstrip("="), "meta": "{}"}
    assert check.is_valid(good)
    for name, bad in (("body", "not base64 {"), ("token", "a+b/"), ("digest", "zz" * 32), ("digest", "ab")):
        assert not check.is_valid({**good, name: bad}), (name, bad)


def _all_keys(value: Any) -> list[tuple[Any, str]]:
    if isinstance(value, dict):
        return [(value, k) for k in value] + [pair for v in value.values() for pair in _all_keys(v)]
    if isinstance(value, list):
        return [pair for v in value for pair in _all_keys(v)]
    return []


@pytest.mark.parametrize("declared", ["integer", "object", ["array", "null"]])
def test_a_content_encoding_on_a_node_without_strings_is_dropped_not_turned_into_a_pattern(
        tmp_path: Path, declared: Any) -> None:
    """``contentEncoding`` describes strings. On ``type: integer`` (or object, or array and null) import
    wrote the base64 pattern in its place, and refused its own output: "#/.../pattern: expected keywords
    that can judge a value of type integer", a keyword the source never had, with the hint to drop it.
    It never judged a value there, so it is dropped, listed as a conversion, and check passes."""
    tool = {"name": "upload", "description": "Upload a file.",
            "inputSchema": {"type": "object", "required": ["data"], "properties": {
                "data": {"type": declared, "contentEncoding": "base64", "contentMediaType": "image/png"}}}}
    (tmp_path / "tool.json").write_text(json.dumps(tool), "utf-8")
    result = run_cli("import", "tool.json", "--out", "out", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "contentEncoding 'base64' removed: it describes strings" in result.stderr
    assert _manifest(tmp_path / "out" / "upload" / "1.0.0.yaml")["input"]["properties"]["data"] == {"type": declared}
    checked = run_cli("check", "out", cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
