"""The datamodel-code-generator adapter: one bundled call, split per tool, names independent of other tools."""

from __future__ import annotations

import pytest

from contractgen.codegen.models import ModelRequest, ModelsError, generate_models, hoist_schema

NESTED = {"type": "object", "properties": {
    "status": {"enum": ["a", "b"]},
    "nested": {"type": "object", "properties": {"status": {"enum": ["x", "y"]}}},
    "node": {"$ref": "#/$defs/node"}},
    "$defs": {"node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}}}
OUT = {"type": "object", "properties": {"status": {"enum": ["done"]}}}


def test_a_tools_models_do_not_depend_on_the_other_tools_in_the_bundle() -> None:
    alone = generate_models([ModelRequest("m", "MV1", NESTED, OUT)])["m"]
    crowd = generate_models([ModelRequest("a", "AV1", NESTED, OUT), ModelRequest("m", "MV1", NESTED, OUT),
                             ModelRequest("z", "ZV1", NESTED, OUT)])
    assert crowd["m"] == alone
    assert alone.input_class == "MV1Input" and alone.output_class == "MV1Output"
    assert set(alone.class_names) == {"MV1Input", "MV1InputNested", "MV1InputNode", "MV1Output"}
    assert "AV1" not in crowd["m"].body and "MV1" not in crowd["a"].body


def test_local_refs_are_rewritten_to_hoisted_definitions() -> None:
    hoisted = hoist_schema({"type": "object", "properties": {"a": {"$ref": "#/$defs/x"}, "b": {"$ref": "#"},
                                                             "c": {"$ref": "#/properties/a"},
                                                             "d": {"enum": [{"$ref": "#/not/a/ref"}]}},
                            "$defs": {"x": {"type": "string"}}, "definitions": {"x": {"type": "integer"}}},
                           "TV1Input")
    assert set(hoisted) == {"TV1Input", "TV1InputX", "TV1InputXDef", "TV1InputA"}
    properties = hoisted["TV1Input"]["properties"]
    # a reference to a place below the root moves it into a definition the place and the ref share
    assert properties["a"] == properties["c"] == {"$ref": "#/$defs/TV1InputA"}
    assert hoisted["TV1InputA"] == {"$ref": "#/$defs/TV1InputX"}
    assert properties["b"] == {"$ref": "#/$defs/TV1Input"}
    assert properties["d"] == {"enum": [{"$ref": "#/not/a/ref"}]}, "data is never rewritten"


def test_unmodelable_schemas_raise_a_models_error() -> None:
    with pytest.raises(ModelsError, match="dynamic|Unresolved"):
        generate_models([ModelRequest("m", "MV1", {"type": "object", "properties": {"p": {"$dynamicRef": "#meta"}}},
                                      OUT)])
    with pytest.raises(ModelsError, match="local \\$ref") as caught:
        generate_models([ModelRequest("m", "MV1", {"type": "object", "properties": {"p": {"$ref": "https://x/y"}}},
                                      OUT)])
    assert caught.value.owner == "m"


def test_cached_loading_gives_exactly_what_load_contracts_gives(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The build's parse cache is invisible: same contracts, same diagnostics, cold and warm, on the
    bundled contracts and on every check case (valid and invalid manifests alike)."""
    from pathlib import Path

    from contractgen.compiler.cache import BuildCache
    from contractgen.compiler.load_cache import load_for_build
    from contractgen.manifest import load_contracts

    root = Path(__file__).resolve().parents[1]
    folders = [root / "contracts", *sorted(p for p in (root / "tests" / "cases" / "check").iterdir() if p.is_dir())]
    cache = BuildCache(tmp_path / "cache")
    for folder in folders:
        expected = load_contracts([folder])
        for _ in ("cold", "warm"):
            got = load_for_build([folder], cache)
            assert got.diagnostics == expected.diagnostics, folder.name
            assert got.contracts == expected.contracts, folder.name
    assert any((tmp_path / "cache" / "parsed").iterdir())


def test_imports_follow_code_not_text() -> None:
    """A tool whose descriptions mention 'datetime' or 'Literal' gets only the imports its code uses."""
    wordy = {"type": "object", "properties": {"q": {"type": "string", "description": "datetime Literal EmailStr"}}}
    dated = {"type": "object", "properties": {"when": {"type": "string", "format": "date-time"},
                                              "kind": {"enum": ["a", "b"]}}}
    models = generate_models([ModelRequest("w", "WV1", wordy, OUT), ModelRequest("d", "DV1", dated, OUT)])
    imported = {name for _, names in models["w"].imports for name in names}
    assert "datetime" not in imported and "EmailStr" not in imported
    assert ("datetime", ("datetime",)) in models["d"].imports


def test_openai_strict_mode_is_offered_only_when_the_schema_already_qualifies() -> None:
    from contractgen.compiler.exports import strict_problem

    closed = {"type": "object", "additionalProperties": False, "required": ["a"],
              "properties": {"a": {"type": "string", "examples": ["x"], "pattern": "^x$"}}}
    assert strict_problem(closed) is None
    assert strict_problem({**closed, "additionalProperties": True}) == (
        "#: objects need additionalProperties: false in strict mode")
    assert strict_problem({**closed, "required": []}) == (
        "#/properties/a: optional property; strict mode needs every property required")
    assert strict_problem({**closed, "properties": {"a": {"type": "string", "minLength": 1}}}) == (
        "#/properties/a/minLength: keyword 'minLength' is not supported in strict mode")
    nested = {**closed, "properties": {"a": {"type": "array", "items": {"type": "object", "properties": {}}}}}
    assert strict_problem(nested) == "#/properties/a/items: objects need additionalProperties: false in strict mode"
    assert strict_problem({**closed, "properties": {"a": {"type": "string", "format": "uri"}}}) == (
        "#/properties/a/format: format 'uri' is not supported in strict mode")


def test_the_output_typed_dict_is_the_json_form_and_never_narrower() -> None:
    output = {"type": "object", "required": ["class", "day"], "properties": {
        "class": {"type": "string"}, "day": {"type": "string", "format": "date"},
        "json": {"type": "object", "properties": {"n": {"type": "integer"}}},
        "bag": {"$ref": "#/$defs/bag"}},
        "$defs": {"bag": {"type": "object"}}}
    models = generate_models([ModelRequest("m", "MV1", {"type": "object"}, output)])["m"]
    # a property named json already gave the model class MV1OutputJson: the TypedDict gives way
    assert "MV1OutputJson" in models.class_names and models.wire_class == "MV1OutputJsonJson"
    assert not set(models.class_names) & set(models.wire_names)
    assert '"class": str,' in models.wire_body and '"day": str,' in models.wire_body  # the wire form
    assert "MV1OutputBagJson: TypeAlias = dict[str, Any]" in models.wire_body  # not an empty TypedDict
    bare = generate_models([ModelRequest("m", "MV1", {"type": "object"}, {"type": "object"})])["m"]
    assert bare.wire_class == "MV1OutputJson" and bare.wire_body.strip() == "MV1OutputJson: TypeAlias = dict[str, Any]"


def test_a_renamed_typed_dict_keeps_keys_that_spell_its_old_name() -> None:
    from contractgen.codegen.models import _rename

    code = 'X = TypedDict(\n    "X",\n    {\n        "X": NotRequired["X"],\n        "class": X,\n    },\n)\n'
    assert _rename(code, {"X": "XJson"}) == (
        'XJson = TypedDict(\n    "XJson",\n    {\n        "X": NotRequired["XJson"],\n        "class": XJson,\n    },\n)\n')


def test_generated_models_build_their_validators_on_first_use_not_on_import() -> None:
    """A server importing many tools pays at import only for classes, not validators
    (``codegen/model_config.py``, ``bench/startup.py``); the first call builds the input model's."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    probe = r"""
import inspect, sys
from pydantic import BaseModel
import generated.book_meeting_v1 as module
models = [c for _, c in inspect.getmembers(module, inspect.isclass)
          if issubclass(c, BaseModel) and c.__module__ == module.__name__ and not c.__name__.endswith("Error")]
assert models, "no models"
assert all(type(c.__dict__["__pydantic_validator__"]).__name__ == "MockValSer" for c in models), models
tool = module.book_meeting.implement(lambda args: {"meeting_id": "m-1", "starts_at": args.date.isoformat()})
assert type(module.BookMeetingV1Input.__dict__["__pydantic_validator__"]).__name__ == "MockValSer"
envelope = tool({"title": "Review", "date": "2026-03-02T10:00:00+00:00", "duration_minutes": 30,
                 "attendees": ["ana@example.com"]})
assert type(module.BookMeetingV1Input.__dict__["__pydantic_validator__"]).__name__ == "SchemaValidator"
print(envelope["status"])
"""
    done = subprocess.run([sys.executable, "-c", probe], cwd=root, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
