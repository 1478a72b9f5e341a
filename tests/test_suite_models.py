"""Generated input models agree with the JSON-Schema-Test-Suite: every object the 2020-12 suite calls
valid, sent to a guard over that schema and its generated model, comes back ``ok`` and reaches the
implementation unchanged; every instance the suite calls invalid comes back INVALID_ARGUMENT. The
same holds with each suite schema one level down, as the schema of an argument: there every
instance counts, of any JSON type (a schema that names no type accepts them all).

A tool's arguments are an object, so each schema is used with ``type: object`` at its root where it
names no type and does not refer to its root (so no object's verdict changes), with the instances that
are objects. Left out: schemas ``check`` refuses as an input schema (an invalid ``default``, say), and
those that refer by ``$id``, ``$anchor`` or ``$dynamic*`` (a manifest's schemas are local)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from build_support import model_module
from conftest import CORPUS

from contractgen.codegen.models import ModelRequest, ModelsError, generate_models
from contractgen.diagnostics import Level
from contractgen.manifest.parse import ParsedFile
from contractgen.manifest.report import Reporter
from contractgen.manifest.schema_checks import check_embedded_schema
from contractgen.runtime import Contract, guard

SUITE = CORPUS / "json_schema_test_suite" / "tests" / "draft2020-12"


def _refers_by_name(schema: Any) -> bool:
    text = json.dumps(schema)
    return any(key in text for key in ('"$id"', '"$anchor"', '"$dynamicAnchor"', '"$dynamicRef"'))


def _check_accepts(schema: dict[str, Any]) -> bool:
    report = Reporter(ParsedFile("suite/1.0.0.json"))
    usable = check_embedded_schema(report, "input", schema)
    return usable and not any(d.level is Level.ERROR for d in report.diagnostics)


def _input_model(schema: dict[str, Any], name: str) -> Any:
    """The input model the build generates for ``schema``, run as a module of its own."""
    models = generate_models([ModelRequest("s", "SuiteV1", schema, {"type": "object"})])["s"]
    namespace = model_module(models, name, models.body)
    model = namespace[models.input_class]
    model.model_rebuild(_types_namespace=namespace)
    return model


def _suite_input_schemas() -> list[tuple[str, dict[str, Any], list[dict[str, Any]]]]:
    if not SUITE.is_dir():
        pytest.skip(f"JSON-Schema-Test-Suite not found at {SUITE}")
    found = []
    for path in sorted(SUITE.glob("*.json")):
        for index, group in enumerate(json.loads(path.read_text("utf-8"))):
            schema = group["schema"]
            if not isinstance(schema, dict) or schema.get("type", "object") != "object" or _refers_by_name(schema):
                continue
            if "type" not in schema and '"$ref": "#"' in json.dumps(schema):
                continue  # the root's new type would reach the members that refer to it
            objects = [test for test in group["tests"] if isinstance(test["data"], dict)]
            schema = {**schema, "type": "object"}
            if objects and _check_accepts(schema):
                found.append((f"{path.stem}#{index}", schema, objects))
    return found


def _verdicts(groups: list[tuple[str, dict[str, Any], list[dict[str, Any]]]], arguments: Any,
              module_prefix: str) -> tuple[int, int, list[str]]:
    """(schemas guarded, instances sent, problems): each group's instances, made into arguments by
    ``arguments``, sent to a guard over its schema and generated model; a valid one must come back
    ok and reach the implementation unchanged, an invalid one INVALID_ARGUMENT."""
    received: list[Any] = []

    def implementation(sent: Any) -> dict[str, Any]:
        received.append(sent)
        return {}

    schemas = instances = 0
    problems = []
    for label, schema, tests in groups:
        try:
            model = _input_model(schema, module_prefix + label.replace("#", "_").replace("-", "_"))
        except ModelsError:
            continue  # the build refuses these with a diagnostic: no guard to call
        contract = Contract(name="suite", version="1.0.0", summary="s", description="d",
                            input_schema=schema, output_schema={"type": "object"})
        # format.json is 2020-12's default reading, format as an annotation (the guard's formats=False);
        # the guard asserts formats by default, which tests/test_model_exact_values.py runs the
        # suite's optional/format/ against
        tool = guard(contract, implementation, input_model=model, formats=not label.startswith("format#"))
        schemas += 1
        for test in tests:
            instances += 1
            received.clear()
            envelope = tool(arguments(test["data"]))
            data = json.dumps(test["data"])[:120]
            if not test["valid"]:
                if envelope["status"] != "error" or envelope["error"]["code"] != "INVALID_ARGUMENT":
                    problems.append(f"{label} {test['description']!r}: invalid {data} came back {envelope}")
                continue
            if envelope["status"] != "ok":
                problems.append(f"{label} {test['description']!r}: valid {data} came back "
                                f"{envelope['error']['message']}\n  schema {json.dumps(schema)[:200]}")
                continue
            sent = received[0].model_dump(mode="json", by_alias=True, exclude_unset=True)
            if sent != arguments(test["data"]):
                problems.append(f"{label} {test['description']!r}: {data} reached the implementation as "
                                f"{json.dumps(sent)[:120]}")
    return schemas, instances, problems


def test_every_suite_instance_gets_the_suites_verdict_through_guard_and_model() -> None:
    schemas, instances, problems = _verdicts(_suite_input_schemas(), lambda data: data, "suite_")
    print(f"\nsuite input schemas guarded: {schemas}, instances: {instances}")
    assert schemas >= 60 and instances >= 250
    assert not problems, "\n".join(problems)


def _one_level_down(node: Any) -> Any:
    """``node`` as the schema of the property ``v`` of an object: its own references point there."""
    if isinstance(node, list):
        return [_one_level_down(item) for item in node]
    if not isinstance(node, dict):
        return node
    return {key: "#/properties/v" + value[1:] if key == "$ref" and isinstance(value, str) and value.startswith("#")
            else value if key in ("enum", "const", "default", "examples") else _one_level_down(value)
            for key, value in node.items() if key != "$schema"}


def _suite_argument_schemas() -> list[tuple[str, dict[str, Any], list[dict[str, Any]]]]:
    if not SUITE.is_dir():
        pytest.skip(f"JSON-Schema-Test-Suite not found at {SUITE}")
    found = []
    for path in sorted(SUITE.glob("*.json")):
        for index, group in enumerate(json.loads(path.read_text("utf-8"))):
            if _refers_by_name(group["schema"]):
                continue
            schema = {"type": "object", "properties": {"v": _one_level_down(group["schema"])}}
            if _check_accepts(schema):
                found.append((f"{path.stem}#{index}", schema, group["tests"]))
    return found


def test_every_suite_instance_gets_the_suites_verdict_as_an_argument() -> None:
    """The model of an argument is never narrower than its schema: an untyped schema's object or
    array keywords, an untyped ``allOf``, ``unevaluatedItems`` beside what evaluates items each made
    the generated model refuse valid values, and the caller was told "'v' must be valid"."""
    schemas, instances, problems = _verdicts(_suite_argument_schemas(), lambda data: {"v": data}, "suite_v_")
    print(f"\nsuite argument schemas guarded: {schemas}, instances: {instances}")
    assert schemas >= 250 and instances >= 1000
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", ["if", "not", "allOf", "dependentSchemas", "then"])
def test_an_untyped_argument_named_like_a_keyword_accepts_every_type(name: str) -> None:
    """A property named ``if`` or ``allOf`` is an argument, not a branch of its parent: its untyped
    schema accepts a string as any other does."""
    schema = {"type": "object", "properties": {name: {"properties": {"a": {"type": "integer"}}}}}
    model = _input_model(schema, f"keyword_named_{name}")
    contract = Contract(name="suite", version="1.0.0", summary="s", description="d",
                        input_schema=schema, output_schema={"type": "object"})
    tool = guard(contract, lambda arguments: {}, input_model=model)
    for value in ("x", 3, [1], None, {"a": 1}):
        assert tool({name: value})["status"] == "ok", value
    assert tool({name: {"a": "x"}})["error"]["code"] == "INVALID_ARGUMENT"
