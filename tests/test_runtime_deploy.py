"""A runtime-only install serves generated tools without the compiler.

The built wheel goes into a fresh virtual environment without the compiler extra: first plain (no
extra at all: a ``format: email`` field is a ``str`` the guard checks, so no optional package is
needed to import any generated module), where every module of generated/ and of the shared corpus's
build imports and the command line answers with one line naming the extra to install; then with the
``mcp`` extra, where the example server serves generated/ over stdio to the SDK client. Neither
install holds a package of the compiler.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import anyio
import pytest
from corpus_support import import_corpus
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from wheel_support import ROOT, fresh_venv, install, run

#: distributions only the compiler extra brings (with their own dependencies that nothing else needs)
COMPILER_ONLY = {"datamodel-code-generator", "jinja2", "typer", "ruff", "pyyaml", "black", "isort",
                 "genson", "inflect", "markupsafe", "greenery"}  # not click: the MCP SDK's uvicorn needs it
#: the compiler also needs these; the mcp extra brings jsonschema itself (the MCP SDK depends on it)
COMPILER_SHARED = {"jsonschema", "referencing", "jsonschema-specifications"}

INSTALLED = ("import importlib.metadata as m, json; "
             "print(json.dumps(sorted({d.metadata['Name'].lower().replace('_', '-') for d in m.distributions()})))")


def installed(python: Path) -> set[str]:
    result = run(python, "-c", INSTALLED)
    assert result.returncode == 0, result.stderr
    return set(json.loads(result.stdout))


@pytest.fixture(scope="module")
def runtime_env(tmp_path_factory: pytest.TempPathFactory, project_wheel: Path) -> tuple[Path, Path]:
    work = tmp_path_factory.mktemp("deploy")
    python = fresh_venv(work / "venv", str(project_wheel))
    return python, project_wheel


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A service checkout: the generated package and the example server, no contracts, no compiler."""
    shutil.copytree(ROOT / "generated", tmp_path / "generated",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "examples").mkdir()
    shutil.copy2(ROOT / "examples" / "mcp_server.py", tmp_path / "examples" / "mcp_server.py")
    return tmp_path


#: run in a project folder: import every module of ``generated`` by name (not through the package's
#: own imports) and print what ``then`` prints of ``mods``
IMPORT_EVERY_MODULE = ("import importlib, json, generated; "
                       "mods = [importlib.import_module('generated.' + n) for n in generated.MODULES]; ")
#: then build every model those modules define (generated models defer their validators to first use,
#: so importing alone would not show that a format's optional package is never needed)
BUILD_EVERY_MODEL = ("import inspect; from pydantic import BaseModel; "
                     "models = [c for m in mods for _, c in inspect.getmembers(m, inspect.isclass) "
                     "if issubclass(c, BaseModel) and c.__module__ == m.__name__]; "
                     "[c.model_rebuild(force=True) for c in models]; "
                     "assert all(type(c.__pydantic_validator__).__name__ == 'SchemaValidator' for c in models); ")


def test_runtime_install_imports_every_generated_module(runtime_env: tuple[Path, Path],
                                                        project: Path) -> None:
    python, _ = runtime_env
    dists = installed(python)
    assert "contractgen" in dists and "pydantic" in dists and "jsonschema-rs" in dists
    assert dists & (COMPILER_ONLY | COMPILER_SHARED) == set()
    assert "email-validator" not in dists  # the bundled contracts use format: email
    result = run(python, "-c", IMPORT_EVERY_MODULE + BUILD_EVERY_MODEL
                 + "print(json.dumps([m.CONTRACT.name + ' ' + m.CONTRACT.version for m in mods]))", cwd=project)
    assert result.returncode == 0, result.stderr
    import generated

    expected = [f"{generated.CONTRACTS[n].name} {generated.CONTRACTS[n].version}" for n in generated.MODULES]
    assert json.loads(result.stdout) == expected and len(expected) == 7
    # the guard runs there too: a real call with a bad argument names the field
    call = ("import json; from generated import get_exchange_rate_v1 as m; "
            "tool = m.get_exchange_rate.implement(lambda a: {'base': a.base.root, 'quote': a.quote.root, "
            "'rate': 1.1, 'date': '2026-11-27'}); "
            "print(json.dumps([tool({'base': 'EUR', 'quote': 'USD'}), tool({'base': 'euro', 'quote': 'USD'})]))")
    result = run(python, "-c", call, cwd=project)
    assert result.returncode == 0, result.stderr
    ok, bad = json.loads(result.stdout)
    assert ok["status"] == "ok" and ok["output"]["rate"] == 1.1
    assert bad["error"]["code"] == "INVALID_ARGUMENT" and bad["error"]["field"] == "/base"


def test_runtime_install_imports_every_module_of_the_corpus_build(runtime_env: tuple[Path, Path],
                                                                  corpus: Path, tmp_path: Path) -> None:
    """Every real third-party tool schema, imported and built with the compiler here, imports and
    answers a call on the runtime install alone, whatever formats its schemas use."""
    python, _ = runtime_env
    root = tmp_path / "corpus"
    import_corpus(corpus, root)
    result = run(python, "-c", IMPORT_EVERY_MODULE + BUILD_EVERY_MODEL
                 + "tools = [generated.STUBS[n].implement(lambda a: {}) for n in generated.MODULES]; "
                 "print(json.dumps([len(mods), sum(t(['not', 'an', 'object'])['status'] == 'error' for t in tools), "
                 "len(models)]))",
                 cwd=root)
    assert result.returncode == 0, result.stderr
    imported, refused, models = json.loads(result.stdout)
    assert imported == len(list((root / "generated").glob("*_v1.py"))) and imported >= 150
    assert models >= 2 * imported  # an input and an output model each, at least
    assert refused == imported


def test_runtime_install_cli_names_the_compiler_extra(runtime_env: tuple[Path, Path]) -> None:
    python, _ = runtime_env
    result = run(python.parent / "contractgen", "check")
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr  # one line, no traceback
    # the compiler extra from the same source as the runtime: here the wheel it was installed from
    _, wheel = runtime_env
    assert f"pip install '{wheel}[compiler]'" in lines[0] and "typer" in lines[0], lines[0]


def test_runtime_install_with_mcp_serves_generated_tools_over_stdio(runtime_env: tuple[Path, Path],
                                                                    project: Path) -> None:
    python, wheel = runtime_env
    install(python, f"{wheel}[mcp]")
    dists = installed(python)
    assert "mcp" in dists and dists & COMPILER_ONLY == set()
    seen: dict[str, Any] = {}

    async def main() -> None:
        params = StdioServerParameters(command=str(python), args=[str(project / "examples" / "mcp_server.py")],
                                       cwd=str(project), env={"EXAMPLE_RATES_PROVIDER": "down"})
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            seen["tools"] = sorted(t.name for t in (await session.list_tools()).tools)
            seen["calls"] = [await session.call_tool("get_exchange_rate", {"base": "EUR", "quote": "USD"})
                             for _ in range(2)]
            seen["search"] = await session.call_tool("search_documents", {"query": "travel policy"})

    anyio.run(main)
    assert seen["tools"] == ["book_meeting", "get_exchange_rate", "refund_order", "refund_payment", "retrieve_chunks",
                             "search_documents"]
    first, second = (json.loads(c.content[0].text) for c in seen["calls"])
    assert first["error"]["action"] == "retry_later" and second["error"]["action"] == "stop_and_tell_user"
    assert not seen["search"].is_error and seen["search"].structured_content["results"]
