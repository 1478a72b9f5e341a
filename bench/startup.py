"""Start-up of a server with many generated tools: import the generated package, then ``implement()``
every tool, in a fresh interpreter, against importing the same package's models alone.

Builds N synthetic tools (bench/diff_scale.py's shapes: nested objects, enums, patterns, bounds,
formats) with the real CLI into a temporary project, then measures in child processes:

* ``import``: ``import generated`` (the registry; tool modules load when first used, so this is what
  a server pays before it touches a tool);
* ``import + implement``: the same, then ``stub.implement(fn)`` for every tool, which imports every
  tool module (its models and its contract) and compiles its checks;

printing wall seconds and the peak resident set of each, and the share ``implement()`` adds. The
children may write bytecode, and one unmeasured import runs first: an installed package's modules are
compiled (pip writes ``.pyc`` files), so compiling a thousand sources is not part of a server's start.

    python bench/startup.py [--tools 1000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from diff_scale import synthetic_tool

CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, sys.argv[1])
start = time.perf_counter()
import generated
imported = time.perf_counter() - start
tools = []
if sys.argv[2] == "implement":
    tools = [generated.STUBS[name].implement(lambda args: {}) for name in generated.MODULES]
total = time.perf_counter() - start
print(json.dumps({"import": imported, "total": total, "tools": len(generated.MODULES),
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def build_project(root: Path, tools: int, seed: int) -> None:
    rng = random.Random(seed)
    (root / "pyproject.toml").write_text('[tool.contractgen]\ncontracts = "contracts"\noutput = "generated"\n')
    for index in range(tools):
        manifest = synthetic_tool(index, rng)
        folder = root / "contracts" / manifest["name"]
        folder.mkdir(parents=True)
        (folder / f"{manifest['version']}.json").write_text(json.dumps(manifest))
    result = subprocess.run([sys.executable, "-m", "contractgen", "build"], cwd=root,
                            capture_output=True, text=True, check=False)
    if result.returncode != 0:
        sys.exit(result.stderr)


def measure(root: Path, mode: str) -> dict[str, float]:
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    result = subprocess.run([sys.executable, "-c", CHILD, str(root), mode], capture_output=True, text=True,
                            check=True, env=environment)
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tools", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        build_project(root, options.tools, options.seed)
        measure(root, "implement")  # writes the modules' bytecode, as installing the package does
        runs: dict[str, list[dict[str, float]]] = {"import": [], "implement": []}
        for _ in range(options.repeat):  # interleaved: the machine's noise hits both alike
            for mode, readings in runs.items():
                readings.append(measure(root, mode))
    only, full = runs["import"], runs["implement"]
    tools = int(full[0]["tools"])
    wall_import = statistics.median(r["total"] for r in only)
    wall_full = statistics.median(r["total"] for r in full)
    rss_import = statistics.median(r["rss_mb"] for r in only)
    rss_full = statistics.median(r["rss_mb"] for r in full)
    print(f"{tools} generated tools, median of {options.repeat} fresh interpreters")
    print(f"  import generated (registry) {wall_import:6.2f} s  {rss_import:6.0f} MB peak RSS")
    print(f"  + implement() every tool    {wall_full:6.2f} s  {rss_full:6.0f} MB peak RSS")
    print(f"  implement() adds            {wall_full - wall_import:6.2f} s  "
          f"({(wall_full - wall_import) / tools * 1e3:.2f} ms a tool; x{wall_full / wall_import:.2f} the import)")
    print(f"  target: < 3 s and < 150 MB for import + implement: "
          f"{'met' if wall_full < 3 and rss_full < 150 else 'not met'}")


if __name__ == "__main__":
    main()
