"""Render tool modules and the registry to text, from the IR plus each tool's share of the models.

Templates receive small frozen view objects whose data fields are already Python literal source
(``py_literal``), so templates hold only layout, loops and conditionals.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..codegen.eager_annotations import eager
from ..codegen.models import ModelCode
from ..ir import ToolVersion
from ..naming import BUILTIN_NAMES
from ..runtime import contract as contract_types
from .describe import agent_instructions, describe_tool
from .exports import anthropic_tool, mcp_tool, openai_strict_tool, openai_tool
from .pyliteral import Code, json_plain, py_call, py_literal, py_str, py_text_block
from .templates import environment

#: The runtime versions generated code accepts; checked at import by ``require_runtime``.
RUNTIME_RANGE = ">=0.1,<0.2"

#: Names every tool module defines besides its models and declared errors.
MODULE_NAMES = ("ANTHROPIC_TOOL", "CONTRACT", "DESCRIPTION", "INPUT_SCHEMA", "MCP_TOOL", "OPENAI_STRICT_TOOL",
                "OPENAI_STRICT_UNAVAILABLE", "OPENAI_TOOL", "OUTPUT_SCHEMA", "VersionMismatch")
RUNTIME_IMPORTS = ("ErrorSpec", "ToolError", "ToolStub", "VersionMismatchError", "require_runtime")
_CONTRACT_TYPES = tuple(sorted(name for name, value in vars(contract_types).items()
                               if isinstance(value, type) and value.__module__ == contract_types.__name__))


@dataclass(frozen=True)
class ErrorView:
    class_name: str
    code: str
    spec: str


@dataclass(frozen=True)
class ToolModuleView:
    source: str
    tool_name: str
    version: str
    import_groups: tuple[tuple[str, ...], ...]
    all_names: tuple[str, ...]
    runtime_range: str
    models_body: str
    errors: tuple[ErrorView, ...]
    description: str
    input_schema: str
    output_schema: str
    contract: str
    stub_name: str
    input_class: str
    output_class: str
    wire_body: str
    wire_class: str
    mcp_tool: str
    openai_tool: str
    openai_strict_tool: str
    openai_strict_unavailable: str
    anthropic_tool: str


@dataclass(frozen=True)
class RegistryTool:
    module: str
    stub_name: str


@dataclass(frozen=True)
class RegistryView:
    source: str
    modules: tuple[str, ...]
    all_names: tuple[str, ...]
    runtime_range: str
    latest: tuple[tuple[str, str], ...]
    latest_modules: tuple[str, ...]
    tools: tuple[RegistryTool, ...]
    agent_instructions: str


def module_names(tool: ToolVersion, models: ModelCode) -> dict[str, str]:
    """Every top-level name the tool module defines or imports -> what it is (for clash diagnostics)."""
    names: dict[str, str] = {}
    for module, imported in models.imports:
        for entry in imported:
            names[entry.split(" as ")[-1] or module] = f"an import from {module}"
    for name in (*RUNTIME_IMPORTS, *_CONTRACT_TYPES, "Any", "ClassVar", "annotations"):
        names.setdefault(name, "an import")
    for name in models.class_names:
        names[name] = "a generated model class"
    for name in models.wire_names:
        names[name] = "a generated TypedDict of the output's JSON form"
    for name in MODULE_NAMES:
        names[name] = "a generated module constant"
    return names


def builtins_read(source: str) -> dict[str, str]:
    """Built-in names a rendered module reads (``str`` in an annotation) -> what they are: a tool stub
    of that name would take their place, so ``typing.get_type_hints`` and mypy read it as the type."""
    return {node.id: "a built-in the module uses" for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in BUILTIN_NAMES}


def render_tool_module(tool: ToolVersion, models: ModelCode, *, describe_parameters: bool = False) -> str:
    contract = tool.contract
    description = describe_tool(contract, parameters=describe_parameters)
    used_types: set[str] = set()
    # The contract's errors are the error classes' specs, written once (on the classes).
    overrides = {"input_schema": "INPUT_SCHEMA", "output_schema": "OUTPUT_SCHEMA"}
    if contract.errors:
        overrides["errors"] = "(" + "".join(f"{spec.class_name}.spec, " for spec in contract.errors) + ")"
    contract_source = py_call(contract, overrides, used_types)
    errors = tuple(ErrorView(spec.class_name, spec.code, Code(py_literal(spec, used_types)))
                   for spec in contract.errors)
    strict, why_not = openai_strict_tool(contract)
    imports: dict[str, set[str]] = {}
    for module, names in models.imports:
        imports.setdefault(module, set()).update(names)
    imports.setdefault("typing", set()).update({"Any", "ClassVar"} if errors else {"Any"})
    imports.setdefault("contractgen.runtime", set()).update(
        {"ToolStub", "VersionMismatchError", "require_runtime", *used_types}
        | ({"ToolError"} if errors else set()))
    view = ToolModuleView(
        source=tool.source,
        tool_name=contract.name,
        version=contract.version,
        import_groups=_import_groups(imports),
        all_names=isort_order({*models.class_names, *models.wire_names, *(e.class_name for e in errors),
                               *MODULE_NAMES, tool.identifier}),
        runtime_range=Code(py_str(RUNTIME_RANGE)),
        models_body=Code(models.body.rstrip() + "\n"),
        errors=errors,
        description=Code(py_text_block(description)),
        input_schema=Code(py_literal(json_plain(contract.input_schema))),
        output_schema=Code(py_literal(json_plain(contract.output_schema))),
        contract=Code(contract_source),
        stub_name=tool.identifier,
        input_class=models.input_class,
        output_class=models.output_class,
        wire_body=Code(models.wire_body.rstrip() + "\n"),
        wire_class=models.wire_class,
        mcp_tool=Code(py_literal(mcp_tool(contract))),
        openai_tool=Code(py_literal(openai_tool(contract))),
        openai_strict_tool=Code(py_literal(strict)),
        openai_strict_unavailable=Code(py_literal(why_not)),
        anthropic_tool=Code(py_literal(anthropic_tool(contract))),
    )
    # its annotations run as it is imported (pydantic then evaluates no strings: eager_annotations)
    return eager(environment().get_template("tool_module.py.jinja").render(view=view))


def render_registry(tools: Iterable[ToolVersion], source: str) -> str:
    tools = sorted(tools, key=lambda t: t.module)
    latest: dict[str, ToolVersion] = {}
    for tool in tools:
        if tool.name not in latest or tool.major > latest[tool.name].major:
            latest[tool.name] = tool
    view = RegistryView(
        source=source,
        modules=tuple(t.module for t in tools),
        all_names=isort_order({"AGENT_INSTRUCTIONS", "ANTHROPIC_TOOLS", "CONTRACTS", "LATEST", "MCP_TOOLS",
                               "MODULES", "OPENAI_TOOLS", "STUBS", *(t.module for t in tools)}),
        runtime_range=Code(py_str(RUNTIME_RANGE)),
        latest=tuple((Code(py_str(name)), tool.module) for name, tool in sorted(latest.items())),
        latest_modules=tuple(latest[name].module for name in sorted(latest)),
        tools=tuple(RegistryTool(t.module, t.identifier) for t in tools),
        agent_instructions=Code(py_text_block(agent_instructions())),
    )
    return environment().get_template("__init__.py.jinja").render(view=view)


def isort_order(names: Iterable[str]) -> tuple[str, ...]:
    """CONSTANTS, then Classes, then other names, each sorted: the order ruff's RUF022 expects."""
    def key(name: str) -> tuple[int, str]:
        if name.isupper() or (name.upper() == name and any(c.isalpha() for c in name)):
            return (0, name)
        return (1, name) if name[:1].isupper() else (2, name)

    return tuple(sorted(names, key=key))


def _import_groups(imports: Mapping[str, set[str]]) -> tuple[tuple[str, ...], ...]:
    """isort layout: standard library, then third party; in each, ``import x`` lines before ``from x``.
    contractgen is third party here, as it is in every project that uses the generated code."""
    groups: dict[str, tuple[list[str], list[str]]] = {"stdlib": ([], []), "third": ([], [])}
    for module in sorted(imports):
        section = groups["stdlib" if module.split(".")[0] in sys.stdlib_module_names else "third"]
        names = sorted(n for n in imports[module] if n)
        if "" in imports[module]:  # a plain ``import module``
            section[0].append(f"import {module}")
        if names:
            line = f"from {module} import {', '.join(names)}"
            if len(line) > 100:
                line = f"from {module} import (\n" + "".join(f"    {n},\n" for n in names) + ")"
            section[1].append(line)
    return tuple(tuple(Code(line) for line in plain + froms) for plain, froms in groups.values() if plain or froms)
