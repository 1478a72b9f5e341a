"""Precision and recall of `contractgen diff` on the labelled case corpus (tests/cases/diff/*/labels.json).

Each labelled case says, per direction (input, output) and reading (default, --strict), whether the
change is breaking. The engine's verdict for a direction is "breaking" when it reports at least one
ERR finding from a rule of that direction (acknowledgements and major-bump allowances ignored).
Also counts the ERR findings about values that carry no witness (the goal is zero).

    python bench/diff_accuracy.py [--cases tests/cases/diff] [--verbose] [--suite CORPUS]

``--suite ../shared/corpus`` adds the JSON-Schema-Test-Suite pairs (as tests/test_diff_suite.py builds
them, input direction, --strict): how often a narrowing the suite's own test data shows is reported
as ERR, as WARN only, or not at all, and how many pairs stay undecided.
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
    parser.add_argument("--suite", type=Path, help="the shared corpus folder holding json_schema_test_suite")
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
    if args.suite is not None:
        suite_report(args.suite)
    return 0


def suite_report(corpus: Path) -> None:
    """Data-evidenced narrowings among the JSON-Schema-Test-Suite pairs: ERR, WARN only, or silent."""
    sys.path.insert(0, str(ROOT / "tests"))
    from test_diff_suite import _decides, _pairs, _tool, _validator

    from contractgen.diff.structure import ToolPair

    counts = {"pairs": 0, "evidenced": 0, "err": 0, "warn_only": 0, "silent": 0, "err_without_evidence": 0}
    for _, old, new, data in _pairs(corpus / "json_schema_test_suite"):
        report = run_diff([ToolPair(_tool(old, "1.0.0"), _tool(new, "2.0.0"))], [], DiffSettings(),
                          Context(date(2026, 1, 1), strict=True))
        old_check, new_check = _validator(old), _validator(new)
        evidenced = any(_decides(old_check, d) is True and _decides(new_check, d) is False for d in data)
        levels = {f.level for f in report.findings if f.pointer.startswith("/input")}
        counts["pairs"] += 1
        if evidenced:
            counts["evidenced"] += 1
            key = "err" if Level.BREAKING in levels else "warn_only" if Level.DANGEROUS in levels else "silent"
            counts[key] += 1
        elif Level.BREAKING in levels:
            counts["err_without_evidence"] += 1  # a narrowing the suite's data does not show (witnessed)
    print(f"\nJSON-Schema-Test-Suite, input, --strict: {counts['pairs']} pairs, {counts['evidenced']} with a "
          f"narrowing shown by the suite's data: {counts['err']} ERR, {counts['warn_only']} WARN only, "
          f"{counts['silent']} silent; {counts['err_without_evidence']} more ERR (each with a checked witness) "
          "where the suite's data shows none")


if __name__ == "__main__":
    sys.exit(main())
