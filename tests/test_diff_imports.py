"""Import structure of the diff and of the prover it asks (``contractgen/prover``), counting the imports
deferred into functions: a cycle hidden by a function-level import still ties the modules together
(issue 33: the prover's modules imported each other in a circle through `witness_search -> ruletools
-> structure -> containment`; the prover is now one package with one witness module).

- neither package has an import cycle inside it;
- the prover imports nothing from ``contractgen.diff``, ``contractgen.manifest`` or ``contractgen.cli``
  (both ``diff`` and ``manifest`` ask it), by its text and in a fresh interpreter;
- outside the prover, code imports ``contractgen.prover`` only, never one of its modules, except the
  tests listed in UNIT_TESTED that test a module of it on purpose; every name imported from it is in
  its ``__all__``, and every name in ``__all__`` is imported somewhere (it exports what callers need).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import contractgen.diff
import contractgen.prover

ROOT = Path(contractgen.__file__).parent.parent
PROVER = "contractgen.prover"

#: test file -> the prover modules it tests on purpose (their own helpers and data, not the entry point)
UNIT_TESTED = {
    "tests/test_diff_budget.py": {"budget"},
    "tests/test_diff_containment.py": {"rewrite"},
    "tests/test_diff_formats.py": {"formats", "instances"},
    "tests/test_patterns_diff.py": {"instances", "regex"},
    "tests/test_regex_inclusion.py": {"regex"},
    "tests/test_check_schema_keywords.py": {"instances"},
}


def _module_names(package: ModuleType) -> dict[str, Path]:
    folder = Path(package.__file__ or "").parent
    names = {}
    for path in sorted(folder.rglob("*.py")):
        parts = (*package.__name__.split("."), *path.relative_to(folder).with_suffix("").parts)
        names[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return names


def imports_of(name: str, path: Path) -> list[tuple[str, list[str]]]:
    """(absolute module, names imported from it) for every import in the file, functions included."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: list[tuple[str, list[str]]] = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            found.append((target, [alias.name for alias in node.names]))
        elif isinstance(node, ast.Import):
            found.extend((alias.name, []) for alias in node.names)
    return found


def import_graph(package: ModuleType) -> dict[str, set[str]]:
    """Module -> the package's modules it imports anywhere in its text (functions included). Importing a
    submodule by name from its package (`from . import rules`) is an edge to the submodule only: the
    package itself is always initialized first."""
    modules = _module_names(package)
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        edges: set[str] = set()
        for target, names in imports_of(name, path):
            submodules = {f"{target}.{n}" for n in names} & set(modules)
            edges |= submodules
            if target in modules and (not names or len(submodules) < len(names)):
                edges.add(target)
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
    graph = import_graph(contractgen.diff)
    assert len(graph) >= 40 and graph["contractgen.diff.engine"], graph  # the walk saw the package
    assert cycles(graph) == []


def test_the_prover_package_has_no_import_cycle() -> None:
    graph = import_graph(contractgen.prover)
    assert set(graph) == {
        PROVER,
        *(
            f"{PROVER}.{m}"
            for m in (
                "budget",
                "containment",
                "formats",
                "instances",
                "regex",
                "rewrite",
                "witness",
            )
        ),
    }
    assert graph[f"{PROVER}.containment"] >= {
        f"{PROVER}.rewrite",
        f"{PROVER}.witness",
    }  # the walk saw edges
    assert cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle_through_a_function_level_import() -> None:
    """The checks above are not a formality: an edge back from the values to the proof is found."""
    graph = import_graph(contractgen.prover)
    graph[f"{PROVER}.instances"].add(f"{PROVER}.containment")
    assert any(f"{PROVER}.instances" in c and f"{PROVER}.containment" in c for c in cycles(graph))


def _outside_imports(name: str, path: Path) -> list[str]:
    """The modules of ``contractgen`` outside the prover that ``path`` imports."""
    return [
        target
        for target, _ in imports_of(name, path)
        if target.startswith("contractgen.")
        and not (target == PROVER or target.startswith(PROVER + "."))
    ]


def test_the_prover_imports_neither_diff_nor_manifest_nor_the_cli() -> None:
    outside = {
        name: _outside_imports(name, path)
        for name, path in _module_names(contractgen.prover).items()
    }
    forbidden = {
        name: [t for t in targets if t.split(".")[1] in ("diff", "manifest", "cli")]
        for name, targets in outside.items()
    }
    assert {name: targets for name, targets in forbidden.items() if targets} == {}
    # what it does import from contractgen is seen: the runtime's reference validator and patterns
    assert "contractgen.runtime.reference_validator" in outside[f"{PROVER}.witness"]


def test_importing_the_prover_loads_neither_diff_nor_manifest_nor_the_cli() -> None:
    code = (
        "import sys, contractgen.prover; "
        "print(sorted(m for m in sys.modules if m.split('.')[:2] in "
        "(['contractgen', 'diff'], ['contractgen', 'manifest'], ['contractgen', 'cli'])))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]", result.stdout


def _python_files() -> dict[str, Path]:
    """Every module outside the prover that could import it: the package, the benchmarks, the
    tests and the documentation's programs."""
    files = {}
    for folder in ("contractgen", "bench", "tests", "docs"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            relative = path.relative_to(ROOT)
            if relative.parts[:2] == ("contractgen", "prover"):
                continue
            files[relative.as_posix()] = path
    return files


def _prover_imports() -> dict[str, list[tuple[str, list[str]]]]:
    """File -> its imports of the prover or of one of its modules."""
    found: dict[str, list[tuple[str, list[str]]]] = {}
    for relative, path in _python_files().items():
        name = ".".join(Path(relative).with_suffix("").parts)
        hits = [
            (t, n) for t, n in imports_of(name, path) if t == PROVER or t.startswith(PROVER + ".")
        ]
        if hits:
            found[relative] = hits
    return found


def test_outside_the_prover_only_the_package_is_imported() -> None:
    submodules = {m.rsplit(".", 1)[1] for m in _module_names(contractgen.prover) if m != PROVER}
    reached: dict[str, set[str]] = {}
    for relative, hits in _prover_imports().items():
        for target, names in hits:
            modules = {target.rsplit(".", 1)[1]} if target != PROVER else set(names) & submodules
            if modules:
                reached.setdefault(relative, set()).update(modules)
    assert reached == UNIT_TESTED  # no other file, and no stale entry in the list
    users = _prover_imports()
    assert {
        "contractgen/manifest/gate_checks.py",
        "contractgen/diff/engine.py",
        "bench/diff_scale.py",
    } <= set(users)


def test_the_package_exports_exactly_what_callers_import() -> None:
    imported = {
        n
        for hits in _prover_imports().values()
        for target, names in hits
        if target == PROVER
        for n in names
    }
    submodules = {m.rsplit(".", 1)[1] for m in _module_names(contractgen.prover) if m != PROVER}
    exported = set(contractgen.prover.__all__)
    assert imported - submodules <= exported, imported - submodules - exported
    assert exported <= imported, f"exported but imported by nobody: {sorted(exported - imported)}"
    assert all(hasattr(contractgen.prover, n) for n in exported)
