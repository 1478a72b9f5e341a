"""The adapters stay at the edge: ``import contractgen.runtime`` loads no adapter and no framework,
``import contractgen.adapters`` loads no framework, and each adapter module loads only its own."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

FRAMEWORKS = {"fastmcp": "fastmcp", "adk": "google.adk", "openai_agents": "agents",
              "pydantic_ai": "pydantic_ai", "langchain": "langchain_core"}


def loaded_after(statement: str) -> list[str]:
    code = f"import json, sys; {statement}; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def frameworks_in(modules: list[str]) -> set[str]:
    return {name for name, top in FRAMEWORKS.items()
            if any(m == top or m.startswith(top + ".") for m in modules)}


def test_runtime_and_adapters_package_load_no_framework() -> None:
    loaded = loaded_after("import contractgen.runtime, contractgen.adapters")
    assert "contractgen.runtime.guard" in loaded
    assert frameworks_in(loaded) == set()
    assert not any(m.startswith("contractgen.adapters.") for m in loaded)


@pytest.mark.parametrize("adapter", sorted(FRAMEWORKS))
def test_each_adapter_loads_only_its_own_framework(adapter: str) -> None:
    loaded = loaded_after(f"import contractgen.adapters.{adapter}")
    others = frameworks_in(loaded) - {adapter}
    assert adapter in frameworks_in(loaded)
    assert others == set(), others
