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
    assert set(hoisted) == {"TV1Input", "TV1InputX", "TV1InputXDef"}
    properties = hoisted["TV1Input"]["properties"]
    assert properties["a"] == {"$ref": "#/$defs/TV1InputX"}
    assert properties["b"] == {"$ref": "#/$defs/TV1Input"}
    assert properties["c"] == {"$ref": "#/$defs/TV1Input/properties/a"}
    assert properties["d"] == {"enum": [{"$ref": "#/not/a/ref"}]}, "data is never rewritten"


def test_unmodelable_schemas_raise_a_models_error() -> None:
    with pytest.raises(ModelsError, match="dynamic|Unresolved"):
        generate_models([ModelRequest("m", "MV1", {"type": "object", "properties": {"p": {"$dynamicRef": "#meta"}}},
                                      OUT)])
    with pytest.raises(ModelsError, match="local \\$ref") as caught:
        generate_models([ModelRequest("m", "MV1", {"type": "object", "properties": {"p": {"$ref": "https://x/y"}}},
                                      OUT)])
    assert caught.value.owner == "m"
