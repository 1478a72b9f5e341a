"""Keys that steer datamodel-code-generator, placed anywhere in a schema: `check` refuses each one at
its own pointer, and a build that skipped `check` still never imports the module such a key names."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contractgen.codegen.models import ModelRequest, generate_models
from contractgen.manifest.generator_keys import (
    GENERATOR_STEERING_KEYS,
    generator_input,
    generator_steering_keys,
)
from contractgen.manifest.parse import ParsedFile
from contractgen.manifest.report import Reporter
from contractgen.manifest.schema_checks import check_embedded_schema
from contractgen.manifest.schema_walk import subschemas

PLANTED = "cg_planted_module"


def steering_value(key: str) -> Any:
    """A value the generator acts on, naming the planted module wherever it takes a module."""
    return {
        "customTypePath": f"{PLANTED}.Thing",
        "customBasePath": f"{PLANTED}.Base",
        "x-python-type": f"{PLANTED}.Thing",
        "x-python-import": {"module": PLANTED, "name": "Thing"},
        "x-enum-varnames": ["A"],
        "x-enumNames": ["A"],
        "x-enum-descriptions": ["a"],
        "default_factory": f"{PLANTED}.make",
        "discriminator": {"propertyName": "kind"},
        "x-datamodel-code-generator-field-name": "renamed",
    }.get(key, True)


names = st.text("abcdefghij_", min_size=1, max_size=6)
leaves = st.sampled_from(["string", "integer", "number", "boolean"]).map(lambda t: {"type": t})
schema_trees = st.recursive(
    leaves,
    lambda inner: st.one_of(
        st.dictionaries(names, inner, min_size=1, max_size=3).map(
            lambda props: {"type": "object", "properties": props}
        ),
        inner.map(lambda item: {"type": "array", "items": item}),
        inner.map(lambda sub: {"type": "object", "additionalProperties": sub}),
        st.lists(inner, min_size=1, max_size=2).map(lambda subs: {"anyOf": subs}),
        inner.map(lambda sub: {"allOf": [sub]}),
    ),
    max_leaves=8,
).map(lambda root: root if root.get("type") == "object" else {"type": "object", "properties": {"v": root}})


@st.composite
def planted_schemas(draw: st.DrawFn) -> tuple[dict[str, Any], list[str]]:
    """A random object schema with steering keys at random schema positions; their pointers."""
    schema = draw(schema_trees)
    positions = [(p, sub) for p, sub in subschemas(schema)]
    planted: list[str] = []
    for key in draw(st.lists(st.sampled_from(sorted(GENERATOR_STEERING_KEYS)), min_size=1, max_size=4)):
        pointer, sub = draw(st.sampled_from(positions))
        if key not in sub:
            sub[key] = steering_value(key)
            planted.append(f"{pointer}/{key}")
    return schema, planted


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(planted=planted_schemas())
def test_check_refuses_every_steering_key_where_it_sits(planted: tuple[dict[str, Any], list[str]]) -> None:
    schema, pointers = planted
    report = Reporter(ParsedFile("render_invoice/1.0.0.json"))
    check_embedded_schema(report, "input", schema)
    refused = sorted(d.pointer for d in report.diagnostics if d.code == "generator-steering-key")
    assert refused == sorted(f"/input{p}" for p in pointers)
    assert all(d.level.value == "error" for d in report.diagnostics if d.code == "generator-steering-key")
    assert sorted(generator_steering_keys(schema)) == sorted(pointers)


@settings(max_examples=80, deadline=None)
@given(planted=planted_schemas())
def test_generator_input_keeps_only_keywords_and_every_property(
    planted: tuple[dict[str, Any], list[str]],
) -> None:
    schema, _ = planted
    clean = generator_input(schema)
    assert generator_steering_keys(clean) == []
    # same schema positions (no property, branch or item lost), and the input is left as it was
    assert [p for p, _ in subschemas(clean)] == [p for p, _ in subschemas(schema)]
    assert generator_steering_keys(schema) != []


def test_a_property_named_like_a_steering_key_is_not_a_key() -> None:
    schema = {"type": "object", "properties": {"customTypePath": {"type": "string"}},
              "default": {"x-python-type": "data"}}
    assert generator_steering_keys(schema) == []
    assert generator_input(schema) == schema


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(planted=planted_schemas())
def test_forced_build_never_names_the_planted_module(planted: tuple[dict[str, Any], list[str]]) -> None:
    # the models step called directly, as a build that skipped `check` would call it
    schema, _ = planted
    models = generate_models([ModelRequest("t", "RenderInvoiceV1", schema, {"type": "object"})])["t"]
    assert PLANTED not in repr(models.imports) + models.body
    # contractgen.runtime.redaction: an open input model keeps undeclared secrets out of its repr
    assert {module for module, _ in models.imports} <= {"pydantic", "typing", "enum", "__future__",
                                                         "contractgen.runtime.redaction"}


def test_forced_build_module_imports_without_running_the_planted_module(tmp_path: Path) -> None:
    """Every steering key at once, at the root and in a property; the generated module is imported
    for real next to a planted module that records being imported."""
    prop: dict[str, Any] = {"type": "string"}
    root: dict[str, Any] = {"type": "object", "properties": {"invoice_id": prop}}
    for key in sorted(GENERATOR_STEERING_KEYS):
        prop[key] = steering_value(key)
        root[key] = steering_value(key)
    models = generate_models([ModelRequest("t", "RenderInvoiceV1", root, {"type": "object"})])["t"]
    imports = "".join(f"from {m} import {', '.join(n)}\n" for m, n in models.imports)
    (tmp_path / "generated_models.py").write_text("from __future__ import annotations\n" + imports + models.body)
    marker = tmp_path / "planted-was-imported"
    (tmp_path / f"{PLANTED}.py").write_text(
        f"import pathlib\npathlib.Path({str(marker)!r}).write_text('x')\nThing = Base = str\n"
    )
    code = f"import generated_models as m; m.{models.input_class}.model_validate({{'invoice_id': 'i'}})"
    result = subprocess.run([sys.executable, "-c", code], check=False, cwd=tmp_path, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert not marker.exists()
