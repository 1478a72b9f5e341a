"""Measure what each install of contractgen puts in site-packages.

Builds the wheel of this checkout, installs it with each set of extras into a fresh virtual
environment without pip (``--no-compile``: no .pyc files) and prints the size of site-packages and
the number of distributions. The runtime install is the first row; the compiler extra is what the
command line needs.

    python bench/install_size.py [EXTRAS ...]      # default: "" email email,mcp compiler compiler,mcp
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ["", "email", "email,mcp", "compiler", "compiler,mcp"]


def size_mb(folder: Path) -> float:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) / 1e6


def main(extras: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", work / "dist", ROOT],
                       check=True)
        (wheel,) = (work / "dist").glob("contractgen-*.whl")
        print(f"{'install':<34} {'site-packages MB':>16} {'distributions':>14}")
        for index, extra in enumerate(extras):
            env = work / f"venv{index}"
            venv.EnvBuilder(with_pip=False).create(env)
            python = env / "bin" / "python"
            spec = f"{wheel}[{extra}]" if extra else str(wheel)
            subprocess.run([sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-compile",
                            spec], check=True)
            (site,) = (env / "lib").glob("python3*/site-packages")
            dists = len(list(site.glob("*.dist-info")))
            label = f"contractgen[{extra}]" if extra else "contractgen (runtime)"
            print(f"{label:<34} {size_mb(site):>16.1f} {dists:>14}")


if __name__ == "__main__":
    main(sys.argv[1:] or DEFAULT)
