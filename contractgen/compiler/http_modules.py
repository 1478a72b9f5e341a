"""``contractgen build --http``: for each manifest with ``x-openapi`` (an imported OpenAPI operation),
a ``<module>_http.py`` that implements the tool's stub with ``contractgen.runtime.http``."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from ..diagnostics import Diagnostic
from ..ir import ContractSet
from ..manifest.parse import parse_manifest_text
from ..runtime.http import HttpOperation
from .pipeline import RenderResult, display_source, select_versions
from .pyliteral import Code, py_literal
from .templates import environment


@dataclass(frozen=True)
class HttpModuleView:
    source: str
    tool_name: str
    version: str
    tool_module: str
    stub_name: str
    runtime_names: str
    operation: Code


def with_http_modules(result: RenderResult, contracts: ContractSet, *, root: Path) -> RenderResult:
    """``result`` plus a formatted ``<module>_http.py`` per selected tool that records ``x-openapi``;
    a malformed ``x-openapi`` is a diagnostic at the manifest, and nothing is added."""
    from .format import format_sources

    raw: dict[str, str] = {}
    problems: list[Diagnostic] = []
    for tool in select_versions(contracts)[0]:
        value = parse_manifest_text(tool.source, Path(tool.source).read_bytes()).value
        mapping = value.get("x-openapi") if isinstance(value, dict) else None
        if mapping is None:
            continue
        try:
            operation = HttpOperation.from_mapping(mapping)
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            line, column = tool.position("/x-openapi") or (None, None)
            problems.append(Diagnostic(
                tool.source, "/x-openapi", f"expected x-openapi as `contractgen import` writes it: method, path, "
                f"parameters [{{argument, in, name}}], body, response (got a problem with {exc})", line=line,
                column=column, code="x-openapi-invalid", hint="import the operation again, or remove x-openapi "
                "and implement the tool yourself"))
            continue
        used: set[str] = set()
        literal = py_literal(operation, used)
        view = HttpModuleView(source=display_source(tool.source, root), tool_name=tool.name, version=tool.version,
                              tool_module=tool.module, stub_name=tool.identifier,
                              runtime_names=", ".join(sorted({"HttpImplementation", *used})), operation=Code(literal))
        raw[f"{tool.module}_http.py"] = environment().get_template("http_module.py.jinja").render(view=view)
    if problems:
        return replace(result, files={}, diagnostics=(*result.diagnostics, *problems))
    return replace(result, files=dict(sorted({**result.files, **format_sources(raw)}.items())))
