"""The runtime imports nothing from the compiler side, checked in a fresh interpreter; public API."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from contractgen import runtime
from contractgen.runtime import RUNTIME_VERSION, require_runtime

FORBIDDEN = ("jinja2", "typer", "datamodel_code_generator", "contractgen.manifest", "contractgen.cli",
             "contractgen.ir", "mcp", "httpx", "requests", "redis", "opentelemetry")


def test_fresh_interpreter_imports_no_compiler_modules() -> None:
    code = ("import json, sys, contractgen.runtime, contractgen.testing, contractgen.runtime.mcp, "
            "contractgen.runtime.transport, contractgen.runtime.hooks, contractgen.runtime.breaker; "
            "print(json.dumps(sorted(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = json.loads(out.stdout)
    bad = [m for m in loaded if any(m == f or m.startswith(f + ".") for f in FORBIDDEN)]
    assert bad == []
    assert "contractgen.runtime.guard" in loaded  # the check really imported the runtime


def test_public_api_is_complete() -> None:
    fixed = {"Contract", "ErrorSpec", "RetryPolicy", "Backoff", "Timeout", "Migration", "Deprecation",
             "Annotations", "EmptyResult", "Example", "CODES", "ACTIONS", "CATEGORIES",
             "RUNTIME_VERSION", "require_runtime", "ToolError", "VersionMismatchError",
             "GuardedTool", "ToolStub", "guard", "BudgetStore", "InMemoryBudgetStore", "CallRecord"}
    assert fixed <= set(runtime.__all__)
    assert all(hasattr(runtime, name) for name in runtime.__all__)


def test_require_runtime() -> None:
    require_runtime(f"=={RUNTIME_VERSION}")
    require_runtime(">=0.1,<0.2")
    with pytest.raises(ImportError, match=r"pip install 'contractgen>=9'"):
        require_runtime(">=9")
    with pytest.raises(ImportError, match="not a version range"):
        require_runtime("banana")
