"""A ``$ref`` reaches the generated model as it reaches the guard, however it is spelt.

The guard follows a percent-encoded pointer (``#/$defs/n%C3%A9``), an ``$anchor`` (``#node``) and a
pointer to any place (``#/properties/q``, ``#/$defs/node/properties/x``). The model generator was
given them unresolved: an anchor became the tool's whole input model (a valid call was refused), a
percent-encoded name an untyped ``Any``, and a place a class named after its last token alone, shared
by every tool with the same reference (the second tool's calls all failed INTERNAL).
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

from build_support import build, imported_package, make_project, read_bytes_tree
from hypothesis import given, settings
from hypothesis import strategies as st

from contractgen.codegen.models import hoist_schema
from contractgen.runtime.pointer import escape_token, pointer_parts, resolve_pointer

NAMES = ["node", "né", "a b", "x~y", "p/q", "ﬁle", "100%", "#hash"]


def _spellings(container: str, name: str, anchor: str) -> dict[str, str]:
    token = escape_token(name)
    return {"plain": f"#/{container}/{token}", "encoded": "#" + quote(f"/{container}/{token}", safe="/"),
            "anchor": f"#{anchor}"}


def _manifest(tool: str) -> dict[str, Any]:
    defs: dict[str, Any] = {}
    properties: dict[str, Any] = {}
    arguments: dict[str, Any] = {}
    for index, name in enumerate(NAMES):
        defs[name] = {"$anchor": f"a{index}", "type": "object", "required": [f"v{index}"],
                      "properties": {f"v{index}": {"type": "integer"},
                                     "inner": {"type": "object", "required": ["w"],
                                               "properties": {"w": {"type": "string"}}}}}
        for how, ref in _spellings("$defs", name, f"a{index}").items():
            properties[f"{how}{index}"] = {"$ref": ref, "description": "a definition"}
            arguments[f"{how}{index}"] = {f"v{index}": index, "inner": {"w": name}}
        properties[f"inner{index}"] = {"$ref": f"#/$defs/{escape_token(name)}/properties/inner",
                                       "description": "a place inside a definition"}
        arguments[f"inner{index}"] = {"w": name}
    properties["place"] = {"type": "object", "required": ["z"], "properties": {"z": {"type": "boolean"}},
                           "description": "a property others refer to"}
    properties["to_place"] = {"$ref": "#/properties/place", "description": "a place below the root"}
    properties["to_item"] = {"$ref": "#/properties/list/items", "description": "an item schema"}
    properties["list"] = {"type": "array", "items": {"type": "object", "required": ["k"],
                                                     "properties": {"k": {"type": "number"}}},
                          "description": "a list"}
    arguments.update({"place": {"z": True}, "to_place": {"z": False}, "to_item": {"k": 1.5},
                      "list": [{"k": 2}]})
    return {"name": tool, "version": "1.0.0", "title": tool, "summary": "Echo the arguments.",
            "description": "Use it to echo the arguments.",
            "input": {"type": "object", "additionalProperties": False, "required": sorted(arguments),
                      "properties": properties, "$defs": defs},
            "output": {"type": "object", "properties": {"ok": {"type": "boolean"}}},
            "errors": [], "examples": [{"summary": "all of them", "arguments": arguments}]}


def test_every_spelling_of_a_ref_is_typed_by_its_target_in_every_tool(tmp_path: Path) -> None:
    crowd = make_project(tmp_path / "crowd")
    alone = make_project(tmp_path / "alone")
    for root, tools in ((crowd, ("alpha", "beta")), (alone, ("beta",))):
        for tool in tools:
            (root / "contracts" / tool).mkdir()
            (root / "contracts" / tool / "1.0.0.json").write_text(json.dumps(_manifest(tool)), "utf-8")
        result = build(root)
        assert result.returncode == 0, result.stderr
    assert read_bytes_tree(crowd / "generated")["beta_v1.py"] == read_bytes_tree(alone / "generated")["beta_v1.py"]
    with imported_package(crowd):
        for tool in ("alpha", "beta"):
            module = importlib.import_module(f"generated.{tool}_v1")
            manifest = _manifest(tool)
            arguments = manifest["examples"][0]["arguments"]
            received: list[Any] = []
            envelope = getattr(module, tool).implement(lambda args, seen=received: seen.append(args) or {"ok": True})(
                arguments)
            assert envelope["status"] == "ok", envelope
            args = received[0]
            assert args.model_dump(mode="json", by_alias=True, exclude_unset=True) == arguments
            for field, value in arguments.items():
                if isinstance(value, dict):  # each reference is the model of its own target
                    typed = getattr(args, field)
                    assert type(typed).__name__.startswith(tool.capitalize() + "V1Input"), (field, typed)
                    assert type(typed).__name__ != tool.capitalize() + "V1Input", (field, typed)


@settings(max_examples=200, deadline=None)
@given(name=st.text(min_size=1, max_size=12), how=st.sampled_from(["plain", "encoded", "anchor"]),
       container=st.sampled_from(["$defs", "definitions"]))
def test_a_hoisted_ref_points_at_its_own_target(name: str, how: str, container: str) -> None:
    target = {"$anchor": "the-target", "type": "object", "properties": {"marker": {"const": name}}}
    schema = {"type": "object", "properties": {"p": {"$ref": _spellings(container, name, "the-target")[how]}},
              container: {name: target, "other": {"type": "string"}}}
    hoisted = hoist_schema(schema, "TV1Input")
    ref = hoisted["TV1Input"]["properties"]["p"]["$ref"]
    assert ref.startswith("#/$defs/")
    parts = pointer_parts(ref[len("#/$defs"):])
    assert resolve_pointer(hoisted, "/" + "/".join(escape_token(p) for p in parts)) == target


def _diff_manifest(tool: str, version: str, ref: str, value_type: str) -> dict[str, Any]:
    return {"name": tool, "version": version, "summary": "Echo.", "description": "Use it to echo.",
            "input": {"type": "object", "properties": {"p": {"$ref": ref, "description": "p"}},
                      "$defs": {"né": {"$anchor": "node", "type": "object",
                                       "properties": {"v": {"type": value_type, "description": "v"}}}}},
            "output": {"type": "object", "properties": {"ok": {"type": "boolean"}}}}


def test_diff_follows_every_spelling_of_a_ref(tmp_path: Path) -> None:
    """diff compared a percent-encoded or an anchor reference by its text: a type narrowed behind one
    was never reported (a breaking change passed). Every pair of spellings (old, new) is diffed twice:
    with the target's type narrowed (one breaking finding at the property) and respelt only (none)."""
    from conftest import run_cli

    spellings = _spellings("$defs", "né", "node")
    for old_how in spellings:
        for new_how in spellings:
            for change, new_type in (("narrowed", "integer"), ("respelt", "string")):
                tool = f"{change}_{old_how}_{new_how}"
                for side, version, how, value_type in (("old", "1.0.0", old_how, "string"),
                                                       ("new", "1.1.0", new_how, new_type)):
                    path = tmp_path / side / tool / f"{version}.json"
                    path.parent.mkdir(parents=True)
                    path.write_text(json.dumps(_diff_manifest(tool, version, spellings[how], value_type)), "utf-8")
    result = run_cli("diff", str(tmp_path / "old"), str(tmp_path / "new"), "--format", "json")
    assert result.returncode == 1, result.stderr
    findings = json.loads(result.stdout)["findings"]
    narrowed = {f["tool"] for f in findings if f["rule"] == "input-type-narrowed"
                and f["pointer"] == "/input/properties/p/properties/v"}
    assert narrowed == {f"narrowed_{o}_{n}" for o in spellings for n in spellings}
    assert not [f for f in findings if f["tool"].startswith("respelt")], findings


def test_the_parameter_listing_follows_every_spelling_of_a_ref(tmp_path: Path) -> None:
    """The model-facing parameter listing read only plain ``#/...`` pointers: a parameter behind an
    anchor or a percent-encoded reference was listed without its type and limits."""
    root = make_project(tmp_path / "p")
    (root / "pyproject.toml").write_text('[tool.contractgen]\ncontracts = "contracts"\noutput = "generated"\n'
                                         "describe_parameters = true\n", "utf-8")
    spellings = _spellings("$defs", "né", "count")
    manifest = {"name": "count", "version": "1.0.0", "summary": "Count.", "description": "Use it to count.",
                "input": {"type": "object", "properties": {how: {"$ref": ref} for how, ref in spellings.items()},
                          "$defs": {"né": {"$anchor": "count", "type": "integer", "minimum": 3,
                                           "description": "how many"}}},
                "output": {"type": "object", "properties": {"ok": {"type": "boolean"}}}}
    (root / "contracts" / "count").mkdir()
    (root / "contracts" / "count" / "1.0.0.json").write_text(json.dumps(manifest), "utf-8")
    result = build(root)
    assert result.returncode == 0, result.stderr
    with imported_package(root):
        description = importlib.import_module("generated.count_v1").DESCRIPTION
    for how in spellings:
        assert f"- {how} (integer; >= 3): how many" in description, description


#: where a subschema with an ``$id`` of its own can sit, and the ``$ref`` below it that reads a name
#: the root defines too (validators read it in the subschema's resource, the compiler at the root)
ID_PLACES = {
    "defs": ("/$defs/x", {"$defs": {"x": "SUB"}, "properties": {"p": {"$ref": "#/$defs/x", "description": "p"}}}),
    "property": ("/properties/p", {"properties": {"p": "SUB"}}),
    "items": ("/properties/p/items", {"properties": {"p": {"type": "array", "items": "SUB", "description": "p"}}}),
    "branch": ("/properties/p/anyOf/0", {"properties": {"p": {"anyOf": ["SUB"], "description": "p"}}}),
}


def _id_manifest(tool: str, version: str, place: str, side: str, inner: dict[str, Any]) -> dict[str, Any]:
    sub = {"$id": "https://example.com/sub", "type": "object", "$defs": {"y": inner},
           "properties": {"q": {"$ref": "#/$defs/y", "description": "q"}}, "description": "p"}
    schema = json.loads(json.dumps(ID_PLACES[place][1]).replace('"SUB"', json.dumps(sub)))
    schema = {"type": "object", **schema, "$defs": {**schema.get("$defs", {}), "y": {"type": "integer"}}}
    other = {"type": "object", "properties": {"ok": {"type": "boolean"}}}
    return {"name": tool, "version": version, "summary": "Echo.", "description": "Use it to echo.",
            "input": schema if side == "input" else other, "output": schema if side == "output" else other}


def test_an_id_below_the_root_is_refused_by_check_build_and_diff(tmp_path: Path) -> None:
    """An ``$id`` on a subschema starts a resource of its own, and validators read a ``#/$defs/y`` below
    it in that resource; the model generator and diff read it at the root. A string narrowed there
    ('maxLength: 1') was 'No changes found' (exit 0), and the model typed the string ``Any`` (a second
    ``y`` at the root is an integer). Every place and side is an error at the ``$id``, in check, build
    and diff."""
    from conftest import run_cli

    expected = set()
    for place, (pointer, _) in ID_PLACES.items():
        for side in ("input", "output"):
            tool = f"{place}_{side}"
            for folder, version, inner in (("old", "1.0.0", {"type": "string"}),
                                           ("new", "1.0.1", {"type": "string", "maxLength": 1})):
                path = tmp_path / folder / tool / f"{version}.json"
                path.parent.mkdir(parents=True)
                path.write_text(json.dumps(_id_manifest(tool, version, place, side, inner)), "utf-8")
            expected.add((f"{tool}/1.0.0.json", f"/{side}{pointer}/$id"))
    result = run_cli("check", str(tmp_path / "old"), "--format", "json", cwd=tmp_path / "old")
    assert result.returncode == 2, result.stdout
    found = {(Path(d["file"]).as_posix().split("old/")[-1], d["pointer"])
             for d in json.loads(result.stdout)["diagnostics"] if d["code"] == "embedded-id"}
    assert found == expected
    diff = run_cli("diff", str(tmp_path / "old"), str(tmp_path / "new"))
    assert diff.returncode == 2 and "embedded" not in diff.stdout and "$id only at the root" in diff.stderr, diff
    root = make_project(tmp_path / "project", tmp_path / "new")
    assert build(root).returncode == 2
    assert not (root / "generated").exists()


@settings(max_examples=60, deadline=None)
@given(length=st.integers(min_value=1, max_value=4), wrapped=st.lists(st.booleans(), min_size=4, max_size=4),
       closes=st.booleans(), annotated=st.booleans())
def test_a_chain_of_refs_that_loops_without_a_schema_is_refused_by_check(length: int, wrapped: list[bool],
                                                                          closes: bool, annotated: bool) -> None:
    """``x: {$ref: y}, y: {$ref: x}`` (or ``x: {allOf: [{$ref: x}]}``) passed check; the guard then
    accepted any value there and build failed in the model generator with the hint to 'simplify the
    schema'. A chain that loops is refused by check at each reference; one that ends in a schema is not."""
    from contractgen.manifest.parse import ParsedFile
    from contractgen.manifest.report import Reporter
    from contractgen.manifest.schema_checks import check_embedded_schema

    defs: dict[str, Any] = {}
    for index in range(length):
        nxt = f"#/$defs/d{(index + 1) % length}" if closes or index < length - 1 else None
        step: dict[str, Any] = {"$ref": nxt} if nxt else {"type": "string"}
        if nxt and wrapped[index]:
            step = {"allOf": [step]}
        if annotated:
            step["description"] = f"step {index}"
        defs[f"d{index}"] = step
    schema = {"type": "object", "properties": {"p": {"$ref": "#/$defs/d0", "description": "p"}}, "$defs": defs}
    report = Reporter(ParsedFile("probe/1.0.0.json"))
    check_embedded_schema(report, "input", schema)
    loops = [d for d in report.diagnostics if d.code == "ref-cycle"]
    if closes:
        assert {d.pointer for d in loops} >= {"/input/properties/p/$ref"}, report.diagnostics
        assert all("loops without reaching one" in d.message and d.hint for d in loops)
    else:
        assert loops == [], loops


def test_check_and_build_refuse_a_self_reference(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p")
    manifest = {"name": "loop", "version": "1.0.0", "summary": "Loop.", "description": "Use it to loop.",
                "input": {"type": "object", "properties": {"a": {"$ref": "#/properties/a", "description": "a"}}},
                "output": {"type": "object", "properties": {"ok": {"type": "boolean"}}}}
    (root / "contracts" / "loop").mkdir()
    (root / "contracts" / "loop" / "1.0.0.json").write_text(json.dumps(manifest), "utf-8")
    result = build(root)
    assert result.returncode == 2 and "#/input/properties/a/$ref: expected a $ref that reaches a schema" in result.stderr
    assert "simplify the schema" not in result.stderr
