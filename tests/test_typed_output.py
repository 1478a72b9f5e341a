"""The output TypedDict that types ``envelope["output"]`` agrees with the envelopes the guard really
returns: for the bundled example implementations called with their contracts' examples, for an
output in every shape (aliases, formats, nesting, recursion, anyOf, maps) returned as a model, and for
every valid instance of the JSON-Schema-Test-Suite against the type generated from its schema."""

from __future__ import annotations

import asyncio
import datetime as dt
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from build_support import build, imported_package, make_project, model_module
from conftest import CORPUS, ROOT
from wire_support import wire_mismatches, wire_type

from contractgen.codegen.models import ModelRequest, ModelsError, generate_models

WIRE_SHAPES = ROOT / "tests" / "cases" / "build" / "wire_shapes" / "contracts"


def _example_server() -> Any:
    spec = importlib.util.spec_from_file_location("contractgen_example_server", ROOT / "examples" / "mcp_server.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bundled_examples_answer_in_their_typed_shape() -> None:
    server = _example_server()
    checked = 0
    for tool in server.TOOLS:
        shape = wire_type(sys.modules[f"generated.{tool.name}_v{tool.version.split('.')[0]}"])
        for example in tool.contract.examples:
            envelope = asyncio.run(tool.acall(dict(example.arguments), session=f"{tool.name}-{example.summary}"))
            if envelope["status"] != "ok":
                continue
            assert wire_mismatches(envelope["output"], shape) == [], (tool.name, envelope["output"])
            checked += 1
    assert checked >= len(server.TOOLS)  # every tool answered ok at least once


def test_the_checker_sees_what_does_not_fit() -> None:
    from generated.get_exchange_rate_v1 import GetExchangeRateV1OutputJson as Rate

    good = {"base": "EUR", "quote": "USD", "rate": 1, "date": "2026-11-27"}
    assert wire_mismatches(good, Rate) == []
    assert wire_mismatches({**good, "rate": True}, Rate) != []  # a bool is not a JSON number here
    assert wire_mismatches({**good, "date": dt.date(2026, 11, 27)}, Rate) != []  # the model's type, not the wire's
    assert wire_mismatches({**good, "bogus": 1}, Rate) == ["/: key 'bogus' is not declared by GetExchangeRateV1OutputJson"]
    assert wire_mismatches({k: v for k, v in good.items() if k != "date"}, Rate) == ["/: required key 'date' missing"]


def test_every_shape_of_output_arrives_as_its_typed_dict_declares(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p", WIRE_SHAPES)
    assert build(root, "--no-cache").returncode == 0
    with imported_package(root) as package:
        module = package.wire_shapes_v1
        shape = wire_type(module)
        assert shape.__name__ == "WireShapesV1OutputJsonJson"  # the model class for property json kept its name
        model = module.WireShapesV1Output
        node = module.WireShapesV1OutputNode
        full = model.model_validate({
            "class": "c", "page-size": 20, "day": "2026-11-27", "at": "2026-11-27T10:00:00Z", "kind": "open",
            "note": None, "tree": {"label": "root", "children": [{"label": "leaf", "children": []}]},
            "pick": {"x": 1.5, "y": 2}, "counts": {"a": 1}, "extra": {"tag": "t"}, "data": {"v": 0.5},
            "json": {"w": True}, "any": [1, {"k": None}], "meta": {"anything": [1]}})
        assert isinstance(full.day, dt.date) and isinstance(full.tree, node)
        minimal = {"class": "c", "page-size": 1, "day": "2026-01-02", "at": "2026-01-02T00:00:00+01:00",
                   "kind": "closed", "tree": {"label": "only"}, "data": {}}
        answers = [full, model.model_validate(minimal), minimal, {**minimal, "pick": 3}]
        tool = module.wire_shapes.implement(lambda args: answers.pop(0))
        for _ in range(4):
            envelope = tool({})
            assert envelope["status"] == "ok", envelope
            output = envelope["output"]
            assert wire_mismatches(output, shape) == [], output
            assert output["class"] == "c" and isinstance(output["day"], str)  # wire names, dates as text
        assert not answers


def _refers_by_name(schema: Any) -> bool:
    text = json.dumps(schema)
    return any(key in text for key in ('"$id"', '"$anchor"', '"$dynamicAnchor"', '"$dynamicRef"'))


def test_every_valid_instance_of_the_json_schema_test_suite_has_its_typed_dict_type() -> None:
    """Never narrower: each 2020-12 suite schema as an output; every instance the suite calls valid
    has the TypedDict's type (undeclared keys allowed, as for any TypedDict)."""
    suite = CORPUS / "json_schema_test_suite" / "tests" / "draft2020-12"
    if not suite.is_dir():
        pytest.skip(f"JSON-Schema-Test-Suite not found at {suite}")
    typed = instances = unmodelable = by_name = 0
    problems = []
    for path in sorted(suite.glob("*.json")):
        for index, group in enumerate(json.loads(path.read_text("utf-8"))):
            schema = group["schema"]
            if not isinstance(schema, dict) or _refers_by_name(schema):
                by_name += isinstance(schema, dict)
                continue
            try:
                models = generate_models([ModelRequest("s", "SuiteV1", {"type": "object"}, schema)])["s"]
            except ModelsError:
                unmodelable += 1  # the build refuses these with a diagnostic; nothing to type
                continue
            shape = _load_wire_type(models, f"suite_{path.stem}_{index}")
            typed += 1
            for test in group["tests"]:
                if test["valid"]:
                    instances += 1
                    found = wire_mismatches(test["data"], shape, closed=False, integral_floats=True)
                    if found:
                        problems.append(f"{path.stem}#{index} {test['description']!r}: {found[:2]}\n"
                                        f"  schema {json.dumps(schema)[:300]}\n  type {models.wire_body[:300]}")
    print(f"\nsuite schemas typed: {typed}, valid instances checked: {instances}; not modelable: {unmodelable},"
          f" skipped (refer by $id/$anchor/$dynamic*): {by_name}")
    assert typed >= 250 and instances >= 600
    assert not problems, "\n".join(problems)


def _load_wire_type(models: Any, name: str) -> Any:
    """The generated TypedDict code (with its imports) run as a module of its own."""
    return model_module(models, name, models.wire_body)[models.wire_class]
