"""The output TypedDict that types ``envelope["output"]`` agrees with the envelopes the guard really
returns: for the bundled example implementations called with their contracts' examples, and for an
output in every shape (aliases, formats, nesting, recursion, anyOf, maps) returned as a model."""

from __future__ import annotations

import asyncio
import datetime as dt
import importlib.util
import sys
from pathlib import Path
from typing import Any

from build_support import build, imported_package, make_project
from conftest import ROOT
from wire_support import wire_mismatches, wire_type

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
