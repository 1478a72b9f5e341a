"""`contractgen import`: real tool definitions in every supported format become manifests that pass
`contractgen check`; bad input gets diagnostics and writes nothing. Runs the real CLI."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import run_cli
from corpus_support import corpus_groups
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from contractgen.importer import plan_import
from contractgen.manifest.parse import parse_manifest_text
from contractgen.runtime.visible import hidden_in, visible

WEATHER_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string", "description": "City name."}},
    "required": ["city"],
}


def _write(path: Path, value: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value), "utf-8")
    return path


def _read_manifest(path: Path) -> dict[str, Any]:
    parsed = parse_manifest_text(str(path), path.read_bytes())
    assert not parsed.diagnostics, parsed.diagnostics
    return parsed.value


def _strip_comments(text: str) -> str:
    return "".join(line for line in text.splitlines(keepends=True) if not line.startswith("#"))


# --- the shared corpus --------------------------------------------------------------------------

def test_every_corpus_tool_imports_and_passes_check_and_build(
        corpus: Path, corpus_import_runs: tuple[Path, dict[Path, Any]], tmp_path: Path) -> None:
    """One import per source folder (a server, or a tau-bench domain). Tool names repeat across
    servers, so each folder gets its own --prefix; then one `check` and one `build` over all of them.
    The imports and the build are the session's (``corpus_import_runs``: the same commands)."""
    root, runs = corpus_import_runs
    counts: dict[str, int] = {}
    out = root / "contracts"
    assert list(runs) == corpus_groups(corpus)
    for index, group in enumerate(corpus_groups(corpus)):
        files = sorted(group.glob("*.json"))
        prefix = f"g{index}_"
        result = runs[group]
        assert result.returncode == 0, result.stderr
        manifests = sorted(out.glob(f"{prefix}*/1.0.0.yaml"))
        assert len(manifests) == len(files), (group.name, result.stderr)
        counts[group.name] = len(manifests)
        for manifest_path in manifests:
            manifest = _read_manifest(manifest_path)
            assert manifest["version"] == "1.0.0" and manifest["name"].startswith(prefix)
            assert {e["code"] for e in manifest["errors"]} >= {"INVALID_ARGUMENT", "INTERNAL"}
    total = sum(counts.values())
    check = run_cli("check", str(out), cwd=tmp_path)
    assert check.returncode == 0, check.stderr
    assert re.search(rf"^{total} manifests checked\W+no errors", check.stderr, re.MULTILINE), check.stderr[-500:]
    # the session's `contractgen build` of these contracts succeeded (corpus_support asserts it)
    assert len(list((root / "generated").glob("g*_v1.py"))) == total
    mcp = sum(n for g, n in counts.items() if "__" in g)
    tau = sum(n for g, n in counts.items() if "__" not in g)
    print(f"\nimported, checked and built: {mcp} MCP tools, {tau} tau-bench OpenAI tools ({counts})")
    assert mcp == sum(1 for _ in (corpus / "mcp_tools").glob("*/*.json"))
    assert tau == sum(1 for _ in (corpus / "function_calling" / "tau_bench").glob("*/*.json"))


def test_corpus_tool_content_is_carried_over(corpus: Path, tmp_path: Path) -> None:
    source = corpus / "mcp_tools" / "modelcontextprotocol-servers__time" / "convert_time.json"
    tool = json.loads(source.read_text("utf-8"))
    result = run_cli("import", str(source), "--out", str(tmp_path / "c"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    path = tmp_path / "c" / "convert_time" / "1.0.0.yaml"
    text = path.read_text("utf-8")
    assert text.startswith("# Editor completion: map contractgen's installed manifest.schema.json")
    manifest = _read_manifest(path)
    assert manifest["name"] == "convert_time"
    assert manifest["input"] == tool["inputSchema"]
    assert manifest["description"] == tool["description"]
    assert manifest["summary"] == "Convert time between timezones"
    assert manifest["annotations"] == {"read_only": True, "destructive": False, "idempotent": True,
                                       "open_world": False}
    # openWorldHint false: no upstream errors by default
    assert [e["code"] for e in manifest["errors"]] == ["INVALID_ARGUMENT", "INTERNAL"]
    assert manifest["output"]["type"] == "object" and manifest["output"]["additionalProperties"] is True


def test_combined_tools_list_document_matches_per_file_import(corpus: Path, tmp_path: Path) -> None:
    group = corpus / "mcp_tools" / "docker-mcp-registry__okta-mcp-server"
    tools = [json.loads(p.read_text("utf-8")) for p in sorted(group.glob("*.json"))]
    listing = _write(tmp_path / "tools_list.json", {"tools": tools, "nextCursor": None})
    combined = run_cli("import", str(listing), "--out", str(tmp_path / "combined"), cwd=tmp_path)
    assert combined.returncode == 0, combined.stderr
    single = run_cli("import", str(group), "--out", str(tmp_path / "single"), cwd=tmp_path)
    assert single.returncode == 0, single.stderr
    combined_files = sorted(p.relative_to(tmp_path / "combined") for p in (tmp_path / "combined").rglob("*.yaml"))
    single_files = sorted(p.relative_to(tmp_path / "single") for p in (tmp_path / "single").rglob("*.yaml"))
    assert combined_files == single_files and len(combined_files) == len(tools)
    for rel in combined_files:
        a = (tmp_path / "combined" / rel).read_text("utf-8")
        b = (tmp_path / "single" / rel).read_text("utf-8")
        assert _strip_comments(a) == _strip_comments(b)
        assert "#/tools/" in a  # the header says where in the document the tool was


def test_jsonrpc_tools_list_response(tmp_path: Path) -> None:
    response = {"jsonrpc": "2.0", "id": 1, "result": {"tools": [
        {"name": "get_weather", "description": "Get the weather. Uses a remote API.", "inputSchema": WEATHER_SCHEMA,
         "outputSchema": {"type": "object", "properties": {"celsius": {"type": "number"}}, "required": ["celsius"]}}]}}
    source = _write(tmp_path / "resp.json", response)
    result = run_cli("import", str(source), "--out", "c", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    manifest = _read_manifest(tmp_path / "c" / "get_weather" / "1.0.0.yaml")
    assert manifest["summary"] == "Get the weather."
    assert manifest["output"] == response["result"]["tools"][0]["outputSchema"]
    # no annotations: MCP's openWorldHint defaults to true, so upstream errors are declared
    assert [e["code"] for e in manifest["errors"]] == [
        "INVALID_ARGUMENT", "INTERNAL", "UNAVAILABLE", "TIMEOUT", "RATE_LIMITED"]


# --- each format ---------------------------------------------------------------------------------

FORMS: dict[str, Any] = {
    "mcp": {"name": "get_weather", "description": "Weather now.", "inputSchema": WEATHER_SCHEMA},
    "openai_chat": {"type": "function", "function": {"name": "get_weather", "description": "Weather now.",
                                                      "parameters": WEATHER_SCHEMA}},
    "openai_responses": {"type": "function", "name": "get_weather", "description": "Weather now.",
                         "parameters": WEATHER_SCHEMA, "strict": False},
    "anthropic": {"name": "get_weather", "description": "Weather now.", "input_schema": WEATHER_SCHEMA},
}


@pytest.mark.parametrize("form", sorted(FORMS))
def test_each_format_is_detected(form: str, tmp_path: Path) -> None:
    source = _write(tmp_path / "tool.json", FORMS[form])
    result = run_cli("import", str(source), "--out", "c", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    manifest = _read_manifest(tmp_path / "c" / "get_weather" / "1.0.0.yaml")
    assert manifest["input"] == WEATHER_SCHEMA
    assert manifest["description"] == "Weather now."
    label = {"mcp": "an MCP tool", "anthropic": "an Anthropic tool"}.get(form, "an OpenAI function tool")
    assert label in (tmp_path / "c" / "get_weather" / "1.0.0.yaml").read_text("utf-8")


def test_mixed_list_and_yaml_source(tmp_path: Path) -> None:
    tools = [
        {"type": "function", "function": {"name": "no_params", "description": "Takes nothing."}},
        {"name": "lookup", "description": "Look up. More text here.",
         "input_schema": {"properties": {"q": {"type": "string"}}}},
    ]
    source = tmp_path / "tools.yaml"
    source.write_text(yaml.safe_dump(tools), "utf-8")
    result = run_cli("import", str(source), "--out", "c", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    no_params = _read_manifest(tmp_path / "c" / "no_params" / "1.0.0.yaml")
    assert no_params["input"] == {"type": "object", "properties": {}}
    lookup = _read_manifest(tmp_path / "c" / "lookup" / "1.0.0.yaml")
    assert lookup["input"] == {"type": "object", "properties": {"q": {"type": "string"}}}
    assert lookup["summary"] == "Look up."
    assert run_cli("check", "c", cwd=tmp_path).returncode == 0


def test_format_flag_is_enforced(tmp_path: Path) -> None:
    source = _write(tmp_path / "tool.json", FORMS["anthropic"])
    result = run_cli("import", str(source), "--format", "openai", "--out", "c", cwd=tmp_path)
    assert result.returncode == 2
    assert "expected an OpenAI function tool here, as --format openai says" in result.stderr
    assert "looks like an Anthropic tool" in result.stderr
    assert not (tmp_path / "c").exists()
    ok = run_cli("import", str(source), "--format", "anthropic", "--out", "c", cwd=tmp_path)
    assert ok.returncode == 0, ok.stderr
    bad = run_cli("import", str(source), "--format", "xml", cwd=tmp_path)
    assert bad.returncode == 2 and "expected one of auto, mcp, openai, anthropic" in bad.stderr


def test_stdin_source(tmp_path: Path) -> None:
    result = run_cli("import", "-", "--out", "c", cwd=tmp_path, input=json.dumps({"tools": [FORMS["mcp"]]}))
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "c" / "get_weather" / "1.0.0.yaml").is_file()


# --- names ---------------------------------------------------------------------------------------

def test_unportable_names_are_mapped_with_a_warning(tmp_path: Path) -> None:
    tools = {"tools": [
        {"name": "github.create_issue", "description": "Create an issue.", "inputSchema": WEATHER_SCHEMA},
        {"name": "Summarize Detection", "description": "Summarise.", "inputSchema": WEATHER_SCHEMA},
        {"name": "x" * 80, "description": "Long.", "inputSchema": WEATHER_SCHEMA},
    ]}
    source = _write(tmp_path / "tools.json", tools)
    result = run_cli("import", str(source), "--out", "c", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert re.search(r"tools\.json:\d+:\d+ #/tools/0/name: warning: tool name 'github\.create_issue' is not a "
                     r"portable tool name", result.stderr), result.stderr
    assert "imported as 'github_create_issue'" in result.stderr
    assert "imported as 'Summarize_Detection'" in result.stderr
    assert f"imported as '{'x' * 64}'" in result.stderr
    for name in ("github_create_issue", "Summarize_Detection", "x" * 64):
        manifest_path = tmp_path / "c" / name / "1.0.0.yaml"
        assert _read_manifest(manifest_path)["name"] == name
    assert "The source called it 'github.create_issue'" in \
        (tmp_path / "c" / "github_create_issue" / "1.0.0.yaml").read_text("utf-8")
    assert run_cli("check", "c", cwd=tmp_path).returncode == 0


def test_duplicate_names_fail_and_prefix_separates_them(tmp_path: Path) -> None:
    a = _write(tmp_path / "a" / "t.json", FORMS["mcp"])
    b = _write(tmp_path / "b" / "t.json", {**FORMS["mcp"], "name": "get.weather"})  # maps to get_weather
    result = run_cli("import", str(a), str(b), "--out", "c", cwd=tmp_path)
    assert result.returncode == 2
    assert "expected each tool once (got 'get_weather' again" in result.stderr
    assert "nothing written" in result.stderr and not (tmp_path / "c").exists()
    first = run_cli("import", str(a), "--out", "c", "--prefix", "east_", cwd=tmp_path)
    second = run_cli("import", str(b), "--out", "c", "--prefix", "west_", cwd=tmp_path)
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert sorted(p.name for p in (tmp_path / "c").iterdir()) == ["east_get_weather", "west_get_weather"]


# --- never overwrite -----------------------------------------------------------------------------

def test_existing_manifest_is_not_overwritten_without_force(tmp_path: Path) -> None:
    source = _write(tmp_path / "tools.json", {"tools": [FORMS["mcp"], {**FORMS["mcp"], "name": "other"}]})
    existing = tmp_path / "c" / "get_weather" / "1.0.0.yaml"
    existing.parent.mkdir(parents=True)
    existing.write_text("hand-edited\n", "utf-8")
    result = run_cli("import", str(source), "--out", "c", cwd=tmp_path)
    assert result.returncode == 2
    assert re.search(r"get_weather/1\.0\.0\.yaml #: expected a new manifest path \(got an existing file", result.stderr)
    assert "hint: pass --force to overwrite it" in result.stderr
    assert existing.read_text("utf-8") == "hand-edited\n"
    assert not (tmp_path / "c" / "other").exists()  # all or nothing
    forced = run_cli("import", str(source), "--out", "c", "--force", cwd=tmp_path)
    assert forced.returncode == 0, forced.stderr
    assert _read_manifest(existing)["name"] == "get_weather"
    assert (tmp_path / "c" / "other" / "1.0.0.yaml").is_file()


def test_output_is_deterministic(tmp_path: Path) -> None:
    source = _write(tmp_path / "tools.json", {"tools": [FORMS["mcp"], FORMS["anthropic"] | {"name": "b"}]})
    run_cli("import", str(source), "--out", "one", cwd=tmp_path)
    run_cli("import", str(source), "--out", "two", cwd=tmp_path, env={"PYTHONHASHSEED": "123"})
    one = {p.relative_to(tmp_path / "one"): p.read_bytes() for p in (tmp_path / "one").rglob("*.yaml")}
    two = {p.relative_to(tmp_path / "two"): p.read_bytes() for p in (tmp_path / "two").rglob("*.yaml")}
    assert one == two and len(one) == 2


# --- hostile input -------------------------------------------------------------------------------

HOSTILE: list[tuple[str, bytes, str]] = [
    ("broken.json", b'{"name": "x", ', "expected valid JSON"),
    ("binary.json", b"\xff\xfe\x00garbage", "expected UTF-8 text"),
    ("empty.json", b"", "expected tool definitions (got an empty file)"),
    ("scalar.json", b"42", "expected a tool definition object (got integer)"),
    ("nameless.json", json.dumps({"description": "d", "inputSchema": WEATHER_SCHEMA}).encode(),
     "#/name: expected the tool's name as a non-empty string (got none)"),
    ("badname.json", json.dumps({"name": 7, "inputSchema": WEATHER_SCHEMA}).encode(),
     "expected the tool's name as a non-empty string (got integer)"),
    ("noschema.json", json.dumps({"name": "x", "description": "d"}).encode(),
     "expected an MCP tool with an inputSchema (got none)"),
    ("schema_list.json", json.dumps({"name": "x", "inputSchema": [1]}).encode(),
     "#/inputSchema: expected a JSON Schema object (got array)"),
    ("invalid_schema.json", json.dumps({"name": "x", "inputSchema": {"type": "object", "properties": {"a": {"type": "datetime"}}}}).encode(),
     "#/inputSchema/properties/a/type: invalid JSON Schema 2020-12: expected a JSON Schema type name (got 'datetime')"),
    ("string_root.json", json.dumps({"name": "x", "inputSchema": {"type": "string"}}).encode(),
     "#/inputSchema/type: expected an object schema (got type 'string')"),
    ("unknown.json", json.dumps({"foo": 1}).encode(), "expected a tool definition (got an object with keys: foo)"),
    ("tools_not_list.json", json.dumps({"tools": {"a": 1}}).encode(), "#/tools: expected a list of tools (got object)"),
    ("no_tools.json", json.dumps({"tools": []}).encode(), "expected at least one tool definition (got none)"),
    ("bad_annotations.json", json.dumps({"name": "x", "inputSchema": WEATHER_SCHEMA, "annotations": {"readOnlyHint": "yes"}}).encode(),
     "#/annotations/readOnlyHint: expected true or false (got string)"),
    ("remote_ref.json", json.dumps({"name": "x", "inputSchema": {"type": "object", "properties": {"a": {"$ref": "http://example.com/s.json"}}}}).encode(),
     "#/inputSchema/properties/a/$ref: expected a local reference"),
    ("dangling_ref.json", json.dumps({"type": "function", "function": {"name": "x", "parameters": {"type": "object", "properties": {"a": {"$ref": "#/$defs/gone"}}}}}).encode(),
     "#/function/parameters/properties/a/$ref: expected a $ref that resolves in this schema"),
    ("alias_bomb.yaml", b"a: &a [1,1,1,1,1,1,1,1,1,1]\n" + b"".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{','.join(['*' + chr(97 + i)] * 10)}]\n".encode() for i in range(8)) + b"tools: [*i]\n",
     "after expanding YAML aliases"),
    ("yaml_bomb.yaml", b"a: &a [1,2]\nb: *a\nc: [", "expected valid YAML"),
]


@pytest.mark.parametrize(("filename", "content", "expected"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_input_gets_a_diagnostic(filename: str, content: bytes, expected: str, tmp_path: Path) -> None:
    source = tmp_path / filename
    source.write_bytes(content)
    result = run_cli("import", str(source), "--out", "c", cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert expected in result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    assert not (tmp_path / "c").exists()


def test_missing_path_and_empty_folder(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    result = run_cli("import", "nowhere.json", "empty", cwd=tmp_path)
    assert result.returncode == 2
    assert "nowhere.json #: expected a file or folder of tool definitions (got nothing at this path)" in result.stderr
    assert "empty #: expected .json or .yaml tool definitions in this folder (got none)" in result.stderr
    assert "Traceback" not in result.stderr


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(document=_json)
def test_arbitrary_json_never_raises(document: Any, tmp_path: Path) -> None:
    plan = plan_import([("fuzz.json", json.dumps(document).encode())], tmp_path / "out")
    assert plan.ok == bool(plan.files)
    if not plan.ok:
        assert all(d.file == "fuzz.json" for d in plan.diagnostics)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.text(min_size=1, max_size=80), description=st.text(max_size=300),
       prop=st.text(min_size=1, max_size=20), enum=st.lists(st.text(max_size=10), min_size=1, max_size=3, unique=True))
@example(name="lookup", description="Find a user.\U000e0049\U000e0067\U000e006e\u202e", prop="q", enum=["a\u200b"])
@example(name="lookup", description="x\ufe00\ufe01\ufe02 \u200b", prop="q", enum=["a"])
@example(name="lookup", description="Find.", prop="q\u200b", enum=["a"])
def test_arbitrary_text_survives_into_a_checked_manifest(name: str, description: str, prop: str,
                                                         enum: list[str], tmp_path: Path) -> None:
    """Whatever the names, descriptions and enum values, the manifest reads back as the source said,
    but for the characters a reader cannot see, which its prose loses (check refuses them there), each
    loss listed as a conversion; enum values are data and keep them."""
    schema = {"type": "object", "properties": {prop: {"enum": enum, "description": description}}}
    tool = {"name": name, "description": description, "inputSchema": schema}
    plan = plan_import([("t.json", json.dumps(tool).encode())], tmp_path / "out")
    if not name.strip():
        assert not plan.ok
        return
    if hidden_in(prop) is not None:  # a wire name the model cannot send back: refused where it is
        token = prop.replace("~", "~0").replace("/", "~1")
        errors = [(d.code, d.pointer) for d in plan.diagnostics if d.level.value == "error"]
        assert not plan.ok and errors == [("hidden-text", f"/inputSchema/properties/{token}")], \
            [d.format() for d in plan.diagnostics]
        return
    assert plan.ok, [d.format() for d in plan.diagnostics]
    (path, text), = plan.files.items()
    manifest = parse_manifest_text(str(path), text.encode()).value
    shown = visible(description)
    assert manifest["input"] == {"type": "object", "properties": {prop: {"enum": enum, "description": shown}}}
    assert manifest["description"] == (shown.strip() or manifest["description"])
    assert any(c.code == "hidden-text" for c in plan.conversions) == (shown != description)
