"""Sensitive fields hidden in generated models: ``repr()`` / ``str()`` never show them, and a model
holding one never quotes its input in a ``ValidationError``.

A value the contract marks sensitive (``writeOnly``, ``x-sensitive``, through any reference or
combinator, or under a secret-looking name: the runtime's own rules in ``redaction.py``) never
reaches the model or a log through the guard; a generated model printed by the implementation's own
log line, or a ``ValidationError`` of one, would show it anyway. So every such field is declared
``Field(repr=False)``, a field whose value holds one somewhere inside is hidden whole, and every model
that holds one (itself, or through a model it contains) gets ``hide_input_in_errors=True``.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from typing import Any

from ..runtime.jsonvalue import MISSING
from ..runtime.pointer import resolve_pointer
from ..runtime.redaction import sensitive_name
from ..runtime.schema_resolve import applicable, marked_below, member_nodes
from ..runtime.schema_walk import is_marked
from .defaults import import_aliases, imported_name, with_import
from .model_config import byte_offsets, config_keyword, keyword_added, resolves_to

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def hide_sensitive_fields(code: str, metadata: Iterable[Mapping[str, Any]], bundle: Mapping[str, Any],
                          inputs: Iterable[str] = ()) -> str:
    """``code`` (the generator's module for ``{"$defs": bundle}``, described by its ``metadata``)
    with sensitive fields out of ``repr`` and the models holding them hiding their input in errors.
    ``bundle`` holds the schemas as the author wrote them (the generator's copy lost ``x-sensitive``);
    ``inputs`` names its keys that come from input schemas, whose open models (``extra="allow"``)
    also keep an undeclared member named like a secret out of ``repr`` (all of them where the
    schema marks undeclared members) and hide their input in errors."""
    root = {"$defs": dict(bundle)}
    metadata = list(metadata)
    hidden, holding = _sensitive_fields(metadata, root)
    inputs = set(inputs)
    input_classes = {m.get("class_name") for m in metadata if _bundle_key(m) in inputs}
    tree = ast.parse(code)
    aliases = import_aliases(tree)
    open_inputs = [node for node in tree.body if isinstance(node, ast.ClassDef) and node.name in input_classes
                   and _extra_allowed(node, aliases)]
    if not hidden and not holding and not open_inputs:
        return code
    names = {"Field": imported_name(tree, aliases, "pydantic", "Field"),
             "ConfigDict": imported_name(tree, aliases, "pydantic", "ConfigDict"),
             "Annotated": next((local for local, imported in aliases.items() if imported[1] == "Annotated"),
                               None) or imported_name(tree, aliases, "typing", "Annotated"),
             "Any": imported_name(tree, aliases, "typing", "Any"),
             "repr_args": imported_name(tree, aliases, "contractgen.runtime.redaction", "repr_args")}
    encoded, at = byte_offsets(code)

    inserts: list[tuple[int, str]] = []
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        for statement in node.body:
            if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) \
                    and statement.target.id in hidden.get(node.name, ()):
                inserts += _hidden_from_repr(statement.annotation, aliases, names, encoded, at)
        if node.name in holding or node in open_inputs:  # an open one's extras may be secrets too
            inserts += config_keyword(node, "hide_input_in_errors=True", aliases, names["ConfigDict"], encoded, at)
        if node in open_inputs:
            inserts.append(_hiding_extras(node, node.name in holding, names, at))
    for offset, text in sorted(inserts, reverse=True):
        encoded = encoded[:offset] + text.encode("utf-8") + encoded[offset:]
    text = encoded.decode("utf-8")
    used = "".join(insert for _, insert in inserts)
    for module, name in (("pydantic", "Field"), ("pydantic", "ConfigDict"), ("typing", "Annotated"),
                         ("typing", "Any"), ("contractgen.runtime.redaction", "repr_args")):
        if any(f"{names[name]}{after}" in used for after in ("(", "[", ":")):
            text = with_import(text, tree, aliases, module, name, names[name])
    return text


def _sensitive_fields(metadata: list[Mapping[str, Any]], root: Any) -> tuple[dict[str, set[str]], set[str]]:
    """({class: its field names to hide}, {classes holding a sensitive value, themselves or inside})."""
    hidden: dict[str, set[str]] = {}
    holding: set[str] = set()
    types: dict[str, set[str]] = {}
    for model in metadata:
        name = model.get("class_name")
        source = model.get("source_ref")
        if not isinstance(name, str) or not isinstance(source, str) or not source.startswith("#"):
            continue
        node = resolve_pointer(root, source[1:])
        if node is MISSING:
            continue
        nodes = applicable([node], root)
        whole = any(is_marked(n) for n in nodes)
        fields = set()
        for field in model.get("fields") or ():
            python_name = field.get("name")
            wire_name = field.get("alias") or python_name
            if not isinstance(python_name, str) or not isinstance(wire_name, str):
                continue
            if python_name == "root" and field.get("original_name") is None:  # a RootModel's value
                members = nodes
            else:
                members = member_nodes(nodes, wire_name, root)
                if sensitive_name(wire_name):
                    fields.add(python_name)
                    continue
            if whole or any(is_marked(n) for n in members) or marked_below(members, root):
                fields.add(python_name)
            types.setdefault(name, set()).update(_WORD.findall(str(field.get("type") or "")))
        if fields:
            hidden[name] = fields
        if fields or whole or marked_below(nodes, root):
            holding.add(name)
    grew = True
    while grew:  # a model holding one that holds a secret holds it too (its errors quote it whole)
        grew = False
        for name, used in types.items():
            if name not in holding and used & holding:
                holding.add(name)
                grew = True
    return hidden, holding


def _hidden_from_repr(annotation: ast.expr, aliases: Mapping[str, tuple[str, str]], names: Mapping[str, str],
                      encoded: bytes, at: Any) -> list[tuple[int, str]]:
    """``repr=False`` added to the field's ``Field(...)``, or ``Annotated[<type>, Field(repr=False)]``."""
    if isinstance(annotation, ast.Subscript) and resolves_to(annotation.value, aliases, "Annotated") \
            and isinstance(annotation.slice, ast.Tuple):
        calls = [e for e in annotation.slice.elts[1:]
                 if isinstance(e, ast.Call) and resolves_to(e.func, aliases, "Field")]
        if calls:
            return [keyword_added(calls[0], "repr=False", encoded, at)]
    assert annotation.end_lineno is not None and annotation.end_col_offset is not None
    return [(at(annotation.lineno, annotation.col_offset), f"{names['Annotated']}["),
            (at(annotation.end_lineno, annotation.end_col_offset), f", {names['Field']}(repr=False)]")]


def _bundle_key(model: Mapping[str, Any]) -> str | None:
    """The bundle key (``$defs`` entry) a generated class comes from."""
    source = model.get("source_ref")
    parts = source.split("/") if isinstance(source, str) else []
    return parts[2] if len(parts) > 2 and parts[:2] == ["#", "$defs"] else None


def _extra_allowed(node: ast.ClassDef, aliases: Mapping[str, tuple[str, str]]) -> bool:
    """Whether the class keeps undeclared members (``model_config = ConfigDict(extra="allow")``)."""
    return any(isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Call)
               and resolves_to(statement.value.func, aliases, "ConfigDict")
               and any(k.arg == "extra" and isinstance(k.value, ast.Constant) and k.value.value == "allow"
                       for k in statement.value.keywords)
               for statement in node.body)


def _hiding_extras(node: ast.ClassDef, all_extra: bool, names: Mapping[str, str], at: Any) -> tuple[int, str]:
    """A ``__repr_args__`` at the end of the class that keeps its undeclared members' values out of
    ``repr``: those named like a secret, or all where the schema marks some (``all_extra``)."""
    last = node.body[-1]
    assert last.end_lineno is not None
    indent = " " * last.col_offset
    method = (f"\n{indent}def __repr_args__(self) -> {names['Any']}:\n"
              f"{indent}    # an undeclared member may be a secret sent under its own name\n"
              f"{indent}    return {names['repr_args']}(self, super().__repr_args__(), all_extra={all_extra})\n")
    return at(last.end_lineno + 1, 0), method
