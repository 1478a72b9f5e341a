"""Build the project's wheel from a clean copy of the source tree and install it into fresh venvs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_DEBRIS = shutil.ignore_patterns(
    ".venv", ".git", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis",
    "*.egg-info", ".contractgen-cache",
)


def run(
    *args: str | Path, cwd: Path | None = None, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run(
        [str(a) for a in args],
        check=False,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )


def _ignore_build_debris(folder: str, names: list[str]) -> set[str]:
    ignored = set(_DEBRIS(folder, names))
    if Path(folder) == ROOT:  # only the top-level outputs: tests/cases hold generated/ trees of their own
        ignored |= {"dist", "build", "generated"} & set(names)
    return ignored


def build_wheel(workdir: Path) -> Path:
    """The wheel of the working tree, built from a copy so no build/ or egg-info lands in it."""
    out = workdir / "dist"
    source = workdir / "src" / "contractgen"
    shutil.copytree(ROOT, source, ignore=_ignore_build_debris)
    result = run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", out, source)
    assert result.returncode == 0, result.stderr
    (built,) = out.glob("contractgen-*.whl")
    return built


def fresh_venv(env_dir: Path, *requirements: str | Path) -> Path:
    """A new virtual environment with ``requirements`` installed; returns its python."""
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / ("Scripts" if os.name == "nt" else "bin") / "python"
    install(python, *requirements)
    return python


def install(python: Path, *requirements: str | Path) -> None:
    """``pip install`` into the environment of ``python`` (the outer pip: no bootstrap, same cache)."""
    result = run(sys.executable, "-m", "pip", "--python", python, "install", "--quiet", "--no-compile",
                 *requirements)
    assert result.returncode == 0, result.stderr
