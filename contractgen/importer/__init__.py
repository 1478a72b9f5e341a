"""``contractgen import``: existing tool definitions (MCP, OpenAI, Anthropic, OpenAPI operations) ->
starting manifests.

``plan_import`` reads and checks everything first and returns ``{path: text}`` plus diagnostics;
``write_plan`` writes only a plan without errors, so a failed import writes nothing.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from typing import Any

from ..diagnostics import Diagnostic, Level, has_errors
from ..manifest.caps import MAX_MANIFEST_BYTES
from ..manifest.load import discover_manifests, load_parsed, read_manifest
from ..manifest.parse import ParsedFile, parse_manifest_text
from ..manifest.text_checks import prose_strings
from ..naming import python_identifier
from ..runtime.visible import char_name, hidden_runs, visible
from .dialects import Converted, convert_schema, origin_of, propose_output_required
from .formats import FORMATS, ImportedTool, extract_tools
from .manifest import _one_line, build_manifest, is_portable, portable_name, render_manifest
from .openapi import OpenAPISelection, extract_operations, is_openapi

__all__ = ["FORMATS", "ConversionNote", "ImportPlan", "ImportedTool", "OpenAPISelection", "plan_import",
           "read_sources", "write_plan"]

SOURCE_SUFFIXES = (".json", ".yaml", ".yml")
MAX_SOURCE_BYTES = 50_000_000


@dataclass(frozen=True)
class ImportPlan:
    #: manifest path -> YAML text, in path order
    files: Mapping[Path, str]
    #: (source tool name, manifest name, manifest path) per imported tool
    tools: tuple[tuple[str, str, Path], ...]
    diagnostics: tuple[Diagnostic, ...]
    #: every conversion made, in source order (listed whether or not the import succeeds)
    conversions: tuple[ConversionNote, ...] = ()

    @property
    def ok(self) -> bool:
        return not has_errors(self.diagnostics)


def read_sources(paths: Sequence[str]) -> tuple[list[tuple[str, bytes]], list[Diagnostic]]:
    """The bytes of every source: files as given, ``*.json``/``*.yaml`` below folders, ``-`` for stdin."""
    import sys

    found: list[tuple[str, bytes]] = []
    problems: list[Diagnostic] = []
    for raw in paths:
        if raw == "-":
            found.append(("<stdin>", sys.stdin.buffer.read(MAX_SOURCE_BYTES + 1)))
            continue
        path = Path(raw)
        if path.is_dir():
            files = [p for p in sorted(path.rglob("*"))
                     if p.suffix in SOURCE_SUFFIXES and p.is_file()
                     and not any(part.startswith(".") for part in p.relative_to(path).parts)]
            if not files:
                problems.append(Diagnostic(raw, "", "expected .json or .yaml tool definitions in this folder "
                                                    "(got none)", code="no-sources",
                                                    hint="name the files themselves, or the folder that holds them"))
            candidates = [(str(p), p) for p in files]
        elif path.is_file():
            candidates = [(raw, path)]
        else:
            problems.append(Diagnostic(raw, "", "expected a file or folder of tool definitions (got nothing "
                                                "at this path)", code="missing-path",
                                                hint="check the path; pass - to read the definitions from stdin"))
            continue
        for label, file in candidates:
            try:
                with file.open("rb") as handle:
                    found.append((label, handle.read(MAX_SOURCE_BYTES + 1)))
            except OSError as exc:
                problems.append(Diagnostic(label, "", f"expected a readable file (got {exc.strerror})",
                                           code="unreadable", hint="check the file's permissions"))
    return found, problems


def plan_import(sources: Sequence[tuple[str, bytes]], out: Path, *, fmt: str = "auto", force: bool = False,
                prefix: str = "", version: str = "1.0.0", project_root: Path | None = None,
                format_flag: str = "--format", selection: OpenAPISelection | None = None) -> ImportPlan:
    """Everything an import would write, or the reasons it must not write anything.

    Every tool is converted (see ``dialects``), rendered, and the whole planned tree (with the
    manifests already in ``out``) goes through the same checks as ``contractgen check``; their
    diagnostics are placed back at the source definition."""
    diagnostics: list[Diagnostic] = []
    tools: list[ImportedTool] = []
    positions: dict[str, Mapping[str, tuple[int, int]]] = {}
    for label, raw in sources:
        parsed = _parse_source(label, raw)
        if parsed is None:
            continue
        value, where, problems = parsed
        diagnostics.extend(problems)
        if has_errors(problems):
            continue
        positions[label] = where
        if fmt == "openapi" or (fmt == "auto" and is_openapi(value)):
            extraction = extract_operations(value, path=label, positions=where,
                                            selection=selection or OpenAPISelection())
        else:
            extraction = extract_tools(value, path=label, positions=where, fmt=fmt, format_flag=format_flag)
        diagnostics.extend(extraction.diagnostics)
        tools.extend(extraction.tools)

    planned: list[_Planned] = []
    claimed: dict[str, ImportedTool] = {}  # collision key -> first tool
    for tool in tools:
        locate = _Locator(tool.source, positions.get(tool.source, {}))
        name = portable_name(tool.name, prefix)
        if name != prefix + tool.name:
            reason = ("is not a portable tool name (expected ^[a-zA-Z0-9_-]{1,64}$)"
                      if not is_portable(prefix + tool.name) else "has surrounding blanks")
            diagnostics.append(locate(
                tool.name_pointer, f"tool name {tool.name!r} {reason}; imported as {name!r}", "name-mapped",
                level=Level.WARNING,
                hint="clients must call the new name; rename it in the manifest if you prefer another"))
        key = python_identifier(name).lower()
        if key in claimed:
            first = claimed[key]
            diagnostics.append(locate(
                tool.name_pointer,
                f"expected each tool once (got {name!r} again; first in "
                f"{first.source}{'#' + first.pointer if first.pointer else ''})", "duplicate-tool",
                hint="give one operation another operationId, or leave one out with --operation, --tag or --path"
                if tool.format == "openapi" and first.source == tool.source else
                "import the two sources into separate folders with --out, or tell them apart with --prefix"))
            continue
        claimed[key] = tool
        tool_version = tool.version or version
        planned.append(_plan_tool(tool, name, out / name / f"{tool_version}.yaml", tool_version, project_root,
                                  locate))

    files: dict[Path, str] = {}
    imported: list[tuple[str, str, Path]] = []
    conversions: list[ConversionNote] = []
    checked = _check_tree(planned, out, force)
    diagnostics.extend(checked.pop(None, []))
    for plan in planned:
        conversions.extend(plan.notes)
        problems = checked.get(plan.target, [])
        diagnostics.extend(problems)
        if has_errors(problems):
            continue
        if plan.target.exists() and not force:
            diagnostics.append(Diagnostic(
                str(plan.target), "", f"expected a new manifest path (got an existing file; imported from "
                f"{plan.tool.source})", code="exists", hint="pass --force to overwrite it, or --out another folder"))
            continue
        files[plan.target] = plan.text
        imported.append((plan.tool.name, plan.name, plan.target))
    # one component read by several operations is converted once per tool, and listed once
    conversions = sorted(dict.fromkeys(conversions), key=lambda c: (c.file, c.line or 0, c.column or 0, c.pointer))
    if not sources and not diagnostics:
        diagnostics.append(Diagnostic("", "", "expected at least one source (got none)", code="no-sources",
                                      hint="name a tool definition file, a folder of them, or - for stdin"))
    diagnostics.sort(key=lambda d: (d.file, d.line or 0, d.column or 0, d.pointer, d.message))
    ok = not has_errors(diagnostics)
    return ImportPlan(files=dict(sorted(files.items())) if ok else {},
                      tools=tuple(sorted(imported, key=lambda t: str(t[2]))) if ok else (),
                      diagnostics=tuple(diagnostics), conversions=tuple(conversions))


@dataclass(frozen=True)
class ConversionNote:
    """One conversion made on import, located in the source: what the report lists."""

    file: str
    pointer: str
    code: str
    message: str
    line: int | None = None
    column: int | None = None

    def format(self) -> str:
        where = self.file + (f":{self.line}" if self.line is not None else "") + \
            (f":{self.column}" if self.line is not None and self.column is not None else "")
        return _one_line(f"{where} #{self.pointer}: converted: {self.message}")

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "column": self.column, "pointer": self.pointer,
                "code": self.code, "message": self.message}


@dataclass(frozen=True)
class _Planned:
    tool: ImportedTool
    name: str
    target: Path
    text: str
    manifest: dict[str, Any]
    schemas: Mapping[str, Converted]  # manifest section (input, output) -> its conversion
    notes: tuple[ConversionNote, ...]
    locate: _Locator

    def source_pointer(self, pointer: str) -> tuple[str, bool]:
        """Where a manifest pointer came from in the source, and whether it lies in a source schema."""
        return _source_pointer(self.tool, self.schemas, pointer)


def _source_pointer(tool: ImportedTool, schemas: Mapping[str, Converted], pointer: str) -> tuple[str, bool]:
    section, _, rest = pointer.lstrip("/").partition("/")
    converted = schemas.get(section)
    key = tool.input_key if section == "input" else tool.output_key
    if section == "name":
        return tool.name_pointer, False
    if converted is None or key is None:
        return tool.pointer, False
    return _in_source(tool, section, key, converted.source_pointer(f"/{rest}" if rest else "")), True


def _hidden_removed(text: str, what: str) -> str | None:
    """The conversion note for ``text`` (the tool's ``what``) when it holds characters a reader cannot
    see, or None."""
    found = sorted({char for run in hidden_runs(text) for char in run})
    if not found:
        return None
    names = [char_name(char) for char in found]
    more = f" and {len(names) - 3} more kinds" if len(names) > 3 else ""
    return (f"characters a reader cannot see removed from its {what} ({', '.join(names[:3])}{more}): an "
            "editor and a review hide them, the model reads them")


def _plan_tool(tool: ImportedTool, name: str, target: Path, version: str, project_root: Path | None,
               locate: _Locator) -> _Planned:
    schemas: dict[str, Converted] = {}
    base = tool.pointer if tool.conversion_base is None else tool.conversion_base
    notes = [locate.note(base + c.pointer, c.code, c.message) for c in tool.conversions]
    # prose the model reads holds only what a reader sees (check refuses the rest): the tool's own
    # text first, so that text made only of such characters reads as none
    said = [note for note in (_hidden_removed(tool.description, "description"),
                              _hidden_removed(tool.title or "", "title")) if note]
    notes.extend(locate.note(tool.pointer, "hidden-text", note) for note in said)
    if said:
        tool = replace(tool, description=visible(tool.description), title=tool.title and visible(tool.title))
    for section, schema, key in (("input", tool.input_schema, tool.input_key),
                                 ("output", tool.output_schema, tool.output_key)):
        if schema is None or key is None:
            continue
        converted = convert_schema(schema)
        if section == "output":
            propose_output_required(converted)
        schemas[section] = converted
        notes.extend(locate.note(_in_source(tool, section, key, c.pointer), c.code, c.message)
                     for c in converted.conversions)
    manifest = build_manifest(tool, name, version, input_schema=_schema_of(schemas, "input"),
                              output_schema=_schema_of(schemas, "output"))
    for prose in list(prose_strings(manifest)):  # the schemas' and the errors' prose
        note = _hidden_removed(prose.text, prose.pointer.rsplit("/", 1)[-1])
        if note is not None:
            prose.holder[prose.at] = visible(prose.text)
            notes.append(locate.note(_source_pointer(tool, schemas, prose.pointer)[0], "hidden-text", note))
    text = render_manifest(manifest, tool, schema_ref=schema_ref(target.parent, project_root),
                           original_name=tool.name, conversions=[n.message for n in notes])
    return _Planned(tool, name, target, text, manifest, schemas, tuple(notes), locate)


def _in_source(tool: ImportedTool, section: str, key: str, pointer: str) -> str:
    """Where a pointer into a tool's source schema lies in its file: below the tool's schema key, or,
    for a schema assembled from several places (OpenAPI), below the closest object's origin."""
    table = tool.origins.get(section)
    return f"{tool.pointer}/{key}{pointer}" if table is None else origin_of(table, pointer, tool.pointer)


def _schema_of(schemas: Mapping[str, Converted], section: str) -> dict[str, Any] | None:
    return schemas[section].schema if section in schemas else None


def _check_tree(planned: list[_Planned], out: Path, force: bool) -> dict[Path | None, list[Diagnostic]]:
    """Run the manifest checks on the tree as it would be after writing: the planned manifests plus
    those already in ``out``. Errors go back to the planned file's source definition; an error that
    only the new tools cause in an existing manifest (a name clash) is kept under ``None``."""
    by_target = {str(plan.target): plan for plan in planned}
    parsed = [parse_manifest_text(str(plan.target), plan.text.encode("utf-8")) for plan in planned]
    existing: list[ParsedFile] = []
    if out.is_dir():
        files, _ = discover_manifests([out])
        existing = [read_manifest(f) for f in files if str(f) not in by_target]  # replaced ones are gone
    result = load_parsed(parsed + existing)
    before: set[tuple[str, str, str]] = set()
    if existing and any(d.file not in by_target and d.level is Level.ERROR for d in result.diagnostics):
        before = {(d.file, d.pointer, d.message) for d in load_parsed(existing).diagnostics}
    checked: dict[Path | None, list[Diagnostic]] = {}
    for d in result.diagnostics:
        if d.level is not Level.ERROR:
            continue
        plan = by_target.get(d.file)
        if plan is None:
            if (d.file, d.pointer, d.message) not in before:
                checked.setdefault(None, []).append(d)
            continue
        pointer, in_schema = plan.source_pointer(d.pointer)
        hint = d.hint if in_schema else d.hint or ("fix the source definition: `contractgen check` would "
                                                   f"reject the manifest at #{d.pointer}")
        checked.setdefault(plan.target, []).append(plan.locate(pointer, d.message, d.code, hint=hint))
    for plan, item in zip(planned, parsed):
        if plan.target not in checked and item.value != plan.manifest:
            checked[plan.target] = [plan.locate(plan.tool.pointer, "expected the manifest YAML to read back as "
                                                "written (got a different value)", "import-roundtrip")]
    return checked


def write_plan(plan: ImportPlan) -> list[Diagnostic]:
    """Write a clean plan's files, each atomically; nothing is written for a plan with errors."""
    if not plan.ok:
        return []
    problems: list[Diagnostic] = []
    for path, text in plan.files.items():
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
            with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
                stream.write(text)
            os.replace(temporary, path)
        except OSError as exc:
            problems.append(Diagnostic(str(path), "", f"expected a writable path (got {exc.strerror})",
                                       code="unwritable", hint="pass --out a folder you can write to"))
    return problems


def schema_ref(manifest_dir: Path, project_root: Path | None) -> str | None:
    """Where editors find the manifest meta-schema: a relative path when the installed schema lives
    inside the same project (this repository, or the project's own virtual environment), else None
    (a path outside the project would name one machine's folders; the ``$id`` URL is a name, not a
    place that serves the file)."""
    try:
        installed = Path(str(resources.files("contractgen.schema").joinpath("manifest.schema.json"))).resolve()
        if project_root is not None:
            root = project_root.resolve()
            folder = manifest_dir.resolve()
            if installed.is_relative_to(root) and folder.is_relative_to(root):
                return Path(os.path.relpath(installed, folder)).as_posix()
    except (OSError, ValueError, TypeError):
        pass
    return None


class _Locator:
    def __init__(self, path: str, positions: Mapping[str, tuple[int, int]]) -> None:
        self.path, self.positions = path, positions

    def __call__(self, pointer: str, message: str, code: str, *, level: Level = Level.ERROR,
                 hint: str | None = None) -> Diagnostic:
        line, column = self.position(pointer)
        return Diagnostic(self.path, pointer, message, level=level, line=line, column=column, hint=hint,
                          code=code)

    def note(self, pointer: str, code: str, message: str) -> ConversionNote:
        line, column = self.position(pointer)
        return ConversionNote(self.path, pointer, code, message, line, column)

    def position(self, pointer: str) -> tuple[int | None, int | None]:
        probe = pointer
        while probe not in self.positions and probe:
            probe = probe.rsplit("/", 1)[0]
        return self.positions.get(probe, (None, None))


def _parse_source(label: str, raw: bytes) -> tuple[Any, Mapping[str, tuple[int, int]], list[Diagnostic]] | None:
    if len(raw) > MAX_SOURCE_BYTES:
        return None, {}, [Diagnostic(label, "", f"expected at most {MAX_SOURCE_BYTES:,} bytes of tool "
                                                f"definitions (got more)", code="file-too-large",
                                                hint="split the definitions into several files")]
    if len(raw) > MAX_MANIFEST_BYTES:  # too big for the positional parser: plain JSON, no line numbers
        import json

        from ..manifest.caps import CapExceeded, loads_json

        try:
            return loads_json(raw.decode("utf-8-sig")), {}, []
        except CapExceeded as exc:
            return None, {}, [Diagnostic(label, exc.pointer, exc.message, code=exc.code, hint=exc.hint)]
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            return None, {}, [Diagnostic(label, "", f"expected UTF-8 JSON ({exc})", code="malformed-json",
                                          hint="save the file as UTF-8 JSON (`python -m json.tool FILE` shows where it breaks)")]
    if not raw.strip():
        return None, {}, [Diagnostic(label, "", "expected tool definitions (got an empty file)", line=1,
                                     code="empty-file", hint="fill the file with tool definitions, or leave it out")]
    # the manifest parser reads JSON and YAML 1.2-style scalars with positions; JSON is also YAML,
    # so a source without a .json suffix (stdin, .yaml) goes through the YAML path
    name = label if label.endswith((".json", ".yaml", ".yml")) else label + ".yaml"
    parsed = parse_manifest_text(name, raw)
    problems = [Diagnostic(label, d.pointer, d.message, level=d.level, line=d.line, column=d.column,
                           hint=d.hint, code=d.code) for d in parsed.diagnostics]
    return parsed.value, parsed.positions, problems
