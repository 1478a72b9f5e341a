"""``contractgen build`` end to end: load -> select versions -> models -> render -> format -> {path: text}.

``render_tree`` only computes; ``write_tree`` (build) and ``tree_diff`` (``--check``) consume its result,
so both share one code path. Problems come back as diagnostics, never as exceptions.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..diagnostics import Diagnostic, has_errors
from ..ir import ContractSet, ToolVersion
from .cache import BuildCache, sha256

#: Progress callback: (stage, done, total).
Progress = Callable[[str, int, int], None]


@dataclass
class BuildStats:
    tools: int = 0
    skipped_versions: int = 0  # older minors of a major, not generated
    cached: int = 0
    rendered: int = 0
    model_calls: int = 0


@dataclass
class RenderResult:
    files: dict[str, str]
    diagnostics: tuple[Diagnostic, ...]
    stats: BuildStats = field(default_factory=BuildStats)

    @property
    def ok(self) -> bool:
        return not has_errors(self.diagnostics)


def select_versions(contracts: ContractSet) -> tuple[list[ToolVersion], list[ToolVersion]]:
    """The newest version of each (tool, major) is generated; returns (selected, superseded)."""
    newest: dict[tuple[str, int], ToolVersion] = {}
    for tool in contracts.tools:  # sorted by (name, version), so the last one wins
        newest[(tool.name, tool.major)] = tool
    selected = sorted(newest.values(), key=lambda t: t.module)
    chosen = {id(t) for t in selected}
    return selected, [t for t in contracts.tools if id(t) not in chosen]


def display_source(source: str, root: Path) -> str:
    """The manifest path as written into headers: relative to the project root, POSIX slashes."""
    path = Path(source).resolve()
    try:
        return path.relative_to(root.resolve()).as_posix()
    except ValueError:
        return Path(source).name


def render_tree(contracts: ContractSet, *, root: Path, contracts_label: str, cache: BuildCache,
                progress: Progress | None = None, describe_parameters: bool = False) -> RenderResult:
    """Every output file for ``contracts``, formatted, as ``{relative path: text}``; a failure of the
    file system on the way (a full disk under the scratch folders, a manifest gone since it was
    loaded, ruff missing) is a diagnostic, never a traceback, and nothing has been written."""
    try:
        return _render_tree(contracts, root=root, contracts_label=contracts_label, cache=cache,
                            progress=progress, describe_parameters=describe_parameters)
    except OSError as exc:
        where = f" ({exc.filename})" if exc.filename else ""
        return RenderResult({}, (Diagnostic(contracts_label, "", f"expected the build's scratch files and tools to "
                                            f"work (got {exc.strerror or exc}{where})", code="build-io-failed",
                                            hint="free space where temporary files go ($TMPDIR, else /tmp) "
                                            "or point TMPDIR at a folder with room, then build again"),),
                            BuildStats())


def _render_tree(contracts: ContractSet, *, root: Path, contracts_label: str, cache: BuildCache,
                 progress: Progress | None, describe_parameters: bool) -> RenderResult:
    from ..codegen.models import ModelRequest, ModelsError, generate_models
    from .cache import build_salt
    from .format import FormatError, format_sources
    from .render import builtins_read, module_names, render_registry, render_tool_module

    stats = BuildStats()
    selected, superseded = select_versions(contracts)
    stats.tools, stats.skipped_versions = len(selected), len(superseded)
    diagnostics = _module_clashes(selected)
    if diagnostics:
        return RenderResult({}, tuple(diagnostics), stats)

    salt = build_salt()
    keys: dict[str, str] = {}
    texts: dict[str, str] = {}
    for tool in selected:
        source = display_source(tool.source, root)
        # a deprecated version's module also holds steps read from its replacement's manifest
        steps = tool.contract.deprecation.migration if tool.contract.deprecation else ()
        keys[tool.module] = sha256(salt, "tool", source, Path(tool.source).read_bytes(),
                                   "parameters" if describe_parameters else "", *steps)
        hit = cache.get("tools", keys[tool.module])
        if hit is not None:
            texts[f"{tool.module}.py"] = hit
    stats.cached = len(texts)
    missing = [t for t in selected if f"{t.module}.py" not in texts]
    _report(progress, "generating models", 0, 1)
    requests = [ModelRequest(t.module, f"{t.class_prefix}V{t.major}", t.contract.input_schema,
                             t.contract.output_schema) for t in missing]
    try:
        models = generate_models(requests) if requests else {}
        stats.model_calls = 1 if requests else 0
    except ModelsError:
        # Find which tools the library cannot model, one call each, for a precise diagnostic.
        return RenderResult({}, tuple(_model_failures(missing, requests)), stats)
    _report(progress, "generating models", 1, 1)

    raw: dict[str, str] = {}
    for index, tool in enumerate(missing):
        text = render_tool_module(_with_display_source(tool, root), models[tool.module],
                                  describe_parameters=describe_parameters)
        clash = _name_clashes(tool, {**builtins_read(text), **module_names(tool, models[tool.module])})
        if clash:
            diagnostics.extend(clash)
            continue
        raw[f"{tool.module}.py"] = text
        _report(progress, "rendering modules", index + 1, len(missing))
    if diagnostics:
        return RenderResult({}, tuple(diagnostics), stats)
    registry_key = sha256(salt, "registry", contracts_label, *sorted(keys.values()))
    registry = cache.get("registry", registry_key)
    if registry is None:
        raw["__init__.py"] = render_registry(selected, contracts_label)
    else:
        texts["__init__.py"] = registry
    stats.rendered = len(raw)
    _report(progress, "formatting", 0, 1)
    try:
        formatted = format_sources(raw)
    except FormatError as exc:
        return RenderResult({}, (Diagnostic(contracts_label, "", f"internal: generated code does not parse ({exc})",
                                            code="format-failed"),), stats)
    _report(progress, "formatting", 1, 1)
    by_module = {f"{t.module}.py": t for t in selected}
    for name, text in formatted.items():
        if name in by_module:
            cache.put("tools", keys[by_module[name].module], text)
        else:
            cache.put("registry", registry_key, text)
    texts.update(formatted)
    texts["py.typed"] = ""
    return RenderResult(dict(sorted(texts.items())), (), stats)


def _with_display_source(tool: ToolVersion, root: Path) -> ToolVersion:
    return ToolVersion(tool.contract, display_source(tool.source, root), tool.positions)


def _report(progress: Progress | None, stage: str, done: int, total: int) -> None:
    if progress is not None:
        progress(stage, done, total)


def _at(tool: ToolVersion, pointer: str, message: str, code: str, hint: str | None = None) -> Diagnostic:
    line, column = tool.position(pointer) or (None, None)
    return Diagnostic(tool.source, pointer, message, line=line, column=column, code=code, hint=hint)


def _module_clashes(selected: Sequence[ToolVersion]) -> list[Diagnostic]:
    seen: dict[str, ToolVersion] = {}
    problems = []
    for tool in selected:
        if tool.module in seen:
            problems.append(_at(tool, "/name", f"expected tool names that map to distinct modules (got "
                                f"'{tool.name}' and '{seen[tool.module].name}', both {tool.module}.py)",
                                "module-clash", hint="rename one of the tools"))
        else:
            seen[tool.module] = tool
    return problems


def _name_clashes(tool: ToolVersion, names: dict[str, str]) -> list[Diagnostic]:
    problems = []
    if tool.identifier in names:
        problems.append(_at(tool, "/name", f"expected a tool name whose stub name is free in the generated "
                            f"module (got '{tool.name}': '{tool.identifier}' is {names[tool.identifier]})",
                            "name-clash", hint=f"rename the tool, e.g. '{tool.name.lower()}_tool'"))
    names = {**names, tool.identifier: "the tool stub"}
    for index, spec in enumerate(tool.contract.errors):
        if spec.class_name in names:
            problems.append(_at(tool, f"/errors/{index}/class",
                                f"expected an error class name free in the generated module (got "
                                f"'{spec.class_name}', which is {names[spec.class_name]})", "name-clash",
                                hint=f"rename it, e.g. '{spec.class_name}Error'"))
        names = {**names, spec.class_name: "another declared error class"}
    return problems


def _model_failures(tools: Sequence[ToolVersion], requests: Sequence[object]) -> list[Diagnostic]:
    from ..codegen.models import ModelsError, generate_models

    problems = []
    for tool, request in zip(tools, requests):
        try:
            generate_models([request])  # type: ignore[list-item]
        except ModelsError as exc:
            problems.append(_at(tool, "/input", f"expected schemas datamodel-code-generator can model ({exc})",
                                "models-failed", hint="simplify the schema construct named in the message"))
    if not problems:
        problems.append(Diagnostic(tools[0].source if tools else "", "", "internal: the bundled model "
                                   "generation failed but every tool generates alone", code="models-failed"))
    return problems


def manifest_files(paths: Sequence[Path]) -> tuple[list[Path], bool]:
    """The manifest files under ``paths``, and whether any path is unusable (the build must then load
    them and report it, whatever the up-to-date check says)."""
    from ..diagnostics import has_errors
    from ..manifest import discover_manifests

    found, problems = discover_manifests(paths)
    return found, has_errors(problems)


def cache_root(project_root: Path) -> Path | None:
    if os.environ.get("CONTRACTGEN_NO_CACHE"):
        return None
    return project_root / ".contractgen-cache"
