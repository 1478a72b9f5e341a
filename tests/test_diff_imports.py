"""The diff package imports without cycles, counting the imports deferred into functions: a cycle hidden
by a function-level import still ties the modules together (issue 33: the prover's modules imported
each other in a circle through `witness_search -> ruletools -> structure -> containment`; the
witness search now lives in witness.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import contractgen.diff

PACKAGE = Path(contractgen.diff.__file__).parent


def _module_names() -> dict[str, Path]:
    names = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = ("contractgen", "diff", *path.relative_to(PACKAGE).with_suffix("").parts)
        names[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return names


def import_graph() -> dict[str, set[str]]:
    """Module -> the package's modules it imports anywhere in its text (functions included). Importing a
    submodule by name from its package (`from . import rules`) is an edge to the submodule only: the
    package itself is always initialized first."""
    modules = _module_names()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        edges: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    target = ".".join([*base, *([node.module] if node.module else [])])
                else:
                    target = node.module or ""
                submodules = {f"{target}.{alias.name}" for alias in node.names} & set(modules)
                edges |= submodules
                if target in modules and len(submodules) < len(node.names):
                    edges.add(target)
            elif isinstance(node, ast.Import):
                edges |= {alias.name for alias in node.names} & set(modules)
        graph[name] = edges - {name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for target in sorted(graph[module]):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == module:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return found


def test_the_diff_package_has_no_import_cycle() -> None:
    graph = import_graph()
    assert len(graph) >= 40 and graph["contractgen.diff.engine"], graph  # the walk saw the package
    assert cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle_through_a_function_level_import() -> None:
    """The check above is not a formality: the edge removed from the witness search, put back, is found."""
    graph = import_graph()
    graph["contractgen.diff.witness"].add("contractgen.diff.ruletools")
    assert any("contractgen.diff.witness" in c and "contractgen.diff.structure" in c for c in cycles(graph))
