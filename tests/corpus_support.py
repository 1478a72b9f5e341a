"""The shared corpus imported the way a user would: one `contractgen import` per source folder (each
with its own --prefix, since tool names repeat across servers), then one `contractgen build`."""

from __future__ import annotations

import subprocess
from pathlib import Path

from build_support import build, make_project
from conftest import run_cli


def corpus_groups(corpus: Path) -> list[Path]:
    """Every source folder: an MCP server's tool list or a tau-bench domain."""
    groups = sorted((corpus / "mcp_tools").iterdir()) + sorted((corpus / "function_calling" / "tau_bench").iterdir())
    return [g for g in groups if g.is_dir()]


def import_corpus(corpus: Path, root: Path) -> dict[Path, subprocess.CompletedProcess[str]]:
    """Import every corpus folder into ``root/contracts`` (one manifest per tool, each named
    ``g<folder index>_<tool>``) and build ``root/generated``; returns each folder's import run."""
    make_project(root)
    runs: dict[Path, subprocess.CompletedProcess[str]] = {}
    for index, group in enumerate(corpus_groups(corpus)):
        prefix = f"g{index}_"
        result = runs[group] = run_cli("import", str(group), "--out", str(root / "contracts"), "--prefix", prefix,
                                       cwd=root)
        assert result.returncode == 0, result.stderr
        assert len(list((root / "contracts").glob(f"{prefix}*/1.0.0.yaml"))) == len(list(group.glob("*.json")))
    result = build(root)
    assert result.returncode == 0, result.stderr
    return runs
