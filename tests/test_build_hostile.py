"""Hostile manifests: strings that try to break out of generated code arrive intact as data."""

from __future__ import annotations

import ast
import json
from pathlib import Path

from build_support import build, imported_package, make_project
from hypothesis import given, settings
from hypothesis import strategies as st

from contractgen.compiler.pyliteral import py_literal, py_text_block
from contractgen.runtime.visible import visible

CASES = Path(__file__).resolve().parent / "cases" / "build"
MANIFEST = CASES / "hostile" / "contracts" / "hostile_strings" / "1.0.0.json"


def test_hostile_strings_arrive_intact(tmp_path: Path) -> None:
    manifest = json.loads(MANIFEST.read_text("utf-8"))
    hostile = manifest["input"]["properties"]["note"]["default"]  # data: every character of it
    assert '"""' in hostile and "{{" in hostile and "__import__" in hostile and "\u202e" in hostile
    prose = manifest["description"]  # prose: the same without what check refuses there (hidden-text)
    assert prose == visible(hostile)
    root = make_project(tmp_path / "p", CASES / "hostile" / "contracts")
    result = build(root, "--no-cache")
    assert result.returncode == 0, result.stderr
    source = (root / "generated" / "hostile_strings_v1.py").read_text("utf-8")
    tree = ast.parse(source)  # compiles
    # the only calls at module level are the ones the template writes, never one from a manifest
    calls = {node.func.id for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
    assert "__import__" not in calls and "system" not in calls
    assert "\u202e" not in source, "bidi controls are written as escapes, never raw"
    with imported_package(root) as package:
        module = package.hostile_strings_v1
        contract = module.CONTRACT
        assert contract.description == prose
        assert contract.title == manifest["title"] and contract.summary == manifest["summary"]
        assert contract.errors[0].message == manifest["errors"][0]["message"]
        assert contract.errors[0].description == prose
        assert module.Hostile.spec.message == manifest["errors"][0]["message"]
        assert contract.deprecation.message == prose
        assert dict(contract.examples[0].arguments) == {"mode": hostile}
        assert contract.examples[0].summary == prose
        assert module.INPUT_SCHEMA == manifest["input"] and module.OUTPUT_SCHEMA == manifest["output"]
        fields = module.HostileStringsV1Input.model_fields
        assert fields["note"].default == hostile and fields["note"].description == prose
        assert fields["import_"].alias == "import" and fields["with_space"].alias == "with space"
        assert prose in module.DESCRIPTION and module.MCP_TOOL["description"] == module.DESCRIPTION

        echo = module.hostile_strings.implement(lambda a: {"echo": a.mode + "|" + (a.note or "") + "|" + str(a.import_)})
        envelope = echo({"mode": hostile, "import": "k", "with space": 4})
        assert envelope["status"] == "ok", envelope
        assert envelope["output"]["echo"] == hostile + "|" + hostile + "|k"
        assert echo({"mode": "{{ x }}"})["output"]["echo"] == "{{ x }}|" + hostile + "|None"
        bad = echo({"mode": "not one of them"})
        assert bad["error"]["code"] == "INVALID_ARGUMENT" and bad["error"]["field"] == "/mode"

        @module.hostile_strings.implement
        def fail(arguments: object) -> None:
            raise module.Hostile()

        message = fail({"mode": "plain"})["error"]["message"]
        # the runtime folds newlines in model-facing messages; every other character arrives as written
        assert message.split() == manifest["errors"][0]["message"].split()

        from contractgen.testing import check_contract

        report = check_contract(module.hostile_strings, raise_on_failure=False)
        assert report.ok, report.failures


TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=60)


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_string_literals_round_trip(text: str) -> None:
    assert ast.literal_eval(py_literal(text)) == text
    assert ast.literal_eval(py_text_block(text)) == text


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | TEXT,
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
                    max_leaves=20)


@settings(max_examples=200, deadline=None)
@given(JSON)
def test_json_literals_round_trip(value: object) -> None:
    assert ast.literal_eval(py_literal(value)) == value


def test_keyword_and_non_identifier_keys_keep_their_wire_names(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p", CASES / "keywords" / "contracts")
    assert build(root, "--no-cache").returncode == 0
    with imported_package(root) as package:
        module = package.odd_names_v1
        seen = []

        @module.odd_names.implement
        def odd(arguments: object) -> object:
            seen.append(arguments)
            return module.OddNamesV1Output.model_validate({"ok": True, "return": "r", "status": "done"})

        call = {"class": "c", "from": "2026-01-31", "page-size": 5, "2fa": True, "x y": "a b", "self": "s",
                "model_config": "m", "schema": "s", "__dunder": "d", "legacy": {"import": "i"},
                "node": {"value": 1, "children": [{"value": 2}]}}
        envelope = odd(call)
        assert envelope["status"] == "ok", envelope
        assert envelope["output"] == {"ok": True, "return": "r", "status": "done"}
        typed = seen[0]
        assert (typed.class_, typed.page_size, typed.field_2fa, typed.x_y, typed.legacy.import_) == (
            "c", 5, True, "a b", "i")
        assert typed.node.children[0].value == 2
        # the Python name is not a wire name
        assert odd({**call, "class_": "c"})["error"]["code"] == "INVALID_ARGUMENT"
