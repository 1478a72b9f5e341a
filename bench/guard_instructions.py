"""Machine instructions per guarded call, counted under callgrind: the noise-free twin of guard_overhead.py.

Run: python bench/guard_instructions.py [--calls N]   (needs valgrind on PATH; prints nothing else without it)

Timed runs on a shared machine swing by a third; instruction counts do not. Each case runs in a fresh
interpreter under ``valgrind --tool=callgrind`` twice, with N calls and with none (same imports, same
warm-up, garbage collector off, PYTHONHASHSEED=0), and the difference over N is the cost of one call.
The cases are guard_overhead.py's: pydantic ``model_validate`` (the baseline), the guarded happy
path, one new wrong value each call, and a new mistake of four problems each call. Both sides of the
ratio are called through a lambda, as guard_overhead.py's timeit does.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: one case per run: argv[1] names it, argv[2] is the number of calls measured
LOOP = r"""
import gc, sys
sys.path.insert(0, sys.argv[3])
import guard_overhead as g
case, calls = sys.argv[1], int(sys.argv[2])
tool = g.guard(g.contract(None), g.trivial, input_model=g.Query)
warm, total = 300, 300 + calls
if case == "model_validate":
    fn = lambda: g.Query.model_validate(g.GOOD)
elif case == "happy":
    fn = lambda: tool(g.GOOD)
else:
    if case == "wrong_value":
        values = iter([{"query": "quarterly budget", "limit": str(i)} for i in range(total)])
    else:
        values = iter([{f"qeury{i}": "quarterly budget", "limit": str(i), "order": f"random{i}",
                        "include_archived": False} for i in range(total)])
    fn = lambda: tool(next(values))
gc.disable()
for _ in range(warm):
    fn()
for _ in range(calls):
    fn()
"""

CASES = {
    "model_validate": "pydantic Model.model_validate",
    "happy": "guarded call, happy path",
    "wrong_value": "guarded call, one new wrong value each call",
    "new_mistake": "guarded call, a new mistake each call (four problems)",
}


def instructions(case: str, calls: int) -> int:
    """Instructions callgrind counts for the whole run of ``case`` with ``calls`` calls."""
    command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, "-c", LOOP,
               case, str(calls), str(ROOT / "bench")]
    run = subprocess.run(command, capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONHASHSEED": "0"})
    found = re.search(r"Collected : (\d+)", run.stderr)
    if found is None:
        raise SystemExit(f"callgrind printed no count for {case}:\n{run.stderr[-2000:]}")
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000, help="calls measured per case (default 2,000)")
    options = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not on PATH: install it (Debian: apt install valgrind) to count instructions")
    per_call = {}
    for case in CASES:
        per_call[case] = (instructions(case, options.calls) - instructions(case, 0)) / options.calls
    width = max(map(len, CASES.values()))
    print(f"instructions per call (callgrind, {options.calls:,} calls minus none, PYTHONHASHSEED=0)")
    for case, label in CASES.items():
        print(f"{label:<{width}}  {per_call[case]:>10,.0f}")
    base = per_call["model_validate"]
    print(f"guarded happy / model_validate: {per_call['happy'] / base:.2f}x  (target <= 1.5x)")


if __name__ == "__main__":
    main()
