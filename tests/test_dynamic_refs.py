"""A ``$dynamicRef`` to a ``$dynamicAnchor`` (the 2020-12 spelling of a recursive schema) is accepted by
check and followed by build, guard and diff, as the ``$ref`` it amounts to in a one-resource schema.

check refused it ("expected a $ref that resolves in this schema ... no $anchor 'node'"): anchors were
looked up under ``$anchor`` only, although a ``$dynamicAnchor`` names its subschema too.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import jsonschema
from build_support import build, imported_package, make_project
from conftest import run_cli

from contractgen.manifest.schema_walk import static_dynamic_refs


def _tree_manifest(version: str = "1.0.0", label_type: str = "string", how: str = "dynamic") -> dict[str, Any]:
    """A tool taking a tree: each node's children are nodes again, referred to ``how``."""
    a, b = ("a", "b") if label_type == "string" else (1, 2)
    ref = {"dynamic": {"$dynamicRef": "#node"}, "anchor": {"$ref": "#node"},
           "pointer": {"$ref": "#/$defs/node"}}[how]
    return {
        "name": "tree", "version": version, "summary": "Store a tree.",
        "description": "Stores a tree of labelled nodes.",
        "input": {"type": "object", "additionalProperties": False, "required": ["root"],
                  "properties": {"root": {**ref, "description": "The tree's root node."}},
                  "$defs": {"node": {"$dynamicAnchor": "node", "type": "object", "additionalProperties": False,
                                     "required": ["label"],
                                     "properties": {"label": {"type": label_type, "description": "The label."},
                                                    "children": {"type": "array", "items": ref,
                                                                 "description": "Child nodes."}}}}},
        "output": {"type": "object", "required": ["stored"], "properties": {"stored": {"type": "integer"}}},
        "errors": [],
        "examples": [{"summary": "Two levels.", "arguments": {"root": {"label": a, "children": [{"label": b}]}}}],
    }


def _write(root: Path, manifest: dict[str, Any]) -> None:
    folder = root / manifest["name"]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{manifest['version']}.json").write_text(json.dumps(manifest), "utf-8")


def test_check_accepts_a_dynamic_ref_to_a_dynamic_anchor(tmp_path: Path) -> None:
    _write(tmp_path, _tree_manifest())
    result = run_cli("check", str(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "resolves" not in result.stdout + result.stderr


def test_check_still_refuses_a_dynamic_ref_to_no_anchor(tmp_path: Path) -> None:
    manifest = _tree_manifest()
    manifest["input"]["$defs"]["node"]["properties"]["children"]["items"] = {"$dynamicRef": "#nowhere"}
    _write(tmp_path, manifest)
    result = run_cli("check", str(tmp_path))
    assert result.returncode == 2
    assert "#/input/$defs/node/properties/children/items/$dynamicRef" in result.stdout + result.stderr
    assert "no $anchor 'nowhere'" in result.stdout + result.stderr


def test_build_and_guard_follow_the_dynamic_ref_at_every_depth(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p")
    _write(root / "contracts", _tree_manifest())
    result = build(root)
    assert result.returncode == 0, result.stderr
    with imported_package(root):
        module = importlib.import_module("generated.tree_v1")
        seen: list[Any] = []
        call = module.tree.implement(lambda args: seen.append(args) or {"stored": 3})
        deep = {"root": {"label": "a", "children": [{"label": "b", "children": [{"label": "c"}]}]}}
        assert call(deep)["status"] == "ok"
        # the generated model is recursive: the grandchild is a node model, not a plain dict
        grandchild = seen[0].root.children[0].children[0]
        assert type(grandchild) is type(seen[0].root) and grandchild.label == "c"
        refused = call({"root": {"label": "a", "children": [{"label": "b", "children": [{"label": 7}]}]}})
        assert refused["status"] == "error" and refused["error"]["code"] == "INVALID_ARGUMENT", refused
        assert "children" in json.dumps(refused["error"])


def test_diff_sees_through_a_dynamic_ref(tmp_path: Path) -> None:
    """A type narrowed behind a $dynamicRef is breaking with a witness; respelling the reference
    ($dynamicRef, $ref to the anchor, $ref to the pointer) is no change."""
    for how in ("anchor", "pointer"):
        _write(tmp_path / "old", {**_tree_manifest("1.0.0", how=how), "name": f"respelt_{how}"})
        _write(tmp_path / "new", {**_tree_manifest("1.0.1"), "name": f"respelt_{how}"})
    _write(tmp_path / "old", {**_tree_manifest("1.0.0"), "name": "narrowed"})
    _write(tmp_path / "new", {**_tree_manifest("1.1.0", label_type="integer"), "name": "narrowed"})
    result = run_cli("diff", str(tmp_path / "old"), str(tmp_path / "new"), "--format", "json")
    assert result.returncode == 1, result.stdout + result.stderr
    findings = json.loads(result.stdout)["findings"]
    assert not [f for f in findings if f["tool"].startswith("respelt")], findings
    narrowed = [f for f in findings if f["tool"] == "narrowed" and f["level"] == "breaking" and f["rule"].startswith("input-")]
    assert narrowed and all(f["witness"] is not None for f in narrowed), findings
    old_input = _tree_manifest()["input"]
    new_input = _tree_manifest(label_type="integer")["input"]
    for finding in narrowed:
        assert jsonschema.Draft202012Validator(old_input).is_valid(finding["witness"])
        assert not jsonschema.Draft202012Validator(new_input).is_valid(finding["witness"])


def test_static_spelling_keeps_the_meaning() -> None:
    """The rewrite build, guard and diff read: the same verdict as the authored schema for nested trees."""
    authored = _tree_manifest()["input"]
    static = static_dynamic_refs(authored)
    assert "$dynamicRef" not in json.dumps(static) and "$dynamicRef" in json.dumps(authored)
    values = [{"root": {"label": "a"}}, {"root": {"label": 1}}, {"root": {"label": "a", "children": [{}]}},
              {"root": {"label": "a", "children": [{"label": "b", "children": [{"label": None}]}]}},
              {"root": {"label": "a", "children": [{"label": "b", "children": [{"label": "c"}]}]}}]
    for value in values:
        assert (jsonschema.Draft202012Validator(static).is_valid(value)
                == jsonschema.Draft202012Validator(authored).is_valid(value)), value
