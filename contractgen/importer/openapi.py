"""OpenAPI 3.0 and 3.1 documents -> one ``ImportedTool`` per operation.

openapi-spec-validator checks the document; this module selects operations, inlines their
``$ref``s, merges parameters and request body into one input schema (recording how to send a call
back to HTTP under ``x-openapi``), and reads the success response and the documented errors.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..diagnostics import Diagnostic, Level
from ..manifest.parse import parse_manifest_text
from ..runtime.jsonvalue import MISSING
from ..runtime.pointer import escape_token, pointer_parts, resolve_pointer
from ..runtime.pointer import pointer as join_pointer
from ..runtime.transport import status_error
from .dialects import Conversion, origin_of
from .formats import Extraction, ImportedTool, _Where

__all__ = ["HTTP_METHODS", "OpenAPISelection", "extract_operations", "is_openapi"]

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
_SEMVER = re.compile(r"^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$")
_JSON_MEDIA = re.compile(r"^application/(?:[\w.+-]+\+)?json(?:;.*)?$|^\*/\*$")
_FORM_MEDIA = "application/x-www-form-urlencoded"
#: annotation keywords that may sit beside a ``$ref`` and are merged onto its target
_REF_ANNOTATIONS = frozenset({"description", "title", "example", "examples", "deprecated", "readOnly",
                              "writeOnly", "default", "summary"})
#: header parameters the OpenAPI specification says are ignored
_IGNORED_HEADERS = frozenset({"accept", "content-type", "authorization"})
#: OpenAPI-only schema keywords that no JSON Schema validator reads (dropped, and listed)
_OPENAPI_ANNOTATIONS = ("xml", "externalDocs", "discriminator")
#: keys whose values are data, never schemas (not walked)
_DATA_KEYS = frozenset({"enum", "const", "default", "examples", "example"})

#: a declared error per code, for the codes an HTTP status maps to (``runtime.transport`` decides the code)
_ERROR_CLASSES = {
    "INVALID_ARGUMENT": "InvalidArguments",
    "PERMISSION_DENIED": "PermissionRefused",
    "NOT_FOUND": "NothingFound",
    "CONFLICT": "StateConflict",
    "FAILED_PRECONDITION": "PreconditionFailed",
    "RATE_LIMITED": "UpstreamRateLimited",
    "UNAVAILABLE": "UpstreamUnavailable",
    "TIMEOUT": "UpstreamTimeout",
}
_ERROR_MESSAGES = {
    "INVALID_ARGUMENT": "The service rejected the arguments. Fix the argument this error names, then call again.",
    "PERMISSION_DENIED": "The service refused this call: the tool is not allowed to do it. Tell the user.",
    "NOT_FOUND": "The service found nothing for these arguments. Tell the user what was not found.",
    "CONFLICT": "The call conflicts with the current state of the service. Change the arguments, then call again.",
    "FAILED_PRECONDITION": "The service refused the call in its current state. Tell the user.",
    "RATE_LIMITED": "Too many calls to the service. Wait retry_after seconds, then call again with the same "
                    "arguments.",
    "UNAVAILABLE": "The service is temporarily failing. Wait a little, then call again with the same arguments.",
    "TIMEOUT": "The service did not answer in time. Wait a little, then call again with the same arguments.",
}


@dataclass(frozen=True)
class OpenAPISelection:
    """Which operations to import: every one when all three are empty, else those matching any."""

    tags: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()  # fnmatch patterns over the path template, e.g. /pets/*
    operations: tuple[str, ...] = ()  # operationIds (or derived names)

    @property
    def everything(self) -> bool:
        return not (self.tags or self.paths or self.operations)

    def wants(self, name: str, path: str, tags: list[str]) -> bool:
        return self.everything or name in self.operations or any(t in self.tags for t in tags) \
            or any(fnmatch.fnmatchcase(path, pattern) for pattern in self.paths)


def is_openapi(value: Any) -> bool:
    return isinstance(value, dict) and ("openapi" in value or "swagger" in value)


@dataclass
class _Reader:
    """One document being read: where things are, and the notes made on the way."""

    path: str
    positions: Mapping[str, tuple[int, int]]
    root: dict[str, Any]
    version: str  # "3.0" or "3.1"
    diagnostics: list[Diagnostic] = field(default_factory=list)
    _files: dict[Path, Any] = field(default_factory=dict)

    def diagnostic(self, pointer: str, message: str, code: str, *, hint: str | None = None,
                   level: Level = Level.ERROR) -> Diagnostic:
        return _Where(self.path, self.positions).diagnostic(pointer, message, code, hint=hint, level=level)

    def resolve(self, ref: str, site: str) -> tuple[Any, str] | None:
        """The value a ``$ref`` names, and its pointer in this document (the ref's own site when the
        target lies in another file); ``None`` with a diagnostic when it names nothing."""
        target, _, fragment = ref.partition("#")
        document: Any = self.root
        if target:
            file = (Path(self.path).parent / target).resolve()
            if file not in self._files:
                try:
                    raw = file.read_bytes()
                except OSError as exc:
                    self.diagnostics.append(self.diagnostic(
                        f"{site}/$ref", f"expected $ref {ref!r} to name a readable local file (got "
                        f"{exc.strerror})", "unresolved-ref",
                        hint="references are read from local files beside the document; URLs are not fetched"))
                    return None
                parsed = parse_manifest_text(str(file), raw)
                if parsed.diagnostics:
                    first = parsed.diagnostics[0]
                    self.diagnostics.append(self.diagnostic(
                        f"{site}/$ref", f"expected $ref {ref!r} to name a JSON or YAML file ({first.format()})",
                        "unresolved-ref"))
                    return None
                self._files[file] = _rebased(parsed.value, file, Path(self.path).parent.resolve())
            document = self._files[file]
        node = resolve_pointer(document, fragment)
        if node is MISSING:
            parts = pointer_parts(fragment)
            depth = next(i for i in range(len(parts)) if resolve_pointer(document, join_pointer(parts[: i + 1])) is MISSING)
            parent = resolve_pointer(document, join_pointer(parts[:depth]))
            names = sorted(map(str, parent))[:8] if isinstance(parent, dict) else []
            self.diagnostics.append(self.diagnostic(
                f"{site}/$ref", f"expected $ref {ref!r} to name a value in the document (got nothing at "
                f"#{fragment})", "unresolved-ref",
                hint=f"{parts[depth]!r} is not there; the names there are: {', '.join(names)}" if names else
                "check the path after # in the reference"))
            return None
        return node, (fragment if not target else site)

    def follow(self, value: Any, pointer: str) -> tuple[Any, str] | None:
        """A Reference Object (parameter, request body, response) followed to what it names."""
        seen: set[str] = set()
        while isinstance(value, dict) and isinstance(value.get("$ref"), str):
            ref = value["$ref"]
            if ref in seen:
                self.diagnostics.append(self.diagnostic(
                    pointer, f"expected $ref {ref!r} to lead somewhere (got a cycle of references)", "ref-cycle",
                    hint="one of these references must name a schema of its own"))
                return None
            seen.add(ref)
            found = self.resolve(ref, pointer)
            if found is None:
                return None
            value, pointer = found
        return value, pointer


def _rebased(value: Any, file: Path, root: Path) -> Any:
    """A referenced file's value with its own ``$ref``s rewritten relative to the main document, so
    that ``#/Id`` inside ``schemas.yaml`` still names ``schemas.yaml#/Id``."""
    if isinstance(value, list):
        return [_rebased(item, file, root) for item in value]
    if not isinstance(value, dict):
        return value
    result = {key: child if key in _DATA_KEYS else _rebased(child, file, root) for key, child in value.items()}
    ref = value.get("$ref")
    if isinstance(ref, str):
        target, _, fragment = ref.partition("#")
        named = (file.parent / target).resolve() if target else file
        result["$ref"] = f"{Path(os.path.relpath(named, root)).as_posix()}#{fragment}"
    return result


@dataclass
class _Schema:
    """A schema with every ``$ref`` inlined: its value, where each of its objects came from, and notes."""

    reader: _Reader
    notes: list[Conversion]
    origins: dict[str, str] = field(default_factory=dict)
    refused: bool = False
    #: id(result object) -> (oneOf/anyOf, property, values): discriminators to apply once inlined
    _pending: dict[int, tuple[str, str, list[str]]] = field(default_factory=dict)

    def inline(self, value: Any, src: str, dst: str, stack: tuple[str, ...] = ()) -> Any:
        if isinstance(value, list):
            return [self.inline(item, f"{src}/{i}", f"{dst}/{i}", stack) for i, item in enumerate(value)]
        if not isinstance(value, dict):
            return value
        if isinstance(value.get("$ref"), str):
            return self._inline_ref(value, src, dst, stack)
        self.origins.setdefault(dst, src)
        result: dict[str, Any] = {}
        for key, child in value.items():
            token = escape_token(str(key))
            if key == "discriminator" and self._discriminate(value, result, src):
                continue
            if key in _OPENAPI_ANNOTATIONS:
                self.notes.append(Conversion(f"{src}/{token}", "openapi-annotation",
                                             f"{key} removed: an OpenAPI annotation no JSON Schema validator reads"))
                continue
            if key == "example" and "examples" not in value:
                result["examples"] = [child]
                self.notes.append(Conversion(f"{src}/example", "openapi-example",
                                             "example read as examples: [the value] (JSON Schema's keyword)"))
                continue
            if key == "example":
                self.notes.append(Conversion(f"{src}/example", "openapi-example",
                                             "example removed beside examples (it repeats an annotation)"))
                continue
            result[key] = child if key in _DATA_KEYS or key.startswith("x-") else \
                self.inline(child, f"{src}/{token}", f"{dst}/{token}", stack)
        pending = self._pending.pop(id(result), None)
        if pending is not None:
            key, name, tags = pending
            result[key] = [{"allOf": [branch, {"properties": {name: {"const": tag}}, "required": [name]}]}
                           for branch, tag in zip(result[key], tags)]
        return result

    def _discriminate(self, value: dict[str, Any], result: dict[str, Any], src: str) -> bool:
        """A discriminator over ``oneOf``/``anyOf`` branches that are ``$ref``s: each branch gets its
        value as a ``const`` (the mapping's key, else the schema's name), which is what the
        discriminator meant; without it, open branches that share their properties all match, and
        ``oneOf`` refuses every value. Returns whether it was read (the branches are done later, in
        ``result``, which the caller fills in order: the const is added when the branch is there)."""
        spec = value["discriminator"]
        key = next((k for k in ("oneOf", "anyOf") if isinstance(value.get(k), list)), None)
        name = spec.get("propertyName") if isinstance(spec, dict) else None
        if key is None or not isinstance(name, str):
            return False
        mapping = {ref: tag for tag, ref in (spec.get("mapping") or {}).items() if isinstance(ref, str)}
        tags: list[str] = []
        for branch in value[key]:
            ref = branch.get("$ref") if isinstance(branch, dict) else None
            if not isinstance(ref, str):
                return False
            tags.append(mapping.get(ref, ref.rsplit("/", 1)[-1]))
        self._pending[id(result)] = (key, name, tags)
        self.notes.append(Conversion(f"{src}/discriminator", "openapi-discriminator",
                                     f"discriminator {name!r} read as {name}: const on each {key} branch "
                                     f"({', '.join(map(repr, tags))})"))
        return True

    def _inline_ref(self, value: dict[str, Any], src: str, dst: str, stack: tuple[str, ...]) -> Any:
        ref = value["$ref"]
        if ref in stack:
            self.refused = True
            self.reader.diagnostics.append(self.reader.diagnostic(
                f"{src}/$ref", f"expected schemas without cycles (got $ref {ref!r} inside itself)", "recursive-ref",
                hint="a recursive schema cannot be inlined into a tool contract; leave this operation out with "
                     "--operation/--tag/--path, or cut the cycle in a copy of the document"))
            return {}
        found = self.reader.resolve(ref, src)
        if found is None:
            self.refused = True
            return {}
        target, where = found
        inlined = self.inline(target, where, dst, (*stack, ref))
        beside = {k: v for k, v in value.items() if k != "$ref"}
        if not beside:
            return inlined
        annotations = {k: v for k, v in beside.items() if k in _REF_ANNOTATIONS or k.startswith("x-")}
        others = {k: v for k, v in beside.items() if k not in annotations}
        if others and self.reader.version == "3.0":
            self.notes.append(Conversion(f"{src}/$ref", "ref-siblings", f"beside $ref, {', '.join(sorted(others))} "
                                         "removed: OpenAPI 3.0 ignores what sits beside a $ref"))
            others = {}
        # a boolean schema (3.1) beside annotations: true accepts anything, false nothing
        merged = dict(inlined) if isinstance(inlined, dict) else {} if inlined is not False else {"not": {}}
        for key, child in annotations.items():
            merged["examples" if key == "example" else key] = [child] if key == "example" else child
            # located at the $ref's side, not at the target's
            self.origins[f"{dst}/{'examples' if key == 'example' else escape_token(key)}"] = f"{src}/{escape_token(key)}"
            if key == "example":
                self.origins[f"{dst}/examples/0"] = f"{src}/example"
        if others:
            rest = self.inline(others, src, f"{dst}/allOf/1", stack)
            return {**{k: v for k, v in merged.items() if k in _REF_ANNOTATIONS},
                    "allOf": [{k: v for k, v in merged.items() if k not in _REF_ANNOTATIONS}, rest]}
        return merged


def _drop_direction(schema: Any, flag: str, origins: Mapping[str, str], notes: list[Conversion],
                    pointer: str = "") -> None:
    """Remove properties marked ``readOnly`` (from inputs) or ``writeOnly`` (from outputs), and their
    ``required`` entries: one component serves both directions in OpenAPI."""
    if isinstance(schema, list):
        for i, item in enumerate(schema):
            _drop_direction(item, flag, origins, notes, f"{pointer}/{i}")
        return
    if not isinstance(schema, dict):
        return
    properties = schema.get("properties")
    if isinstance(properties, dict):
        for name in [n for n, s in properties.items() if isinstance(s, dict) and s.get(flag) is True]:
            del properties[name]
            where = origin_of(origins, f"{pointer}/properties/{escape_token(name)}")
            side = "argument" if flag == "readOnly" else "result"
            notes.append(Conversion(f"{where}/{flag}", f"openapi-{flag.lower()}",
                                    f"{flag} property {name!r} removed from the {side}: the service "
                                    f"{'sets it' if flag == 'readOnly' else 'never returns it'}"))
            if isinstance(schema.get("required"), list) and name in schema["required"]:
                schema["required"] = [n for n in schema["required"] if n != name]
                if not schema["required"]:
                    del schema["required"]
    for key, child in schema.items():
        if key not in _DATA_KEYS:
            _drop_direction(child, flag, origins, notes, f"{pointer}/{escape_token(str(key))}")


def _prefixed(origins: Mapping[str, str], prefix: str) -> dict[str, str]:
    return {prefix + k: v for k, v in origins.items()}


def extract_operations(value: Any, *, path: str, positions: Mapping[str, tuple[int, int]],
                       selection: OpenAPISelection | None = None,
                       validate: Callable[[dict[str, Any], str], list[tuple[str, str]]] | None = None) -> Extraction:
    """Every selected operation of one OpenAPI document as an ``ImportedTool``."""
    out = Extraction()
    selection = selection or OpenAPISelection()
    if not is_openapi(value):
        out.diagnostics.append(_Where(path, positions).diagnostic(
            "", "expected an OpenAPI document, as --from openapi says (got no openapi key at the top)",
            "not-openapi", hint="drop --from to detect the format, or name the OpenAPI document"))
        return out
    declared = value.get("openapi", value.get("swagger"))
    version = str(declared)[:3] if isinstance(declared, str) else ""
    reader = _Reader(path, positions, value, version)
    if version not in ("3.0", "3.1"):
        out.diagnostics.append(reader.diagnostic(
            "/openapi" if "openapi" in value else "/swagger",
            f"expected an OpenAPI 3.0 or 3.1 document (got {declared!r})", "openapi-version",
            hint="convert a Swagger 2.0 document to OpenAPI 3 first (for example with swagger2openapi)"
            if "swagger" in value else "a document that uses nothing newer than 3.1 can declare openapi: 3.1.0"))
        return out
    _check_refs(reader, value, "")  # before the validator, which stops at the first dangling one
    if reader.diagnostics:
        out.diagnostics.extend(dict.fromkeys(reader.diagnostics))  # a cycle is met from each of its members
        return out
    for pointer, message in (validate or validate_document)(value, path):
        out.diagnostics.append(reader.diagnostic(pointer, message, "openapi-invalid",
                                                 hint="fix the document: openapi-spec-validator rejects it"))
    if out.diagnostics:
        return out
    info = value.get("info", {})
    doc_version = info.get("version") if isinstance(info, dict) else None
    tool_version = doc_version if isinstance(doc_version, str) and _SEMVER.match(doc_version) else None
    servers = [s["url"] for s in value.get("servers", []) if isinstance(s, dict) and isinstance(s.get("url"), str)]
    matched = 0
    for template, item in (value.get("paths") or {}).items():
        item_pointer = f"/paths/{escape_token(template)}"
        followed = reader.follow(item, item_pointer)
        if followed is None:
            continue
        item, item_pointer = followed
        if not isinstance(item, dict):
            continue
        for method in HTTP_METHODS:
            operation = item.get(method)
            if not isinstance(operation, dict):
                continue
            name = operation.get("operationId") or _derived_name(method, template)
            tags = [t for t in operation.get("tags", []) if isinstance(t, str)]
            if not selection.wants(name, template, tags):
                continue
            matched += 1
            tool = _read_operation(reader, method, template, item, item_pointer, operation, name,
                                   tool_version, servers)
            if tool is not None:
                out.tools.append(tool)
    out.diagnostics.extend(reader.diagnostics)
    if not selection.everything and matched == 0:
        out.diagnostics.append(reader.diagnostic("/paths", "expected --tag, --path or --operation to select at "
                                                 "least one operation (got none)", "no-operations",
                                                 hint="the names to select are the operationIds, the tags and "
                                                      "the path templates under paths"))
    if tool_version is None and out.tools:
        out.diagnostics.append(reader.diagnostic(
            "/info/version", f"info.version {doc_version!r} is not a version like 1.0.0; the manifests take "
            "--version instead", "openapi-version-not-semver", level=Level.WARNING))
    return out


def _check_refs(reader: _Reader, value: Any, pointer: str) -> None:
    """Every ``$ref`` in the document names something (each dangling one is reported where it is)."""
    if isinstance(value, list):
        for index, item in enumerate(value):
            _check_refs(reader, item, f"{pointer}/{index}")
    elif isinstance(value, dict):
        if isinstance(value.get("$ref"), str):
            reader.follow(value, pointer)  # a chain of $refs that comes back to itself is reported too
        for key, child in value.items():
            if key not in _DATA_KEYS:
                _check_refs(reader, child, f"{pointer}/{escape_token(str(key))}")


def validate_document(value: dict[str, Any], path: str) -> list[tuple[str, str]]:
    """openapi-spec-validator's findings as (pointer, message), the first line of each."""
    from openapi_spec_validator import OpenAPIV30SpecValidator, OpenAPIV31SpecValidator

    validator_class = OpenAPIV30SpecValidator if str(value.get("openapi", "")).startswith("3.0") \
        else OpenAPIV31SpecValidator
    base = Path(path).resolve().as_uri() if path != "<stdin>" else ""
    found: list[tuple[str, str]] = []
    try:
        for error in validator_class(value, base_uri=base).iter_errors():
            parts = list(getattr(error, "absolute_path", ()) or ())
            # schema-level findings carry a path relative to the schema, not to the document
            pointer = "".join(f"/{escape_token(str(p))}" for p in parts) if parts and parts[0] in value else ""
            message = str(getattr(error, "message", error)).splitlines()[0]
            found.append((pointer, f"expected a valid OpenAPI {value.get('openapi')} document ({message})"))
    except Exception as exc:  # noqa: BLE001 - the validator raises on what it cannot follow
        first = (str(exc).splitlines() or [""])[0]
        found.append(("", f"expected a document the validator can read through (got {type(exc).__name__}: {first})"))
    return found


def _derived_name(method: str, template: str) -> str:
    words = [w for w in re.split(r"[^A-Za-z0-9]+", template) if w]
    return "_".join([method, *words]) if words else method


def _read_operation(reader: _Reader, method: str, template: str, item: dict[str, Any], item_pointer: str,
                    operation: dict[str, Any], name: str, version: str | None,
                    servers: list[str]) -> ImportedTool | None:
    op_pointer = f"{item_pointer}/{method}"
    notes: list[Conversion] = []
    refused = False

    def refuse(pointer: str, message: str, code: str, hint: str) -> None:
        nonlocal refused
        refused = True
        reader.diagnostics.append(reader.diagnostic(pointer, message, code, hint=hint))

    # parameters: the path item's, overridden by the operation's of the same name and location
    parameters: dict[tuple[str, str], tuple[dict[str, Any], str]] = {}
    for owner, pointer in ((item, item_pointer), (operation, op_pointer)):
        for index, raw in enumerate(owner.get("parameters", []) or []):
            followed = reader.follow(raw, f"{pointer}/parameters/{index}")
            if followed is None:
                refused = True
                continue
            parameter, where = followed
            parameters[(parameter["in"], parameter["name"])] = (parameter, where)

    properties: dict[str, Any] = {}
    required: list[str] = []
    origins: dict[str, str] = {"": op_pointer}
    mapping: list[dict[str, str]] = []
    for (location, pname), (parameter, where) in parameters.items():
        if location == "header" and pname.lower() in _IGNORED_HEADERS:
            notes.append(Conversion(f"{where}/name", "openapi-ignored-header",
                                    f"header parameter {pname!r} not read: OpenAPI ignores it (media types and "
                                    "security schemes decide it), and credentials come from configuration"))
            continue
        argument = pname if pname not in properties else f"{location}_{pname}"
        if argument in properties:
            refuse(where, f"expected parameter names to be unique per location (got {pname!r} twice)",
                   "openapi-parameter-clash", "rename one of the parameters in the document")
            continue
        if argument != pname:
            notes.append(Conversion(f"{where}/name", "openapi-parameter-renamed", f"{location} parameter {pname!r} "
                                    f"read as argument {argument!r} (another parameter has its name)"))
        schema_at = f"{where}/schema"
        schema = parameter.get("schema")
        if schema is None and isinstance(parameter.get("content"), dict) and parameter["content"]:
            media = next(iter(parameter["content"]))
            schema = parameter["content"][media].get("schema", {})
            schema_at = f"{where}/content/{escape_token(media)}/schema"
        reading = _Schema(reader, notes)
        inlined = reading.inline(schema if schema is not None else {}, schema_at, "")
        refused = refused or reading.refused
        if isinstance(inlined, dict) and parameter.get("description") and "description" not in inlined:
            inlined = {"description": parameter["description"], **inlined}
        if isinstance(inlined, dict) and parameter.get("deprecated") is True:
            inlined["deprecated"] = True
        properties[argument] = inlined
        origins.update(_prefixed(reading.origins, f"/properties/{escape_token(argument)}"))
        if parameter.get("required") is True:
            required.append(argument)
        mapping.append({"argument": argument, "in": location, "name": pname})

    body_mapping: dict[str, Any] | None = None
    request = operation.get("requestBody")
    if request is not None:
        followed = reader.follow(request, f"{op_pointer}/requestBody")
        if followed is None:
            return None
        request, request_pointer = followed
        content = request.get("content", {}) or {}
        media = next((m for m in content if _JSON_MEDIA.match(m)), None) or \
            (_FORM_MEDIA if _FORM_MEDIA in content else None)
        if media is None:
            reader.diagnostics.append(reader.diagnostic(
                f"{request_pointer}/content", f"operation {name!r} refused: expected a JSON or form request body "
                f"(got {', '.join(map(repr, content)) or 'no media type'})", "openapi-body-media-type",
                level=Level.WARNING, hint="the guard checks JSON arguments; leave the operation out with "
                                          "--operation/--tag/--path, or send that body yourself"))
            return None
        reading, body, body_at = _read_content(reader, content, media, request_pointer, "request body", notes)
        refused = refused or reading.refused
        body_required = request.get("required") is True
        flat = isinstance(body, dict) and isinstance(body.get("properties"), dict) and body.get("type") in \
            (None, "object") and not any(k in body for k in ("allOf", "anyOf", "oneOf", "not", "if", "$ref")) \
            and not set(body["properties"]) & set(properties) and (body_required or not body.get("required"))
        if flat:
            names = list(body["properties"])
            for pname, sub in body["properties"].items():
                properties[pname] = sub
                origins.update(_prefixed({k[len(f"/properties/{escape_token(pname)}"):]: v
                                          for k, v in reading.origins.items()
                                          if k.startswith(f"/properties/{escape_token(pname)}")},
                                         f"/properties/{escape_token(pname)}"))
            required.extend(n for n in body.get("required", []) if n not in required)
            body_mapping = {"properties": names, "media_type": media}
            notes.append(Conversion(body_at, "openapi-body-merged",
                                    f"request body properties {', '.join(names)} read as arguments beside the "
                                    "parameters"))
        else:
            argument = "body" if "body" not in properties else "request_body"
            if isinstance(body, dict) and request.get("description") and "description" not in body:
                body = {"description": request["description"], **body}
            properties[argument] = body
            origins.update(_prefixed(reading.origins, f"/properties/{argument}"))
            if body_required:
                required.append(argument)
            body_mapping = {"argument": argument, "media_type": media}
            notes.append(Conversion(body_at, "openapi-body-argument",
                                    f"request body read as the argument {argument!r}"))

    input_schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        input_schema["required"] = required
    if parameters or request is not None:
        notes.append(Conversion(op_pointer, "openapi-input", "parameters"
                                + (" and request body" if request is not None else "")
                                + " merged into one closed object of arguments; x-openapi records where each goes"))
    _drop_direction(input_schema, "readOnly", origins, notes)

    output_schema, output_origins, response_mapping, errors = _read_responses(reader, operation, op_pointer, notes)
    if output_schema is None or refused:
        return None

    description = operation.get("description") or operation.get("summary") or ""
    lowered = method.lower()
    annotations = {"read_only": lowered in ("get", "head", "options"),
                   "destructive": lowered == "delete",
                   "idempotent": lowered in ("get", "head", "options", "put", "delete"),
                   "open_world": True}
    http: dict[str, Any] = {"method": lowered.upper(), "path": template}
    if mapping:
        http["parameters"] = mapping
    if body_mapping is not None:
        http["body"] = body_mapping
    http["response"] = response_mapping
    if servers:
        http["servers"] = servers
    return ImportedTool(
        name=str(name), description=str(description), title=operation.get("summary"),
        input_schema=input_schema, output_schema=output_schema, format="openapi", source=reader.path,
        pointer=op_pointer, annotations=annotations, input_key="", output_key="",
        conversions=tuple(notes), name_key="operationId" if "operationId" in operation else None, version=version, errors=tuple(errors), extensions={"x-openapi": http},
        origins={"input": origins, "output": output_origins}, conversion_base="")


def _read_responses(reader: _Reader, operation: dict[str, Any], op_pointer: str, notes: list[Conversion]
                    ) -> tuple[dict[str, Any] | None, dict[str, str], dict[str, Any], list[dict[str, Any]]]:
    responses = operation.get("responses", {}) or {}
    success = sorted(s for s in map(str, responses) if s.startswith("2"))
    errors: dict[str, dict[str, Any]] = {}
    for status in sorted(map(str, responses)):
        if status.startswith(("1", "2", "3")) or status == "default":
            if status == "default":
                notes.append(Conversion(f"{op_pointer}/responses/default", "openapi-default-response",
                                        "the default response is not read: it names no status, so no error code"))
            continue
        followed = reader.follow(responses[status], f"{op_pointer}/responses/{escape_token(status)}")
        if followed is None:
            continue
        response, _ = followed
        number = int(status.replace("X", "0").replace("x", "0")) if status[:1].isdigit() else 500
        code = status_error(number if "X" not in status.upper() else number + 99).code
        said = f"HTTP {status}" + (f": {response['description']}" if response.get("description") else "")
        if code in errors:
            errors[code]["description"] += f"; {said}"
            continue
        errors[code] = {"class": _ERROR_CLASSES.get(code, "UpstreamFailure"), "code": code,
                        "message": _ERROR_MESSAGES.get(code, "The service failed. Tell the user."),
                        "description": said}
    origins: dict[str, str] = {}
    if not success:
        notes.append(Conversion(f"{op_pointer}/responses", "openapi-no-success",
                                "no 2xx response is documented: the result is an empty object"))
        return _empty(), origins, {"status": None}, list(errors.values())
    status = success[0]
    where = f"{op_pointer}/responses/{escape_token(status)}"
    followed = reader.follow(responses[status], where)
    if followed is None:
        return None, origins, {}, []
    response, where = followed
    content = response.get("content") or {}
    said = response.get("description") or ""
    if not content:
        return _empty(f"HTTP {status}: {said}".rstrip(": ")), origins, {"status": status}, list(errors.values())
    media = next((m for m in content if _JSON_MEDIA.match(m)), None)
    if media is None:
        media = next(iter(content))
        encoding = "text" if media.startswith("text/") or media.endswith(("xml", "csv")) else "base64"
        notes.append(Conversion(f"{where}/content", "openapi-media-type",
                                f"response {media} (not JSON) read as a string under 'content', {encoding}"))
        schema = {"type": "object", "description": f"HTTP {status} {media}: {said}".rstrip(": "),
                  "properties": {"content": {"type": "string", "description": f"The response body ({media}), "
                                             f"{'as text' if encoding == 'text' else 'base64-encoded'}."}},
                  "required": ["content"], "additionalProperties": False}
        return schema, origins, {"status": status, "media_type": media, "encoding": encoding}, list(errors.values())
    reading, schema, schema_at = _read_content(reader, content, media, where, "response", notes)
    if reading.refused:
        return None, origins, {}, []
    mapping: dict[str, Any] = {"status": status, "media_type": media}
    if not _object_like(schema):
        # a tool returns an object: an array or a scalar goes under `result`
        notes.append(Conversion(schema_at, "openapi-result-wrapped",
                                "the response is not an object: it is returned under 'result'"))
        schema = {"type": "object", "properties": {"result": schema}, "required": ["result"],
                  "additionalProperties": False}
        origins = _prefixed(reading.origins, "/properties/result")
        mapping["wrapped_as"] = "result"
    else:
        origins = dict(reading.origins)
        if "type" not in schema:
            schema = {"type": "object", **schema}
            notes.append(Conversion(schema_at, "openapi-result-object",
                                    "the response schema names no type; read as type: object (every value it "
                                    "describes is one)"))
    _drop_direction(schema, "writeOnly", origins, notes)
    return schema, origins, mapping, list(errors.values())


def _read_content(reader: _Reader, content: Mapping[str, Any], media: str, where: str, what: str,
                  notes: list[Conversion]) -> tuple[_Schema, Any, str]:
    """The schema of one media type of a body or a response, inlined; the others offered are listed."""
    others = [m for m in content if m != media]
    if others:
        notes.append(Conversion(f"{where}/content", "openapi-media-type",
                                f"{what} read as {media}; also offered: {', '.join(others)}"))
    schema_at = f"{where}/content/{escape_token(media)}/schema"
    reading = _Schema(reader, notes)
    return reading, reading.inline(content[media].get("schema", {}), schema_at, ""), schema_at


def _object_like(schema: Any) -> bool:
    """Whether every value the schema accepts is an object (petstore's Pet is an allOf of two): a
    result the tool returns as it is."""
    if not isinstance(schema, dict):
        return False
    if schema.get("type") == "object":
        return True
    if "type" in schema:
        return False
    if "properties" in schema and not any(k in schema for k in ("anyOf", "oneOf")):
        return True
    return any(isinstance(schema.get(k), list) and schema[k] and all(_object_like(b) for b in schema[k])
               for k in ("allOf", "anyOf", "oneOf"))


def _empty(description: str = "") -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}
    if description:
        schema = {"description": f"{description} (no content)", **schema}
    return schema
