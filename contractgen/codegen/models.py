"""The one adapter to datamodel-code-generator: bundle every tool's schemas, generate once, split per tool.

Two calls: pydantic models for both schemas, then TypedDicts of each output's JSON (wire) form.

Every tool version's input and output schema (and their own ``$defs``/``definitions``, hoisted) go under
the ``$defs`` of ONE bundled schema, keyed ``<ToolPrefix>V<major>Input...``. Local ``$ref``s are rewritten
to the hoisted keys, so no reference ever crosses tools. With parent-prefixed naming every class name
is then a function of its own tool's schema alone: adding a tool never renames another tool's classes,
and generating a subset of tools yields the same per-tool code (which the incremental build relies on).
"""

from __future__ import annotations

import ast
import copy
import io
import json
import os
import re
import tempfile
import tokenize
import unicodedata
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..manifest.generator_keys import generator_input
from ..manifest.schema_walk import local_ref_pointer, subschemas
from ..runtime.jsonvalue import MISSING
from ..runtime.pointer import pointer, pointer_parts, resolve_pointer
from .defaults import type_defaults
from .exact_values import values_kept_exact
from .merges import hoist_merges, listed_values_unmerged, place_name
from .model_config import deferred_validators
from .openness import explicit_openness
from .patterns import patterns_left_to_schema
from .sensitive_fields import hide_sensitive_fields
from .source_text import escape_string_literals, source_lines
from .untyped import every_type_named
from .wire import empty_objects_as_maps, wire_schema

#: Options passed on every call, explicitly, so output does not drift with the library's defaults.
GENERATE_OPTIONS: Mapping[str, Any] = {
    "output_model_type": "pydantic_v2.BaseModel",
    "input_file_type": "jsonschema",
    "target_python_version": "3.10",
    "disable_timestamp": True,
    "formatters": ["builtin"],
    "builtin_format_line_length": 100,
    "naming_strategy": "parent-prefixed",
    "enum_field_as_literal": "all",
    "use_annotated": True,
    "field_constraints": True,
    "use_standard_collections": True,
    "use_union_operator": True,
    "use_double_quotes": True,
    "use_schema_description": False,
    "use_field_description": False,
    "output_datetime_class": "datetime",
    "reuse_model": False,
    # Not populate_by_name: an input model must accept wire names only (``class``, never ``class_``).
    "allow_population_by_field_name": False,
    "allow_remote_refs": False,
    # StrictBool: a lax bool field takes 1.0 and 0.0, so in ``bool | int`` a number the schema
    # accepted reached the implementation as True/False. The schema, checked first, only lets real
    # booleans reach a boolean-only field, so strictness refuses nothing valid.
    "strict_types": ("bool",),
    # An optional property with a default is typed without ``None`` unless its schema allows null:
    # the default always fills it in, so ``mypy --strict`` must not make implementers handle a None
    # that never reaches them (``args.cabin.upper()`` on a defaulted optional enum).
    "strict_nullable": True,
}

#: The output's wire form as TypedDicts: the same naming, every class suffixed ``Json``. Only JSON
#: types (``wire.py`` drops ``format``: a date is a ``str`` on the wire), and no PEP 728
#: ``closed``/``extra_items`` (mypy rejects ``extra_items``), so every TypedDict stays open.
WIRE_SUFFIX = "Json"
WIRE_OPTIONS: Mapping[str, Any] = {
    **{k: v for k, v in GENERATE_OPTIONS.items()
       if k not in ("use_annotated", "field_constraints", "allow_population_by_field_name", "strict_types")},
    "output_model_type": "typing.TypedDict",
    "class_name_suffix": WIRE_SUFFIX,
    "use_closed_typed_dict": False,
}

#: Keys that hold JSON data rather than subschemas: ``$ref`` inside them is not a reference.
_DATA_KEYWORDS = frozenset({"enum", "const", "default", "examples", "example"})
_DEF_CONTAINERS = ("$defs", "definitions")


class ModelsError(Exception):
    """A schema datamodel-code-generator cannot turn into models; ``owner`` names the tool when known."""

    def __init__(self, message: str, owner: str | None = None, pointer: str = "") -> None:
        super().__init__(message)
        self.owner = owner
        self.pointer = pointer


@dataclass(frozen=True)
class ModelRequest:
    """One tool version's schemas to model; ``owner`` is an opaque key the caller uses (the module)."""

    owner: str
    prefix: str  # e.g. "BookMeetingV2"; the root classes become <prefix>Input / <prefix>Output
    input_schema: Mapping[str, Any]
    output_schema: Mapping[str, Any]


@dataclass(frozen=True)
class ModelCode:
    """One tool's share of the generated models: its imports and its statements, in order."""

    owner: str
    input_class: str
    output_class: str
    #: module -> imported names (``""`` as a name means ``import module``)
    imports: tuple[tuple[str, tuple[str, ...]], ...]
    body: str
    class_names: tuple[str, ...]
    #: the TypedDict (or alias) of the output's JSON form, and every name its statements define
    wire_class: str = ""
    wire_body: str = ""
    wire_names: tuple[str, ...] = ()


def library_version() -> str:
    from importlib.metadata import version

    return version("datamodel-code-generator")


def generate_models(requests: Iterable[ModelRequest]) -> dict[str, ModelCode]:
    """Generate models for all requests in one library call (and the output TypedDicts in a second);
    return each owner's share."""
    requests = list(requests)
    if not requests:
        return {}
    bundle: dict[str, Any] = {}
    wire_bundle: dict[str, Any] = {}
    marked_bundle: dict[str, Any] = {}  # as written: the generator's copy has no x-sensitive
    input_keys: set[str] = set()
    key_owner: dict[str, str] = {}
    roots: dict[str, tuple[str, ...]] = {}
    for request in requests:
        in_key, out_key = request.prefix + "Input", request.prefix + "Output"
        for root_key, schema in ((in_key, request.input_schema), (out_key, request.output_schema)):
            for key, sub in hoist_schema(schema, root_key, owner=request.owner).items():
                if key in bundle:
                    raise ModelsError(f"expected unique model names (got '{key}' twice)", request.owner)
                # only 2020-12 keywords reach the generator: some other keys choose types and imports
                clean = values_kept_exact(every_type_named(generator_input(sub)))
                bundle[key] = explicit_openness(patterns_left_to_schema(clean))
                marked_bundle[key] = sub
                if root_key == in_key:
                    input_keys.add(key)
                key_owner[key] = request.owner
                if root_key == out_key:
                    wire_bundle[key] = wire_schema(clean)
        roots[request.owner] = (in_key, out_key)
    bundle = listed_values_unmerged({"$defs": bundle})["$defs"]
    aliases = _normalized_aliases({"$defs": bundle})
    code, metadata = _run_generator({"$defs": bundle}, {**GENERATE_OPTIONS, "aliases": aliases} if aliases
                                    else GENERATE_OPTIONS)
    code = deferred_validators(hide_sensitive_fields(escape_string_literals(code), metadata, marked_bundle, input_keys))
    models = _split(type_defaults(code), metadata, key_owner, roots)
    wire_code, wire_metadata = _run_generator({"$defs": wire_bundle}, WIRE_OPTIONS)
    wires = _split(empty_objects_as_maps(escape_string_literals(wire_code)), wire_metadata, key_owner,
                   {owner: keys[1:] for owner, keys in roots.items()})
    result = {}
    for owner, share in models.items():
        wire = _unclashed(_with_wire_root(wires[owner], roots[owner][1] + WIRE_SUFFIX), set(share.names))
        result[owner] = ModelCode(
            owner=owner, input_class=share.roots[0], output_class=share.roots[1],
            imports=_merged(share.imports + wire.imports), body=share.body,
            class_names=share.classes, wire_class=wire.roots[0], wire_body=wire.body,
            wire_names=wire.names)
    return result


def hoist_schema(schema: Mapping[str, Any], root_key: str, owner: str = "") -> dict[str, Any]:
    """``{bundle key: subschema}`` for one schema: the root plus its hoisted definitions, refs rewritten.

    A ``$ref`` is followed as the guard follows it (a percent-encoded pointer, an ``$anchor``). One
    that names a place below a root or a definition (``#/properties/q``) moves that place into a
    definition of its own, named after the tool and the place (``<Root><Place>``), which the place
    and the reference then share: the generator named such a target after its last token alone
    (``Q``), so two tools with the same reference shared one class in the bundle, and the second
    tool's input model could not be built (every call INTERNAL)."""
    names: dict[tuple[str, str], str] = {}
    used = {root_key}
    for container in _DEF_CONTAINERS:
        for name in (schema.get(container) or {}):
            key = root_key + _pascal(name)
            while key in used:
                key += "Def"
            used.add(key)
            names[(container, name)] = key
    places: dict[tuple[str, str], str] = {}  # (bundle key, pointer below it) -> its own definition

    def rewrite_ref(ref: str) -> str:
        if not ref.startswith("#"):
            raise ModelsError(f"expected a local $ref starting with '#' (got '{ref}')", owner)
        target = local_ref_pointer(schema, ref)
        if target is None:
            raise ModelsError(f"expected a $ref to a place or an $anchor of this schema (got '{ref}')", owner)
        tokens = pointer_parts(target)
        key, rest = root_key, tokens
        if len(tokens) >= 2 and (tokens[0], tokens[1]) in names:
            key, rest = names[(tokens[0], tokens[1])], tokens[2:]
        if not rest:
            return f"#/$defs/{key}"
        place = pointer(rest)
        if (key, place) not in places:
            name = key + place_name(place, _pascal)
            while name in used:
                name += "Def"
            used.add(name)
            places[(key, place)] = name
        return f"#/$defs/{places[(key, place)]}"

    def walk(node: Any) -> Any:
        if isinstance(node, Mapping):
            out: dict[str, Any] = {}
            for k, v in node.items():
                if k == "$ref" and isinstance(v, str):
                    out[k] = rewrite_ref(v)
                elif k in _DATA_KEYWORDS:
                    out[k] = v
                else:
                    out[k] = walk(v)
            return out
        if isinstance(node, (list, tuple)):
            return [walk(v) for v in node]
        return node

    root = {k: v for k, v in schema.items() if k not in (*_DEF_CONTAINERS, "$schema", "$id")}
    hoisted = {root_key: walk(root)}
    for (container, name), key in names.items():
        hoisted[key] = walk(schema[container][name])
    # deepest first, so a place inside another moved place is a reference there before it moves
    for (key, place), name in sorted(places.items(), key=lambda item: -item[0][1].count("/")):
        _move_place(hoisted, key, place, name)
    hoist_merges(hoisted, used, _pascal)
    return hoisted


def _move_place(hoisted: dict[str, Any], key: str, place: str, name: str) -> None:
    """Make the subschema at ``place`` of ``hoisted[key]`` the definition ``name``, leaving a ``$ref``
    there (with its description and title); a place that is not a schema object (a boolean schema, or
    data a reference points into) is copied instead."""
    node = resolve_pointer(hoisted[key], place)
    schema_places = {found for found, _ in subschemas(hoisted[key])}
    if not isinstance(node, dict) or place not in schema_places:
        hoisted[name] = copy.deepcopy(node) if node is not MISSING else {}
        return
    hoisted[name] = dict(node)
    described = {k: node[k] for k in ("description", "title") if k in node}
    node.clear()
    node.update({"$ref": f"#/$defs/{name}", **described})


def _normalized_aliases(schema: Any) -> dict[str, str]:
    """Each property name that Python reads as another identifier (PEP 3131 normalises identifiers to
    NFKC: ``µ`` is ``μ``, ``ﬁ`` is ``fi``, ``ſ`` is ``s``), mapped to that identifier. The generator
    writes such a name as a bare field, which the model then read under its other spelling: the
    property was silently dropped. As an explicit alias it is written ``μ: ... = Field(alias="µ")``."""
    found: dict[str, str] = {}
    declared: set[str] = set()
    for _, node in subschemas(schema):
        properties = node.get("properties")
        if isinstance(properties, Mapping):
            for name in properties:
                declared.add(name)
                normal = unicodedata.normalize("NFKC", name)
                if name.isidentifier() and normal != name:
                    found[name] = normal
    # two names with one normal form (ℌ, ℍ), or one that a declared name already spells (ﬁ, fi),
    # need fields of their own: the generator numbers its own clashes ``_1``, so these are ``_u1``
    aliases: dict[str, str] = {}
    for name, normal in sorted(found.items()):
        alias, number = normal, 0
        while alias in declared or alias in aliases.values():
            number += 1
            alias = f"{normal}_u{number}"
        aliases[name] = alias
    return aliases


def _pascal(name: str) -> str:
    parts = [p for p in re.split(r"[^0-9A-Za-z]+", name) if p]
    text = "".join(p[:1].upper() + p[1:] for p in parts)
    return text or "Def"


def _run_generator(schema: dict[str, Any], options: Mapping[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    # The library changes the working directory and holds a process-wide lock: call it from the main
    # thread only, and restore the cwd ourselves. It also reads settings (line length, its own table)
    # from a pyproject.toml it finds from the cwd: run it in an empty folder so no project config leaks in.
    from datamodel_code_generator import generate

    cwd = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="contractgen-models-") as scratch:
        metadata_path = Path(scratch) / "models.json"
        try:
            os.chdir(scratch)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                code = generate(schema, emit_model_metadata=metadata_path, **options)
        except OSError:
            raise  # the scratch folder, not the schema (a full disk): the build reports it as such
        except Exception as exc:  # the library raises many types; all mean "cannot model this"
            raise ModelsError(_first_line(exc)) from exc
        finally:
            os.chdir(cwd)
        if not isinstance(code, str):
            raise ModelsError("expected one module of models from datamodel-code-generator")
        metadata = json.loads(metadata_path.read_text("utf-8")).get("models", [])
    return code, metadata


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else 'no message'}"


@dataclass(frozen=True)
class _Share:
    """One tool's statements of one generator call."""

    roots: tuple[str, ...]  # the class (or alias) each root key became, in the order asked
    imports: tuple[tuple[str, str], ...]  # (module, ``name`` or ``name as alias``; "" = ``import module``)
    body: str
    classes: tuple[str, ...]  # class statements, in order
    names: tuple[str, ...]  # every name the statements define (classes, aliases, functional TypedDicts)


def _split(code: str, metadata: list[dict[str, Any]], key_owner: Mapping[str, str],
           roots: Mapping[str, tuple[str, ...]]) -> dict[str, _Share]:
    tree = ast.parse(code)
    lines = source_lines(code)
    class_owner: dict[str, str] = {}
    root_class: dict[str, str] = {}
    nobody: set[str] = set()  # the bundle's own root model
    for model in metadata:
        path = model.get("source_path") or []
        if len(path) >= 2 and path[0] == "$defs" and path[1] in key_owner:
            class_owner[model["class_name"]] = key_owner[path[1]]
            if len(path) == 2:
                root_class[path[1]] = model["class_name"]
        elif not path:
            nobody.add(model["class_name"])
    imports: list[tuple[str, str, str]] = []  # (module, name, asname)
    statements: dict[str, list[str]] = {owner: [] for owner in roots}
    classes: dict[str, list[str]] = {owner: [] for owner in roots}
    names: dict[str, list[str]] = {owner: [] for owner in roots}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            if node.module != "__future__":
                imports.extend((node.module or "", a.name, a.asname or a.name) for a in node.names)
            continue
        if isinstance(node, ast.Import):
            imports.extend((a.name, "", a.asname or a.name.split(".")[0]) for a in node.names)
            continue
        defined = _defined_names(node)
        if defined and defined <= nobody:
            continue
        owner = _statement_owner(node, class_owner)
        if owner is None:
            raise ModelsError(f"internal: cannot tell which tool owns generated statement at line {node.lineno}")
        start = (node.decorator_list[0].lineno if isinstance(node, ast.ClassDef) and node.decorator_list
                 else node.lineno)
        statements[owner].append("".join(lines[start - 1: node.end_lineno]).rstrip() + "\n")
        if isinstance(node, ast.ClassDef):
            classes[owner].append(node.name)
        names[owner].extend(sorted(defined))
    result: dict[str, _Share] = {}
    for owner, keys in roots.items():
        body = "\n\n".join(statements[owner])
        used = _names_used(body)
        wanted = []
        for module, name, asname in imports:
            if asname in used or (not name and module.split(".")[0] in used):
                # name "" stands for a plain ``import module``
                wanted.append((module, name if name == asname or not name else f"{name} as {asname}"))
        result[owner] = _Share(roots=tuple(root_class.get(key, key) for key in keys), imports=tuple(wanted),
                               body=body, classes=tuple(classes[owner]), names=tuple(names[owner]))
    return result


def _merged(imports: Iterable[tuple[str, str]]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """``(module, name)`` pairs as sorted ``(module, names)`` groups."""
    grouped: dict[str, set[str]] = {}
    for module, name in imports:
        grouped.setdefault(module, set()).add(name)
    return tuple(sorted((module, tuple(sorted(found))) for module, found in grouped.items()))


def _defined_names(node: ast.stmt) -> set[str]:
    if isinstance(node, ast.ClassDef):
        return {node.name}
    targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
    return {t.id for t in targets if isinstance(t, ast.Name)}


def _with_wire_root(wire: _Share, name: str) -> _Share:
    """``wire``, or when the generator wrote no statement for the root (a ``$ref`` it resolved to
    nothing of its own), ``wire`` plus the root typed ``Any``: wider, never wrong."""
    if wire.roots[0] in wire.names:
        return wire
    body = (wire.body.rstrip() + "\n\n\n" if wire.body.strip() else "") + f"{name}: TypeAlias = Any\n"
    return _Share(roots=(name,), imports=(*wire.imports, ("typing", "Any"), ("typing", "TypeAlias")),
                  body=body, classes=wire.classes, names=(*wire.names, name))


def _unclashed(wire: _Share, taken: set[str]) -> _Share:
    """``wire`` with every name the models already define renamed (``XJson`` -> ``XJsonJson``...).

    The suffix keeps the two sets apart unless a schema names a property after another plus ``Json``
    (``data`` and ``dataJson``); then the TypedDict side gives way, deterministically.
    """
    renames: dict[str, str] = {}
    final = set(wire.names)
    for name in wire.names:
        if name in taken:
            new = name + WIRE_SUFFIX
            while new in taken or new in final:
                new += WIRE_SUFFIX
            renames[name] = new
            final.add(new)
    if not renames:
        return wire
    return _Share(roots=tuple(renames.get(r, r) for r in wire.roots), imports=wire.imports,
                  body=_rename(wire.body, renames), classes=tuple(renames.get(c, c) for c in wire.classes),
                  names=tuple(renames.get(n, n) for n in wire.names))


def _rename(code: str, renames: Mapping[str, str]) -> str:
    """``code`` with identifier tokens and class-name strings (``TypedDict("XJson", ...)``, forward
    references such as ``"XJson"``) renamed; a string followed by ``:`` is a key and stays."""
    lines = source_lines(code)
    tokens = [t for t in tokenize.generate_tokens(io.StringIO(code).readline)
              if t.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT)]
    edits = []
    for token, following in zip(tokens, [*tokens[1:], None]):
        text = token.string
        if token.type == tokenize.NAME and text in renames:
            edits.append((token.start, token.end, renames[text]))
        elif (token.type == tokenize.STRING and text[:1] == text[-1:] == '"' and text[1:-1] in renames
              and (following is None or following.string != ":")):
            edits.append((token.start, token.end, f'"{renames[text[1:-1]]}"'))
    for (row, col), (_, end_col), text in reversed(edits):  # names and these strings span one line
        line = lines[row - 1]
        lines[row - 1] = line[:col] + text + line[end_col:]
    return "".join(lines)


def _statement_owner(node: ast.stmt, class_owner: Mapping[str, str]) -> str | None:
    if isinstance(node, ast.ClassDef):
        return class_owner.get(node.name)
    for name in ast.walk(node):
        if isinstance(name, ast.Name) and name.id in class_owner:
            return class_owner[name.id]
    return None


def _names_used(body: str) -> set[str]:
    used: set[str] = set()
    for node in ast.walk(ast.parse(body)):
        if isinstance(node, ast.Name):
            used.add(node.id)
        elif isinstance(node, ast.Attribute):
            root = node
            while isinstance(root, ast.Attribute):
                root = root.value  # type: ignore[assignment]
            if isinstance(root, ast.Name):
                used.add(root.id)
    return used
