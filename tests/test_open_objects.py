"""Generated models keep what an open object schema accepts: undeclared members reach the
implementation (root, nested, ``$defs``, array items; ``additionalProperties`` absent, ``true``, a
schema; ``patternProperties``; ``unevaluatedProperties``), an implementation's extras reach the
envelope and are still checked against the output schema, and closed objects still refuse them.
Over the shared corpus, every tool's input model round-trips a valid instance with an extra member
at every object its schema leaves open."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from build_support import build, imported_package, make_project
from test_build_corpus import valid_instance

from contractgen.runtime import reference_validator


def _described(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with a description on every property (what the manifest checks ask for)."""
    out = dict(schema)
    if "properties" in out:
        out["properties"] = {name: {"description": f"The {name}.", **_described(sub)}
                             for name, sub in out["properties"].items()}
    for key in ("items", "additionalProperties", "unevaluatedProperties"):
        if isinstance(out.get(key), dict):
            out[key] = _described(out[key])
    for key in ("$defs", "patternProperties"):
        if key in out:
            out[key] = {name: _described(sub) for name, sub in out[key].items()}
    return out


INPUT = _described({
    "type": "object",
    "required": ["id"],
    "properties": {
        "id": {"type": "string"},
        "filter": {"type": "object", "properties": {"status": {"type": "string"}}},
        "labels": {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": True},
        "counts": {"type": "object", "properties": {"total": {"type": "integer"}},
                   "additionalProperties": {"type": "integer"}},
        "tags": {"type": "object", "properties": {"a": {"type": "string"}},
                 "patternProperties": {"^x-": {"type": "integer"}}},
        "lenient": {"type": "object", "properties": {"a": {"type": "string"}},
                    "unevaluatedProperties": {"type": "string"}},
        "rows": {"type": "array", "items": {"type": "object", "properties": {"n": {"type": "integer"}}}},
        "place": {"$ref": "#/$defs/place"},
        "anything": {"type": "object"},
        "strict": {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": False},
        "sealed": {"type": "object", "properties": {"a": {"type": "string"}}, "unevaluatedProperties": False},
        "keyed": {"type": "object", "patternProperties": {"^k": {"type": "integer"}}, "additionalProperties": False},
    },
    "$defs": {
        "place": {"type": "object", "properties": {
            "city": {"type": "string"},
            "geo": {"type": "object", "properties": {"lat": {"type": "number"}}}}},
        "bare": {"type": "object"},
    },
})

OUTPUT = _described({
    "type": "object",
    "required": ["id"],
    "properties": {
        "id": {"type": "string"},
        "meta": {"type": "object", "properties": {"source": {"type": "string"}}},
        "numbered": {"type": "object", "properties": {"a": {"type": "string"}},
                     "patternProperties": {"^n_": {"type": "integer"}}},
        "closed": {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": False},
    },
})


def _manifest(name: str, input_schema: dict[str, Any], output_schema: dict[str, Any]) -> str:
    return json.dumps({"name": name, "version": "1.0.0", "summary": "Takes open objects.",
                       "description": "Takes and returns objects that accept undeclared members.",
                       "input": input_schema, "output": output_schema})


@pytest.fixture(scope="module")
def opentool(tmp_path_factory: pytest.TempPathFactory) -> Any:
    root = make_project(tmp_path_factory.mktemp("open") / "p")
    (root / "contracts" / "opentool").mkdir()
    (root / "contracts" / "opentool" / "1.0.0.json").write_text(_manifest("opentool", INPUT, OUTPUT), "utf-8")
    result = build(root, "--no-cache")
    assert result.returncode == 0, result.stderr
    with imported_package(root) as package:
        yield package.opentool_v1


ARGUMENTS = {
    "id": "x", "root_extra": {"deep": [1, None]},
    "filter": {"status": "open", "owner": "me"},
    "labels": {"a": "b", "colour": "red"},
    "counts": {"total": 3, "apples": 2},
    "tags": {"a": "b", "x-priority": 1, "free": "text"},
    "lenient": {"a": "b", "later": "c"},
    "rows": [{"n": 1, "note": "first"}, {"n": 2}],
    "place": {"city": "Oslo", "zone": "CET", "geo": {"lat": 59.9, "alt": 23}},
    "anything": {"k": [1, 2]},
    "keyed": {"k1": 1},
}


def test_undeclared_members_reach_the_implementation(opentool: Any) -> None:
    seen = []

    def implementation(args: Any) -> Any:
        seen.append(args)
        return {"id": args.id}

    tool = opentool.opentool.implement(implementation)
    envelope = tool(ARGUMENTS)
    assert envelope["status"] == "ok", envelope
    (args,) = seen
    assert args.model_extra == {"root_extra": {"deep": [1, None]}}
    assert args.filter.model_extra == {"owner": "me"}
    assert args.labels.model_extra == {"colour": "red"}
    assert args.counts.model_extra == {"apples": 2}
    assert args.tags.model_extra == {"x-priority": 1, "free": "text"}
    assert args.lenient.model_extra == {"later": "c"}
    assert args.rows[0].model_extra == {"note": "first"} and args.rows[1].model_extra == {}
    assert args.place.model_extra == {"zone": "CET"} and args.place.geo.model_extra == {"alt": 23}
    assert args.anything == {"k": [1, 2]}
    assert args.model_dump(mode="json", by_alias=True, exclude_unset=True) == ARGUMENTS


def test_typed_extras_are_typed_by_the_model(opentool: Any) -> None:
    counts = opentool.OpentoolV1InputCounts
    assert counts.model_validate({"apples": "2"}).model_extra == {"apples": 2}  # lax int, as pydantic reads it
    with pytest.raises(ValueError, match="apples"):
        counts.model_validate({"apples": "many"})
    # a $defs entry that is any object is a model that keeps every member
    assert opentool.OpentoolV1InputBare.model_validate({"a": 1}).model_extra == {"a": 1}


def test_closed_objects_still_refuse_undeclared_members(opentool: Any) -> None:
    tool = opentool.opentool.implement(lambda args: {"id": args.id})
    for where, value in (("strict", {"a": "b", "zzz": 1}), ("sealed", {"a": "b", "zzz": 1}), ("keyed", {"zzz": 1})):
        envelope = tool({"id": "x", where: value})
        assert envelope["status"] == "error", envelope
        assert envelope["error"]["code"] == "INVALID_ARGUMENT"
        assert "zzz" in envelope["error"]["message"], envelope
    for model, value in ((opentool.OpentoolV1InputStrict, {"a": "b", "zzz": 1}),
                         (opentool.OpentoolV1InputSealed, {"a": "b", "zzz": 1})):
        with pytest.raises(ValueError, match="zzz"):
            model.model_validate(value)


def test_an_implementations_extras_reach_the_envelope(opentool: Any) -> None:
    output = opentool.OpentoolV1Output
    meta = opentool.OpentoolV1OutputMeta
    numbered = opentool.OpentoolV1OutputNumbered
    tool = opentool.opentool.implement(
        lambda args: output(id=args.id, meta=meta(source="s", extra_thing=5), numbered=numbered(n_1=1), top=[1]))
    envelope = tool({"id": "x"})
    assert envelope["status"] == "ok", envelope
    assert envelope["output"] == {"id": "x", "meta": {"source": "s", "extra_thing": 5}, "numbered": {"n_1": 1},
                                  "top": [1]}


def test_an_implementations_extras_are_still_checked_against_the_output_schema(opentool: Any) -> None:
    output = opentool.OpentoolV1Output
    tool = opentool.opentool.implement(
        lambda args: output(id="x", numbered=opentool.OpentoolV1OutputNumbered(n_1="not a number")))
    envelope = tool({"id": "x"})
    assert envelope["status"] == "error" and envelope["error"]["code"] == "INTERNAL", envelope
    assert "invalid result" in envelope["error"]["message"]
    # a closed output object cannot even be built with an extra
    with pytest.raises(ValueError, match="zzz"):
        opentool.OpentoolV1OutputClosed(a="b", zzz=1)


# -- the shared corpus ---------------------------------------------------------------------------

#: candidate values for an extra member, tried in order until the schema accepts one
_EXTRA_VALUES: tuple[Any, ...] = ("extra", 7, True, None, {}, [], 0.5)


#: Objects closed by ``unevaluatedProperties: false`` whose other applicators evaluate members the
#: model's fields do not declare (from the JSON-Schema-Test-Suite's unevaluatedProperties cases): each
#: with an object the schema accepts and one it refuses. A closed model refused the first with
#: "'bar' must be string" for a string.
EVALUATED_ELSEWHERE = {
    "allOf-patternProperties": ({"properties": {"foo": {"type": "string"}},
                                 "allOf": [{"patternProperties": {"^bar": {"type": "string"}}}]},
                                {"foo": "foo", "bar": "bar"}, {"foo": "foo", "baz": "baz"}),
    "allOf-additionalProperties": ({"properties": {"foo": {"type": "string"}},
                                    "allOf": [{"additionalProperties": True}]},
                                   {"foo": "foo", "bar": "bar"}, {"foo": 1}),
    "anyOf": ({"properties": {"foo": {"type": "string"}},
               "anyOf": [{"properties": {"bar": {"const": "bar"}}, "required": ["bar"]},
                         {"properties": {"baz": {"const": "baz"}}, "required": ["baz"]}]},
              {"foo": "foo", "bar": "bar", "baz": "baz"}, {"foo": "foo", "bar": "bar", "quux": "q"}),
    "dependentSchemas": ({"properties": {"foo": {"type": "string"}},
                          "dependentSchemas": {"foo": {"properties": {"bar": {"const": "bar"}}, "required": ["bar"]}}},
                         {"foo": "foo", "bar": "bar"}, {"bar": "bar"}),
    "nested-unevaluated": ({"allOf": [{"properties": {"foo": {"type": "string"}}, "unevaluatedProperties": True}]},
                           {"foo": "foo", "bar": "bar"}, {"foo": 3}),
}


@pytest.mark.parametrize("case", sorted(EVALUATED_ELSEWHERE))
def test_members_evaluated_by_other_applicators_are_accepted_and_the_rest_refused(tmp_path: Path, case: str) -> None:
    shape, valid, invalid = EVALUATED_ELSEWHERE[case]
    schema = {"type": "object", **shape, "unevaluatedProperties": False}
    assert reference_validator.validator(schema, formats=False).is_valid(valid)
    assert not reference_validator.validator(schema, formats=False).is_valid(invalid)
    root = make_project(tmp_path / "p")
    (root / "contracts" / "evaluated").mkdir()
    output = {"type": "object", "required": ["ok"], "properties": {"ok": {"type": "boolean"}}}
    (root / "contracts" / "evaluated" / "1.0.0.json").write_text(_manifest("evaluated", schema, output), "utf-8")
    result = build(root, "--no-cache")
    assert result.returncode == 0, result.stderr
    with imported_package(root) as package:
        seen: list[Any] = []
        tool = package.evaluated_v1.evaluated.implement(
            lambda arguments: seen.append(arguments.model_dump(mode="json", by_alias=True, exclude_unset=True))
            or {"ok": True})
        accepted = tool(valid)
        assert accepted["status"] == "ok", accepted
        assert seen == [valid]  # every member reaches the implementation
        refused = tool(invalid)
        assert refused["status"] == "error" and refused["error"]["code"] == "INVALID_ARGUMENT", refused
        assert len(seen) == 1


def _object_positions(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The path of every object inside ``value`` (itself included), outermost first."""
    found: list[tuple[Any, ...]] = []
    if isinstance(value, dict):
        found.append(path)
        for key, child in value.items():
            found.extend(_object_positions(child, (*path, key)))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found.extend(_object_positions(child, (*path, index)))
    return found


def _at(value: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        value = value[step]
    return value


def with_extras(validator: Any, instance: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """``instance`` with one undeclared member added at every object where the schema accepts one
    (its validity decides, not a reading of the schema), and how many objects took one."""
    extended = json.loads(json.dumps(instance))
    added = 0
    for number, path in enumerate(_object_positions(instance)):
        target = _at(extended, path)
        key = f"zz_undeclared_{number}"
        for candidate in _EXTRA_VALUES:
            target[key] = candidate
            if validator.is_valid(extended):
                added += 1
                break
            del target[key]
    return extended, added


def _every_property_required(schema: Any) -> Any:
    """``schema`` with every object's properties required and every array given an item: its
    instance reaches the nested objects."""
    if isinstance(schema, list):
        return [_every_property_required(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: (value if key in ("enum", "const", "default", "examples") else _every_property_required(value))
           for key, value in schema.items()}
    if isinstance(schema.get("properties"), dict):
        out["required"] = sorted(set(schema.get("required") or []) | set(schema["properties"]))
    if isinstance(schema.get("items"), dict) and not schema.get("minItems") and schema.get("maxItems") != 0:
        out["minItems"] = 1
    return out


def _fullest_instance(validator: Any, schema: dict[str, Any]) -> dict[str, Any] | None:
    """A valid instance with every property filled in where that stays valid, else the minimal one."""
    for source in (_every_property_required(schema), schema):
        instance = valid_instance(source, source)
        if isinstance(instance, dict) and validator.is_valid(instance):
            return instance
    return None


def test_corpus_input_models_keep_every_member_an_open_object_accepts(imported_corpus: Path) -> None:
    with imported_package(imported_corpus) as package:
        tools = objects = skipped = 0
        failures = []
        for module_name in package.MODULES:
            module = getattr(package, module_name)
            schema = module.INPUT_SCHEMA
            validator = reference_validator.validator(schema)
            instance = _fullest_instance(validator, schema)
            if instance is None:
                skipped += 1  # the simple instance maker found no valid value for this schema
                continue
            extended, added = with_extras(validator, instance)
            model = getattr(module, module.CONTRACT.name).input_model
            dumped = model.model_validate(extended).model_dump(mode="json", by_alias=True, exclude_unset=True)
            tools += 1
            objects += added
            if dumped != extended:
                failures.append((module_name, extended, dumped))
    print(f"\nopen objects round-tripped: {tools} tools, {objects} objects took an undeclared member; "
          f"{skipped} tools without a valid simple instance")
    assert tools >= 150 and objects >= tools
    assert failures == [], f"{len(failures)} tools lost members, first: {failures[0]}"

