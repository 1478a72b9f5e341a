"""``contractgen import``: existing tool definitions (MCP, OpenAI, Anthropic) -> starting manifests.

``plan_import`` reads and checks everything first and returns ``{path: text}`` plus diagnostics;
``write_plan`` writes only a plan without errors, so a failed import writes nothing.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
from jsonschema.exceptions import SchemaError

from ..diagnostics import Diagnostic, Level, has_errors
from ..manifest.load import load_parsed
from ..manifest.meta import manifest_meta_schema
from ..manifest.parse import MAX_MANIFEST_BYTES, parse_manifest_text
from ..naming import python_identifier
from ..runtime.pointer import pointer as json_pointer
from .formats import FORMATS, ImportedTool, extract_tools
from .manifest import build_manifest, is_portable, portable_name, render_manifest

__all__ = ["FORMATS", "ImportPlan", "ImportedTool", "plan_import", "read_sources", "write_plan"]

SOURCE_SUFFIXES = (".json", ".yaml", ".yml")
MAX_SOURCE_BYTES = 50_000_000


@dataclass(frozen=True)
class ImportPlan:
    #: manifest path -> YAML text, in path order
    files: Mapping[Path, str]
    #: (source tool name, manifest name, manifest path) per imported tool
    tools: tuple[tuple[str, str, Path], ...]
    diagnostics: tuple[Diagnostic, ...]

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
                                                    "(got none)", code="no-sources"))
            candidates = [(str(p), p) for p in files]
        elif path.is_file():
            candidates = [(raw, path)]
        else:
            problems.append(Diagnostic(raw, "", "expected a file or folder of tool definitions (got nothing "
                                                "at this path)", code="missing-path"))
            continue
        for label, file in candidates:
            try:
                with file.open("rb") as handle:
                    found.append((label, handle.read(MAX_SOURCE_BYTES + 1)))
            except OSError as exc:
                problems.append(Diagnostic(label, "", f"expected a readable file (got {exc.strerror})",
                                           code="unreadable"))
    return found, problems


def plan_import(sources: Sequence[tuple[str, bytes]], out: Path, *, fmt: str = "auto", force: bool = False,
                prefix: str = "", version: str = "1.0.0", project_root: Path | None = None) -> ImportPlan:
    """Everything an import would write, or the reasons it must not write anything."""
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
        extraction = extract_tools(value, path=label, positions=where, fmt=fmt)
        diagnostics.extend(extraction.diagnostics)
        tools.extend(extraction.tools)

    files: dict[Path, str] = {}
    imported: list[tuple[str, str, Path]] = []
    claimed: dict[str, ImportedTool] = {}  # collision key -> first tool
    for tool in tools:
        locate = _Locator(tool.source, positions.get(tool.source, {}))
        name = portable_name(tool.name, prefix)
        if name != prefix + tool.name:
            reason = ("is not a portable tool name (expected ^[a-zA-Z0-9_-]{1,64}$)"
                      if not is_portable(prefix + tool.name) else "has surrounding blanks")
            diagnostics.append(locate(
                f"{tool.pointer}/name", f"tool name {tool.name!r} {reason}; imported as {name!r}", "name-mapped",
                level=Level.WARNING,
                hint="clients must call the new name; rename it in the manifest if you prefer another"))
        key = python_identifier(name).lower()
        if key in claimed:
            first = claimed[key]
            diagnostics.append(locate(
                f"{tool.pointer}/name",
                f"expected each tool once (got {name!r} again; first in "
                f"{first.source}{'#' + first.pointer if first.pointer else ''})", "duplicate-tool",
                hint="import the two sources into separate folders with --out, or tell them apart with --prefix"))
            continue
        claimed[key] = tool
        problems = _check_schemas(tool, locate)
        diagnostics.extend(problems)
        if has_errors(problems):
            continue
        target = out / name / f"{version}.yaml"
        manifest = build_manifest(tool, name, version)
        text = render_manifest(manifest, tool, schema_ref=schema_ref(target.parent, project_root),
                               original_name=tool.name)
        problems = _self_check(text, manifest, target, tool, locate)
        diagnostics.extend(problems)
        if has_errors(problems):
            continue
        if target.exists() and not force:
            diagnostics.append(Diagnostic(
                str(target), "", f"expected a new manifest path (got an existing file; imported from "
                f"{tool.source})", code="exists", hint="pass --force to overwrite it, or --out another folder"))
            continue
        files[target] = text
        imported.append((tool.name, name, target))
    if not sources and not diagnostics:
        diagnostics.append(Diagnostic("", "", "expected at least one source (got none)", code="no-sources"))
    diagnostics.sort(key=lambda d: (d.file, d.line or 0, d.column or 0, d.pointer, d.message))
    ok = not has_errors(diagnostics)
    return ImportPlan(files=dict(sorted(files.items())) if ok else {},
                      tools=tuple(sorted(imported, key=lambda t: str(t[2]))) if ok else (),
                      diagnostics=tuple(diagnostics))


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
                                       code="unwritable"))
    return problems


def schema_ref(manifest_dir: Path, project_root: Path | None) -> str:
    """Where editors find the manifest meta-schema: a relative path when the installed schema lives
    inside the same project (as in this repository), else the schema's ``$id`` URL."""
    try:
        installed = Path(str(resources.files("contractgen.schema").joinpath("manifest.schema.json"))).resolve()
        if project_root is not None:
            root = project_root.resolve()
            folder = manifest_dir.resolve()
            if installed.is_relative_to(root) and folder.is_relative_to(root) \
                    and ".venv" not in installed.relative_to(root).parts \
                    and "site-packages" not in installed.parts:
                return Path(os.path.relpath(installed, folder)).as_posix()
    except (OSError, ValueError, TypeError):
        pass
    return str(manifest_meta_schema()["$id"])


class _Locator:
    def __init__(self, path: str, positions: Mapping[str, tuple[int, int]]) -> None:
        self.path, self.positions = path, positions

    def __call__(self, pointer: str, message: str, code: str, *, level: Level = Level.ERROR,
                 hint: str | None = None) -> Diagnostic:
        probe = pointer
        while probe not in self.positions and probe:
            probe = probe.rsplit("/", 1)[0]
        line, column = self.positions.get(probe, (None, None))
        return Diagnostic(self.path, pointer, message, level=level, line=line, column=column, hint=hint,
                          code=code)


def _parse_source(label: str, raw: bytes) -> tuple[Any, Mapping[str, tuple[int, int]], list[Diagnostic]] | None:
    if len(raw) > MAX_SOURCE_BYTES:
        return None, {}, [Diagnostic(label, "", f"expected at most {MAX_SOURCE_BYTES:,} bytes of tool "
                                                f"definitions (got more)", code="file-too-large")]
    if len(raw) > MAX_MANIFEST_BYTES:  # too big for the positional parser: plain JSON, no line numbers
        import json

        try:
            return json.loads(raw.decode("utf-8-sig")), {}, []
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            return None, {}, [Diagnostic(label, "", f"expected UTF-8 JSON ({exc})", code="malformed-json")]
    if not raw.strip():
        return None, {}, [Diagnostic(label, "", "expected tool definitions (got an empty file)", line=1,
                                     code="empty-file")]
    # the manifest parser reads JSON and YAML 1.2-style scalars with positions; JSON is also YAML,
    # so a source without a .json suffix (stdin, .yaml) goes through the YAML path
    name = label if label.endswith((".json", ".yaml", ".yml")) else label + ".yaml"
    parsed = parse_manifest_text(name, raw)
    problems = [Diagnostic(label, d.pointer, d.message, level=d.level, line=d.line, column=d.column,
                           hint=d.hint, code=d.code) for d in parsed.diagnostics]
    return parsed.value, parsed.positions, problems


def _check_schemas(tool: ImportedTool, locate: _Locator) -> list[Diagnostic]:
    problems: list[Diagnostic] = []
    input_key = {"mcp": "inputSchema", "openai": "parameters", "anthropic": "input_schema"}[tool.format]
    for key, schema in ((input_key, tool.input_schema), ("outputSchema", tool.output_schema)):
        if schema is None:
            continue
        pointer = f"{tool.pointer}/{key}"
        try:
            jsonschema.Draft202012Validator.check_schema(schema)
        except SchemaError as exc:
            problems.append(locate(pointer + json_pointer(exc.absolute_path),
                                   f"expected valid JSON Schema 2020-12 ({_short(exc.message)})", "invalid-schema"))
            continue
        declared = schema.get("type", "object")
        if declared != "object":
            problems.append(locate(f"{pointer}/type", f"expected an object schema (got type {declared!r})",
                                   "schema-not-object",
                                   hint="tools take and return JSON objects; wrap the value in an object property"))
    return problems


def _self_check(text: str, manifest: dict[str, Any], target: Path, tool: ImportedTool,
                locate: _Locator) -> list[Diagnostic]:
    """Run the written text through the real manifest checks, so an import never yields a broken file.

    A problem inside the argument or output schema is reported at its place in the source."""
    parsed = parse_manifest_text(str(target), text.encode("utf-8"))
    result = load_parsed([parsed])
    problems = []
    for d in result.diagnostics:
        if d.level is not Level.ERROR:
            continue
        section, _, rest = d.pointer.lstrip("/").partition("/")
        source_key = _source_key(tool, section)
        pointer = f"{tool.pointer}/{source_key}" + (f"/{rest}" if rest else "") if source_key else tool.pointer
        problems.append(locate(pointer, d.message, d.code,
                               hint=d.hint or "fix the source definition: `contractgen check` would reject "
                                              f"the manifest at #{d.pointer}"))
    if not problems and parsed.value != manifest:
        problems.append(locate(tool.pointer, "expected the manifest YAML to read back as written (got a "
                                             "different value)", "import-roundtrip"))
    return problems


def _source_key(tool: ImportedTool, section: str) -> str | None:
    if section == "input" and tool.input_schema is not None:
        return {"mcp": "inputSchema", "openai": "parameters", "anthropic": "input_schema"}[tool.format]
    if section == "output" and tool.output_schema is not None:
        return "outputSchema"
    return None


def _short(message: str, limit: int = 200) -> str:
    flat = " ".join(message.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."
