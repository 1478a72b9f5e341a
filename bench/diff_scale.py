"""Benchmark: `contractgen diff` on two trees of synthetic tools, some of them changed.

First the end-to-end CLI wall time (`diff old new` and `diff --against`) for 100 and 1,000 tools with
5% changed and with one tool changed, next to `check` of one tree (the cost of reading everything,
measured in the same run); then, with --detail, the steps for --tools/--changed: the diff's time next
to the time to load the same trees (parse + check + lower). Nothing here asserts a time.

    python bench/diff_scale.py [--repeat 2] [--baseline DIR] [--detail --tools 1000 --changed 0.05]

--baseline DIR runs every diff of the first table on the contractgen found in DIR too (for instance
`git archive BASE contractgen | tar -x -C DIR`), alternated with this checkout's run by run.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

import yaml

from contractgen.diff import Context, DiffSettings, run_diff
from contractgen.diff.git import read_revision
from contractgen.diff.pairing import pair_trees
from contractgen.manifest.load import load_contracts, load_parsed
from contractgen.prover import clear_caches


def synthetic_tool(index: int, rng: random.Random) -> dict:
    properties: dict = {
        "query": {"type": "string", "minLength": 1, "maxLength": rng.choice([100, 200, 500]),
                  "description": "What to look for."},
        "limit": {"type": "integer", "minimum": 1, "maximum": rng.choice([50, 100]), "default": 10},
        "mode": {"enum": ["fast", "exact", "fuzzy"], "description": "Matching strategy."},
        "tags": {"type": "array", "items": {"type": "string", "pattern": "^[a-z][a-z0-9-]*$"}, "maxItems": 20},
        "filter": {"$ref": "#/$defs/filter"},
    }
    return {
        "name": f"tool_{index:04d}", "version": "1.0.0", "summary": f"Synthetic tool number {index}.",
        "description": "A synthetic tool for the diff benchmark.",
        "input": {"type": "object", "additionalProperties": False, "required": ["query"], "properties": properties,
                  "$defs": {"filter": {"type": "object", "additionalProperties": False,
                                       "properties": {"field": {"type": "string"},
                                                      "value": {"type": ["string", "number", "null"]}}}}},
        "output": {"type": "object", "required": ["items"], "properties": {
            "items": {"type": "array", "items": {"type": "object", "properties": {
                "id": {"type": "string"}, "score": {"type": "number", "minimum": 0, "maximum": 1}}}},
            "next_cursor": {"type": ["string", "null"]}}},
        "errors": [{"class": "NotFound", "code": "NOT_FOUND", "message": "Nothing matches. Tell the user."},
                   {"class": "Busy", "code": "RATE_LIMITED", "message": "Wait and retry.", "retry_after": 2}],
        "timeout": {"seconds": 20},
        "examples": [{"summary": "plain", "arguments": {"query": "lamps", "limit": 5, "mode": "fast"}}],
    }


CHANGES = (
    ("enum value removed", lambda t: t["input"]["properties"]["mode"].update(enum=["fast", "exact"])),
    ("maxLength lowered", lambda t: t["input"]["properties"]["query"].update(maxLength=50)),
    ("required property added", lambda t: (t["input"]["properties"].update(locale={"type": "string"}),
                                           t["input"]["required"].append("locale"),
                                           t["examples"][0]["arguments"].update(locale="en"))),
    ("description edited", lambda t: t["input"]["properties"]["query"].update(description="Words to find.")),
    ("output property removed", lambda t: t["output"]["properties"].pop("next_cursor")),
    ("error added", lambda t: t["errors"].append({"class": "Denied", "code": "PERMISSION_DENIED",
                                                 "message": "Not allowed. Tell the user."})),
    ("nested $defs narrowed", lambda t: t["input"]["$defs"]["filter"]["properties"]["value"].update(
        type=["string", "number"])),
    ("timeout decreased", lambda t: t["timeout"].update(seconds=5)),
)


def write_trees(root: Path, count: int, changed: float, seed: int = 7) -> int:
    """Two trees of ``count`` tools; ``changed`` is a share of them, or a number of tools when >= 1."""
    rng = random.Random(seed)
    changed_ids = set(rng.sample(range(count), int(changed if changed >= 1 else count * changed)))
    for index in range(count):
        tool = synthetic_tool(index, rng)
        (root / "old" / tool["name"]).mkdir(parents=True)
        (root / "old" / tool["name"] / "tool.yaml").write_text(yaml.safe_dump(tool, sort_keys=False), "utf-8")
        if index in changed_ids:
            _, change = CHANGES[index % len(CHANGES)]
            change(tool)
            tool["version"] = "1.1.0"
        (root / "new" / tool["name"]).mkdir(parents=True)
        (root / "new" / tool["name"] / "tool.yaml").write_text(yaml.safe_dump(tool, sort_keys=False), "utf-8")
    return len(changed_ids)


def best(repeat: int, work) -> tuple[float, object]:  # type: ignore[no-untyped-def]
    times, result = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        result = work()
        times.append(time.perf_counter() - started)
    return min(times), result


def git(cwd: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.com", "GIT_COMMITTER_NAME": "b",
           "GIT_COMMITTER_EMAIL": "b@example.com"}
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=env)


def against_repo(root: Path) -> Path:
    """A repository with the old tree committed on main and the new tree in its working tree."""
    repo = root / "repo"
    shutil.copytree(root / "old", repo / "contracts")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "old")
    shutil.rmtree(repo / "contracts")
    shutil.copytree(root / "new", repo / "contracts")
    return repo


def cli(*argv: str, where: Path, code: str | None = None) -> float:
    """Wall time of one `python -m contractgen` run; ``code`` is a checkout to import contractgen from."""
    env = {**os.environ, "PYTHONPATH": code} if code else None
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "contractgen", *argv], cwd=where, capture_output=True, check=False, env=env)
    return time.perf_counter() - started


def cli_matrix(repeat: int, baseline: str | None = None) -> None:
    """CLI wall for 100 / 1,000 tools, 5% and one tool changed: two folders and --against. With a
    baseline checkout, each diff also runs on its code, alternated with this one's run by run, so
    both columns share the machine's load."""
    folders_argv = ("diff", "old", "new", "--format", "json", "--today", "2026-11-30")
    against_argv = ("diff", "--against", "main", "contracts", "--format", "json", "--today", "2026-11-30")
    print(f"CLI end to end, best of {repeat} runs (x check = against `check old` of the same tree)")
    header = f"{'tools':>6} {'changed':>8} {'diff old new':>13} {'--against':>10} {'check old':>10} {'x check':>8}"
    print(header + (f" {'baseline old new':>17} {'baseline --against':>19}" if baseline else ""))
    for tools in (100, 1000):
        for changed in (0.05, 1):
            with tempfile.TemporaryDirectory() as scratch:
                root = Path(scratch)
                count = write_trees(root, tools, changed)
                repo = against_repo(root)
                runs: dict[str, list[float]] = {"folders": [], "against": [], "base folders": [], "base against": []}
                for _ in range(repeat):
                    if baseline:
                        runs["base folders"].append(cli(*folders_argv, where=root, code=baseline))
                        runs["base against"].append(cli(*against_argv, where=repo, code=baseline))
                    runs["folders"].append(cli(*folders_argv, where=root))
                    runs["against"].append(cli(*against_argv, where=repo))
                check = min(cli("check", "old", where=root) for _ in range(repeat))
            folders, against = min(runs["folders"]), min(runs["against"])
            row = f"{tools:>6} {count:>8} {folders:>13.3f} {against:>10.3f} {check:>10.3f} {folders / check:>8.2f}"
            if baseline:
                row += f" {min(runs['base folders']):>17.3f} {min(runs['base against']):>19.3f}"
            print(row, flush=True)


def fixed_costs(repeat: int) -> None:
    """What every CLI run pays before reading a manifest, in the same run: the interpreter, importing
    the command line, and typer's parameter coercion (it imports pydantic on the first option)."""
    def best_of(code: str) -> float:
        times = []
        for _ in range(repeat):
            started = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], capture_output=True, check=False)
            times.append(time.perf_counter() - started)
        return min(times)

    bare = best_of("pass")
    cli_import = best_of("import contractgen.cli")
    coercion = best_of("import contractgen.cli, pydantic")
    print(f"fixed costs: interpreter {bare:.3f} s, + import contractgen.cli {cli_import - bare:.3f} s, "
          f"+ pydantic (typer coerces options with it) {coercion - cli_import:.3f} s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", type=int, default=1000)
    parser.add_argument("--changed", type=float, default=0.05)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--detail", action="store_true", help="also time each step for --tools/--changed")
    parser.add_argument("--baseline", help="a checkout (e.g. from git archive) whose diff runs alternated with this one")
    args = parser.parse_args()
    cli_matrix(args.repeat, args.baseline)
    fixed_costs(args.repeat)
    if not args.detail:
        return 0
    print()
    context = Context(today=date(2026, 11, 30))
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        changed = write_trees(root, args.tools, args.changed)
        print(f"{args.tools} tools, {changed} changed ({args.changed:.0%}); best of {args.repeat} runs\n")

        # two folders
        load_time, loaded = best(args.repeat, lambda: (load_contracts([root / "old"]), load_contracts([root / "new"])))
        old, new = loaded  # type: ignore[misc]
        problems = [d.format() for d in (*old.diagnostics, *new.diagnostics) if d.level.value == "error"]
        if problems:  # a benchmark of trees that do not load would measure the wrong thing
            print("\n".join(problems[:5]), file=sys.stderr)
            return 2
        clear_caches()  # the first diff of a process pays for every proof; later runs hit the caches
        cold_time, _ = best(1, lambda: run_diff(*pair_trees(old.contracts, new.contracts), DiffSettings(), context))
        diff_time, report = best(args.repeat, lambda: run_diff(*pair_trees(old.contracts, new.contracts),
                                                               DiffSettings(), context))

        # --against: old tree committed in a temp repo, new tree in the working tree
        repo = against_repo(root)
        cwd = Path.cwd()
        os.chdir(repo)
        try:
            read_time, read = best(args.repeat, lambda: read_revision([Path("contracts")], "main"))
            git_load_time, git_loaded = best(args.repeat, lambda: (load_parsed(read.parsed),  # type: ignore[attr-defined]
                                                                   load_contracts([Path("contracts")])))
            git_old, git_new = git_loaded  # type: ignore[misc]
            git_diff_time, git_report = best(args.repeat, lambda: run_diff(
                *pair_trees(git_old.contracts, git_new.contracts), DiffSettings(), context))
        finally:
            os.chdir(cwd)

        cli_folders = min(cli("diff", "old", "new", "--format", "json", "--today", "2026-11-30", where=root)
                          for _ in range(args.repeat))
        cli_against = min(cli("diff", "--against", "main", "contracts", "--format", "json", "--today", "2026-11-30",
                              where=repo) for _ in range(args.repeat))
        cli_check = min(cli("check", "old", where=root) for _ in range(args.repeat))

    findings = len(report.findings)  # type: ignore[attr-defined]
    assert findings == len(git_report.findings)  # type: ignore[attr-defined]
    rows = [
        ("folders: load both trees (parse+check+lower)", load_time, load_time),
        ("folders: diff, first run (cold proof caches)", cold_time, load_time),
        ("folders: diff (pair + proof + rules + witnesses + gates)", diff_time, load_time),
        ("--against: read old tree from git (ls-tree + cat-file)", read_time, git_load_time),
        ("--against: load both trees", git_load_time, git_load_time),
        ("--against: diff", git_diff_time, git_load_time),
        ("CLI end to end: diff old new", cli_folders, load_time),
        ("CLI end to end: diff --against main", cli_against, load_time),
        ("CLI end to end: check old (one tree, for scale)", cli_check, load_time),
    ]
    print(f"{'step':<58} {'seconds':>8}  {'x load':>7}")
    for label, seconds, baseline in rows:
        print(f"{label:<58} {seconds:>8.3f}  {seconds / baseline:>7.2f}")
    print(f"\n{findings} findings ({sum(1 for f in report.findings if f.level.value == 'breaking')} breaking)")  # type: ignore[attr-defined]
    return 0


if __name__ == "__main__":
    sys.exit(main())
