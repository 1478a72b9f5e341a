"""The shipped meta-schema is what editors see: a valid 2020-12 schema, with a description on every
field, that accepts the bundled manifests as a generic validator reads them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from contractgen.runtime import reference_validator

ROOT = Path(__file__).resolve().parents[1]
META = json.loads(
    resources.files("contractgen.schema").joinpath("manifest.schema.json").read_text("utf-8")
)


def _fields(schema: dict[str, Any], pointer: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    for name, child in schema.get("properties", {}).items():
        yield f"{pointer}/{name}", child
        yield from _fields(child, f"{pointer}/{name}")
    items = schema.get("items")
    if isinstance(items, dict):
        yield from _fields(items, f"{pointer}/items")


def test_meta_schema_is_valid_2020_12() -> None:
    jsonschema.Draft202012Validator.check_schema(META)
    assert META["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_every_field_has_a_description_for_editors() -> None:
    missing = [pointer for pointer, field in _fields(META) if not field.get("description")]
    assert missing == []


@pytest.mark.parametrize(
    "path", sorted((ROOT / "contracts").rglob("*.yaml")), ids=lambda p: f"{p.parent.name}/{p.name}"
)
def test_bundled_manifests_satisfy_the_meta_schema_as_an_editor_reads_them(path: Path) -> None:
    first_line = path.read_text("utf-8").splitlines()[0]
    assert (
        first_line
        == "# yaml-language-server: $schema=../../contractgen/schema/manifest.schema.json"
    )
    assert (path.parent / first_line.split("=", 1)[1]).resolve() == (
        ROOT / "contractgen" / "schema" / "manifest.schema.json"
    )
    errors = list(
        reference_validator.validator(META, formats=False).iter_errors(yaml.safe_load(path.read_text()))
    )
    assert errors == []
