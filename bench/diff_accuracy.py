"""Precision and recall of `contractgen diff` on the labelled case corpus (tests/cases/diff/*/labels.json).

Each labelled case says, per direction (input, output) and reading (default, --strict), whether the
change is breaking. The engine's verdict for a direction is "breaking" when it reports at least one
ERR finding from a rule of that direction (acknowledgements and major-bump allowances ignored).
Also counts the ERR findings about values that carry no witness (the goal is zero).

    python bench/diff_accuracy.py [--cases tests/cases/diff] [--verbose]
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import date
from pathlib import Path

from contractgen.diff import RULES_BY_ID, Context, DiffSettings, Direction, Level, run_diff
from contractgen.diff.pairing import pair_files
from contractgen.manifest.load import load_contracts

ROOT = Path(__file__).resolve().parents[1]
READINGS = ("default", "strict")
DIRECTIONS = ("input", "output")


def verdicts(case: Path, strict: bool) -> tuple[dict[str, str], int]:
    """Per direction "breaking"/"safe", and how many ERR value findings lack a witness."""
    old, new = load_contracts([case / "old"]), load_contracts([case / "new"])
    if not (old.ok and new.ok):
        raise SystemExit(f"{case}: manifests do not load: {old.diagnostics or new.diagnostics}")
    pairs, changes = pair_files(old.contracts, new.contracts)
    report = run_diff(pairs, changes, DiffSettings(), Context(today=date(2026, 11, 30), strict=strict))
    out = {d: "safe" for d in DIRECTIONS}
    unwitnessed = 0
    for finding in report.findings:
        rule = RULES_BY_ID[finding.rule]
        if finding.level is not Level.BREAKING or rule.direction is Direction.CONTRACT:
            continue
        out[rule.direction.value] = "breaking"
        if rule.witness and not finding.has_witness:
            unwitnessed += 1
    return out, unwitnessed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=Path, default=ROOT / "tests" / "cases" / "diff")
    parser.add_argument("--verbose", action="store_true", help="list every misjudged case")
    args = parser.parse_args(argv)
    labelled = sorted(p.parent for p in args.cases.glob("*/labels.json"))
    counts = {(r, d): {"tp": 0, "fp": 0, "fn": 0, "tn": 0} for r in READINGS for d in DIRECTIONS}
    wrong: list[str] = []
    unwitnessed = 0
    for case in labelled:
        labels = json.loads((case / "labels.json").read_text("utf-8"))
        for reading in READINGS:
            got, missing = verdicts(case, reading == "strict")
            unwitnessed += missing
            for direction in DIRECTIONS:
                expected = labels[direction][reading]
                actual = got[direction]
                key = ("t" if expected == actual else "f") + ("p" if actual == "breaking" else "n")
                counts[(reading, direction)][key] += 1
                if expected != actual:
                    wrong.append(f"{case.name} [{reading}, {direction}]: expected {expected}, got {actual}")
    print(f"{len(labelled)} labelled cases, {len(labelled) * 4} verdicts (2 readings x 2 directions)")
    print(f"{'reading':8} {'direction':9} {'TP':>3} {'FP':>3} {'FN':>3} {'TN':>3} {'precision':>9} {'recall':>6}")
    for (reading, direction), c in counts.items():
        precision = c["tp"] / (c["tp"] + c["fp"]) if c["tp"] + c["fp"] else 1.0
        recall = c["tp"] / (c["tp"] + c["fn"]) if c["tp"] + c["fn"] else 1.0
        print(f"{reading:8} {direction:9} {c['tp']:>3} {c['fp']:>3} {c['fn']:>3} {c['tn']:>3} "
              f"{precision:>9.3f} {recall:>6.3f}")
    print(f"ERR findings about values without a witness: {unwitnessed}")
    if wrong and args.verbose:
        print("\n".join(["misjudged:", *wrong]))
    elif wrong:
        print(f"{len(wrong)} misjudged verdicts (--verbose lists them)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
