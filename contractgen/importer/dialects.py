"""Rewrite the schema dialects tool definitions are written in (BFCL/Gorilla type names, draft-3/04/07,
OpenAPI 3.0, parameters as a map of name -> spec) into JSON Schema 2020-12, listing every change.

Only conversions that keep what the author wrote are made; anything else is left as it is, so that
the manifest checks refuse it with their own diagnostics. Nothing here touches the file system.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..manifest.schema_keywords import GENERATOR_STEERING_KEYS
from ..manifest.unkept_annotations import ENCODING_PATTERNS
from ..runtime.pointer import escape_token

#: Type names of the function-calling benchmarks (BFCL/Gorilla: Python, Java and JavaScript
#: categories) and older frameworks -> the JSON Schema type, plus the bounds the name implies.
#: ``None`` means "any value": the ``type`` keyword is dropped. Looked up exactly, then lower-cased.
DIALECT_TYPES: Mapping[str, tuple[str | None, Mapping[str, int]]] = {
    "dict": ("object", {}),
    "hashmap": ("object", {}),
    "map": ("object", {}),
    "list": ("array", {}),
    "arraylist": ("array", {}),
    "tuple": ("array", {}),
    "float": ("number", {}),
    "double": ("number", {}),
    "int": ("integer", {}),
    "long": ("integer", {}),
    # Java's narrow integer types name their range; the guard keeps it
    "short": ("integer", {"minimum": -32768, "maximum": 32767}),
    "byte": ("integer", {"minimum": -128, "maximum": 127}),
    "bool": ("boolean", {}),
    "str": ("string", {}),
    "char": ("string", {"minLength": 1, "maxLength": 1}),
    "any": (None, {}),
    # the standard names in another case (String, Boolean, Array, Integer ...)
    "string": ("string", {}),
    "boolean": ("boolean", {}),
    "integer": ("integer", {}),
    "number": ("number", {}),
    "object": ("object", {}),
    "array": ("array", {}),
    "null": ("null", {}),
}
_STANDARD_TYPES = frozenset({"string", "boolean", "integer", "number", "object", "array", "null"})

#: keywords whose value maps names to schemas / lists schemas / is one schema (older drafts included)
_NAMED_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_SINGLE = ("additionalProperties", "unevaluatedProperties", "items", "unevaluatedItems", "contains",
           "propertyNames", "not", "if", "then", "else", "additionalItems", "contentSchema")
#: keys that mark a mapping as a schema rather than a map of parameter name -> spec
_SCHEMA_MARKERS = frozenset({"type", "properties", "$ref", "allOf", "anyOf", "oneOf", "$defs",
                             "definitions", "required", "additionalProperties", "enum", "const",
                             "patternProperties", "$schema", "not", "if"})
_OLDER_DIALECT = re.compile(r"json-schema\.org/(draft-0[3-7]|draft/2019-09)/")
#: dialects in which ``$ref`` overrides every keyword beside it
_REF_OVERRIDES = re.compile(r"json-schema\.org/draft-0[3-7]/")
#: keys beside a ``$ref`` that never change which values pass
_REF_NEIGHBOURS = frozenset({"$ref", "$defs", "definitions", "$schema", "$id", "$comment", "title", "description",
                             "default", "examples", "deprecated", "readOnly", "writeOnly"})
_ANNOTATIONS = ("title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly",
                "$comment")


@dataclass(frozen=True)
class Conversion:
    """One change made to a source schema: where (a pointer relative to the source schema), a stable
    kebab-case code, and what was done."""

    pointer: str
    code: str
    message: str

    def to_dict(self) -> dict[str, str]:
        return {"pointer": self.pointer, "code": self.code, "message": self.message}


@dataclass
class Converted:
    schema: dict[str, Any]
    conversions: list[Conversion] = field(default_factory=list)
    #: converted pointer -> source pointer, for every schema object (to place check's diagnostics)
    origins: dict[str, str] = field(default_factory=dict)

    def source_pointer(self, converted: str) -> str:
        """The source pointer of a converted pointer: the closest schema object's origin, plus the
        rest of the path unchanged."""
        return origin_of(self.origins, converted)


def origin_of(origins: Mapping[str, str], pointer: str, default: str = "") -> str:
    """Where ``pointer`` came from, by a table of pointer -> origin: the origin of its closest listed
    ancestor (``default`` when none is), plus the rest of the path unchanged."""
    probe = pointer
    while probe not in origins and probe:
        probe = probe.rsplit("/", 1)[0]
    return origins.get(probe, default) + pointer[len(probe):]


def is_parameter_map(value: Any) -> bool:
    """``{city: {type: string, required: true}, ...}``: a map of parameter name -> spec, not a schema."""
    if not isinstance(value, dict) or not value:
        return False
    if any(key in _SCHEMA_MARKERS and not isinstance(value[key], dict) for key in value):
        return False
    if "properties" in value and all(isinstance(v, dict) for v in value["properties"].values()) \
            and "type" not in value["properties"]:
        return False  # a schema with properties (a parameter named "properties" would hold a spec)
    return all(isinstance(spec, dict) for spec in value.values())


def convert_schema(value: Mapping[str, Any], *, allow_parameter_map: bool = True) -> Converted:
    """``value`` as JSON Schema 2020-12, with every conversion listed (nothing is dropped silently)."""
    out = Converted(schema={})
    source: Any = value
    if allow_parameter_map and is_parameter_map(value):
        names = ", ".join(map(repr, value))
        out.conversions.append(Conversion("", "parameter-map", f"parameters given as a map of name -> spec "
                                          f"({names}) read as an object schema with those properties"))
        source = {"type": "object", "properties": dict(value)}
        out.origins[""] = ""
        out.schema = _Walker(out, parameter_map=True).node(source, "", "")
    else:
        out.schema = _Walker(out, parameter_map=False).node(dict(value), "", "")
    _rewrite_refs(out)
    dialect = out.schema.get("$schema")
    if isinstance(dialect, str) and _REF_OVERRIDES.search(dialect):
        _ref_siblings_now_apply(out)
    if isinstance(dialect, str) and _OLDER_DIALECT.search(dialect):
        del out.schema["$schema"]
        out.conversions.append(Conversion("/$schema", "dialect", f"$schema {dialect!r} removed: the schema now "
                                          "reads as JSON Schema 2020-12"))
    return out


class _Walker:
    def __init__(self, out: Converted, *, parameter_map: bool) -> None:
        self.out = out
        self.parameter_map = parameter_map

    def note(self, pointer: str, code: str, message: str) -> None:
        self.out.conversions.append(Conversion(pointer, code, message))

    def src_child(self, src: str, *tokens: str | int) -> str:
        # the synthetic root of a parameter map has no `properties` in the source
        if self.parameter_map and src == "" and tokens and tokens[0] == "properties":
            tokens = tokens[1:]
        return src + "".join(f"/{escape_token(str(t))}" for t in tokens)

    def node(self, value: Any, src: str, dst: str) -> Any:
        if not isinstance(value, dict):
            return value
        self.out.origins[dst] = src
        schema = dict(value)
        self._generator_keys(schema, src)
        self._types(schema, src)
        self._nullable(schema, src)
        self._exclusive_bounds(schema, src)
        self._allowed_values(schema, src)
        self._draft3_required(schema, src)
        moves = {**self._dependencies(schema, src), **self._definitions(schema, src),
                 **self._tuple_items(schema, src)}
        self._default_null(schema, src)
        also = self._content(schema, src)
        converted = self._children(schema, src, dst, moves)
        if also is not None:  # beside the author's own pattern: both must hold
            converted["allOf"] = [*converted.get("allOf", []), {"pattern": also}]
        return converted

    # --- keywords -------------------------------------------------------------------------------

    def _generator_keys(self, schema: dict[str, Any], src: str) -> None:
        for key in [k for k in schema if k in GENERATOR_STEERING_KEYS]:
            del schema[key]
            self.note(f"{src}/{escape_token(key)}", "generator-steering-key",
                      f"{key!r} removed: it steers the Python code generator (types, imports or base "
                      "classes outside the contract); the generated types follow from the schema alone")

    def _types(self, schema: dict[str, Any], src: str) -> None:
        declared = schema.get("type")
        names = declared if isinstance(declared, list) else [declared] if isinstance(declared, str) else None
        if names is None or not all(isinstance(n, str) for n in names):
            return
        if all(n in _STANDARD_TYPES for n in names):
            return
        mapped: list[str] = []
        bounds: dict[str, int] = {}
        for name in names:
            entry = DIALECT_TYPES.get(name) or DIALECT_TYPES.get(name.lower())
            if entry is None:
                return  # an unknown type name: check refuses it, with its did-you-mean
            json_name, implied = entry
            if json_name is None:
                self.note(f"{src}/type", "type-any", f"type {name!r} (any value) read as no type constraint")
                del schema["type"]
                return
            if json_name not in mapped:
                mapped.append(json_name)
            if len(names) == 1:
                bounds.update(implied)
        schema["type"] = mapped[0] if isinstance(declared, str) or len(mapped) == 1 else mapped
        extra = [f"{k} {v}" for k, v in bounds.items() if k not in schema]
        for key, bound in bounds.items():
            schema.setdefault(key, bound)
        said = declared if isinstance(declared, str) else names
        self.note(f"{src}/type", "type-name", f"type {said!r} read as {schema['type']!r}"
                  + (f" with {', '.join(extra)}" if extra else ""))

    def _nullable(self, schema: dict[str, Any], src: str) -> None:
        for key in ("nullable", "x-nullable"):
            if key not in schema or not isinstance(schema[key], bool):
                continue
            flag = schema.pop(key)
            where = f"{src}/{key}"
            if not flag:
                self.note(where, "nullable", f"{key}: false removed (it is the default)")
                continue
            declared = schema.get("type")
            enum = schema.get("enum")
            unlisted = (" (its enum does not list null, so null stays refused, as OpenAPI 3.0.3 says)"
                        if isinstance(enum, list) and None not in enum else "")
            if isinstance(declared, str):
                schema["type"] = [declared] if declared == "null" else [declared, "null"]
                self.note(where, "nullable", f"{key}: true read as type {schema['type']!r}{unlisted}")
            elif isinstance(declared, list) and all(isinstance(t, str) for t in declared):
                if "null" not in declared:
                    schema["type"] = [*declared, "null"]
                self.note(where, "nullable", f"{key}: true read as type {schema['type']!r}{unlisted}")
            elif declared is None:
                constraints = {k: v for k, v in schema.items() if k not in _ANNOTATIONS}
                if not constraints:
                    self.note(where, "nullable", f"{key}: true removed (the schema accepts null already)")
                    continue
                for k in constraints:
                    del schema[k]
                schema["anyOf"] = [constraints, {"type": "null"}]
                self.note(where, "nullable", f"{key}: true read as anyOf: [the schema, {{type: null}}]")
            else:
                schema[key] = flag  # a malformed type: leave it for check to refuse

    def _exclusive_bounds(self, schema: dict[str, Any], src: str) -> None:
        for exclusive, inclusive in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
            flag = schema.get(exclusive)
            if not isinstance(flag, bool):
                continue
            where = f"{src}/{exclusive}"
            bound = schema.get(inclusive)
            if flag and isinstance(bound, (int, float)) and not isinstance(bound, bool):
                del schema[inclusive]
                schema[exclusive] = bound
                self.note(where, "exclusive-bound", f"draft-04 {inclusive}: {bound} + {exclusive}: true read as "
                          f"{exclusive}: {bound}")
            elif not flag:
                del schema[exclusive]
                self.note(where, "exclusive-bound", f"draft-04 {exclusive}: false removed (the bound stays "
                          "inclusive)")
            else:
                del schema[exclusive]
                self.note(where, "exclusive-bound", f"draft-04 {exclusive}: true without {inclusive} removed "
                          "(it bounds nothing)")

    def _allowed_values(self, schema: dict[str, Any], src: str) -> None:
        values = schema.get("allowed_values")
        if not isinstance(values, list) or "enum" in schema:
            return  # a non-list, or an enum beside it: left for check to refuse
        _rename(schema, "allowed_values", "enum")
        self.note(f"{src}/allowed_values", "allowed-values", f"allowed_values read as enum ({len(values)} values)")

    def _draft3_required(self, schema: dict[str, Any], src: str) -> None:
        properties = schema.get("properties")
        if not isinstance(properties, dict):
            return
        listed = schema.get("required", [])
        if not isinstance(listed, list):
            return  # a draft-3 `required: true` on this schema itself: its parent handles it
        names = list(listed)
        for name, spec in properties.items():
            if not isinstance(spec, dict) or not isinstance(spec.get("required"), bool):
                continue
            where = self.src_child(src, "properties", name) + "/required"
            flag = spec["required"]
            properties = schema["properties"] = dict(schema["properties"])
            properties[name] = {k: v for k, v in spec.items() if k != "required"}
            if flag and name not in names:
                names.append(name)
            self.note(where, "draft3-required", f"draft-3 required: {str(flag).lower()} on {name!r} "
                      + ("read as listing it in the object's required" if flag else "removed (optional is "
                                                                                     "the default)"))
        if names:
            schema["required"] = names

    def _dependencies(self, schema: dict[str, Any], src: str) -> dict[str, str]:
        value = schema.get("dependencies")
        if not isinstance(value, dict) or "dependentRequired" in schema or "dependentSchemas" in schema:
            return {}  # beside the 2020-12 keywords: left for check to refuse
        lists = {k: v for k, v in value.items() if isinstance(v, list)}
        schemas = {k: v for k, v in value.items() if isinstance(v, (dict, bool))}
        if len(lists) + len(schemas) != len(value):
            return {}
        split: dict[str, dict[str, Any]] = {"dependentRequired": lists, "dependentSchemas": schemas}
        _rename(schema, "dependencies", {key: part for key, part in split.items() if part})
        parts = [f"{key} ({', '.join(map(repr, part))})" for key, part in split.items() if part]
        self.note(f"{src}/dependencies", "dependencies", f"draft-07 dependencies read as {' and '.join(parts)}")
        return {"dependentSchemas": "dependencies"}

    def _definitions(self, schema: dict[str, Any], src: str) -> dict[str, str]:
        if not isinstance(schema.get("definitions"), dict) or "$defs" in schema:
            return {}  # beside $defs: `definitions` stays (check accepts it as a plain JSON pointer target)
        _rename(schema, "definitions", "$defs")
        self.note(f"{src}/definitions", "definitions", "definitions read as $defs (its $refs follow)")
        return {"$defs": "definitions"}

    def _tuple_items(self, schema: dict[str, Any], src: str) -> dict[str, str]:
        """Draft-07 tuples; returns converted keyword -> source keyword for the children walk."""
        items = schema.get("items")
        if isinstance(items, list):
            if "prefixItems" in schema:
                return {}
            _rename(schema, "items", "prefixItems")
            moves = {"prefixItems": "items"}
            message = f"draft-07 items: [{len(items)} schemas] read as prefixItems"
            if "additionalItems" in schema:
                _rename(schema, "additionalItems", "items")
                moves["items"] = "additionalItems"
                message += "; additionalItems read as items"
            self.note(f"{src}/items", "tuple-items", message)
            return moves
        if "additionalItems" in schema and "prefixItems" not in schema:
            schema.pop("additionalItems")
            self.note(f"{src}/additionalItems", "additional-items",
                      "draft-07 additionalItems removed: without a list under items it applies to nothing")
        return {}

    def _content(self, schema: dict[str, Any], src: str) -> str | None:
        """The content keywords are annotations the guard never enforces (check refuses them:
        content-not-enforced): a known encoding becomes the ``pattern`` of its alphabet, the one
        check's hint offers; a media type and a content schema are dropped. Returns the pattern
        when the schema has one of its own already (it then goes under ``allOf``)."""
        also = None
        encoding = schema.get("contentEncoding")
        pattern = ENCODING_PATTERNS.get(encoding.lower()) if isinstance(encoding, str) else None
        declared = schema.get("type")
        types = [declared] if isinstance(declared, str) else declared if isinstance(declared, list) else None
        if "contentEncoding" in schema and types is not None and "string" not in types:
            # it describes strings, and this node admits none: it never judged a value here, and a
            # pattern in its place would be refused by check as a keyword its type never meets
            del schema["contentEncoding"]
            self.note(f"{src}/contentEncoding", "content-encoding",
                      f"contentEncoding {encoding!r} removed: it describes strings, and this schema's type "
                      f"({', '.join(map(str, types))}) admits none, so it never applied here")
        elif pattern is not None:
            del schema["contentEncoding"]
            if "pattern" in schema:
                also = pattern
            else:
                schema["pattern"] = pattern
            self.note(f"{src}/contentEncoding", "content-encoding",
                      f"contentEncoding {encoding!r} read as the pattern of its alphabet (the guard checks a "
                      "pattern; it never decodes)" + (", beside the pattern already there" if also else ""))
        for key in ("contentMediaType", "contentSchema"):
            if key in schema:
                shown = f" {schema[key]!r}" if key == "contentMediaType" else ""
                del schema[key]
                self.note(f"{src}/{key}", "content-annotation",
                          f"{key}{shown} removed: an annotation no validator checks (declare the structure "
                          "itself, or say it in the description)")
        return also

    def _default_null(self, schema: dict[str, Any], src: str) -> None:
        """``default: null`` on a schema that refuses null: the default is dropped, not the type
        widened, so the guard still refuses null; an absent argument stays absent."""
        if "default" not in schema or schema["default"] is not None:
            return
        declared = schema.get("type")
        types = declared if isinstance(declared, list) else [declared] if isinstance(declared, str) else None
        refuses = (types is not None and "null" not in types) or \
            (isinstance(schema.get("enum"), list) and None not in schema["enum"]) or \
            ("const" in schema and schema["const"] is not None)
        if refuses:
            del schema["default"]
            self.note(f"{src}/default", "default-null", "default: null removed: the schema refuses null, and an "
                      "optional argument that is left out needs no default")

    # --- children -------------------------------------------------------------------------------

    def _children(self, schema: dict[str, Any], src: str, dst: str, moves: Mapping[str, str]) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key, child in schema.items():
            origin = moves.get(key, key)
            if key in _NAMED_MAPS and isinstance(child, dict):
                result[key] = {name: self.node(sub, self.src_child(src, origin, name), f"{dst}/{key}/{escape_token(name)}")
                               for name, sub in child.items()}
            elif (key in _LISTS or key == "items") and isinstance(child, list):
                result[key] = [self.node(sub, self.src_child(src, origin, i), f"{dst}/{key}/{i}")
                               for i, sub in enumerate(child)]
            elif key in _SINGLE and isinstance(child, dict):
                result[key] = self.node(child, self.src_child(src, origin), f"{dst}/{key}")
            else:
                result[key] = child
        return result


def propose_output_required(converted: Converted) -> None:
    """An output schema without ``required`` accepts ``{}``: propose the properties that every one of
    the source's own result examples has, never a guess (no examples, no proposal)."""
    schema = converted.schema
    properties, examples = schema.get("properties"), schema.get("examples")
    if "required" in schema or not isinstance(properties, dict) or not isinstance(examples, list) \
            or not examples or not all(isinstance(e, dict) for e in examples):
        return
    names = [name for name in properties if all(name in example for example in examples)]
    if names:
        schema["required"] = names
        converted.conversions.append(Conversion(
            "/examples", "output-required-from-examples",
            f"required {names} proposed for the result: each of its {len(examples)} examples has them"))


def _rename(schema: dict[str, Any], old: str, new: str | Mapping[str, Any]) -> None:
    """Rename ``old`` in place, keeping the key order the author wrote; a mapping for ``new`` puts
    several keys (with those values) where ``old`` was."""
    entries = list(schema.items())
    schema.clear()
    for key, value in entries:
        if key != old:
            schema[key] = value
        elif isinstance(new, str):
            schema[new] = value
        else:
            schema.update(new)


def _rewrite_refs(out: Converted) -> None:
    """``$ref``s point into the source layout: follow each to the converted place of its target."""
    moved = {source: converted for converted, source in out.origins.items() if source != converted}
    if not moved:
        return
    for pointer, node in _schema_objects(out.schema):
        ref = node.get("$ref")
        if not isinstance(ref, str) or not ref.startswith("#"):
            continue
        target = ref[1:]
        if target in moved:
            node["$ref"] = "#" + moved[target]
            out.conversions.append(Conversion(out.origins.get(pointer, pointer) + "/$ref", "ref",
                                              f"$ref {ref!r} read as {node['$ref']!r}"))


def _ref_siblings_now_apply(out: Converted) -> None:
    """Up to draft-07, ``$ref`` overrides the keywords beside it (validators ignore them); 2020-12
    applies them. They are kept (they are what the author wrote), and listed: calls the source's
    validator accepted may now be refused."""
    for pointer, node in _schema_objects(out.schema):
        if not isinstance(node.get("$ref"), str):
            continue
        beside = sorted(k for k in node if k not in _REF_NEIGHBOURS and not k.startswith("x-"))
        if beside:
            out.conversions.append(Conversion(
                out.source_pointer(pointer) + "/$ref", "ref-siblings",
                f"beside $ref, {', '.join(beside)}: ignored up to draft-07, applied in 2020-12 (calls the "
                "source's validator accepted may now be refused; remove them to keep its reading)"))


def _schema_objects(schema: Any, pointer: str = "") -> list[tuple[str, dict[str, Any]]]:
    found: list[tuple[str, dict[str, Any]]] = []
    if not isinstance(schema, dict):
        return found
    found.append((pointer, schema))
    for key, child in schema.items():
        if key in _NAMED_MAPS and isinstance(child, dict):
            for name, sub in child.items():
                found.extend(_schema_objects(sub, f"{pointer}/{key}/{escape_token(name)}"))
        elif (key in _LISTS or key == "items") and isinstance(child, list):
            for i, sub in enumerate(child):
                found.extend(_schema_objects(sub, f"{pointer}/{key}/{i}"))
        elif key in _SINGLE and isinstance(child, dict):
            found.extend(_schema_objects(child, f"{pointer}/{key}"))
    return found


__all__ = ["DIALECT_TYPES", "Conversion", "Converted", "convert_schema", "is_parameter_map", "origin_of",
           "propose_output_required"]
