"""`contractgen diff` on edits of real schemas whose verdict is known (tests/diff_edits.py).

The shared corpus's MCP and function-calling input schemas (and the repo's contracts) get random
refactors, one to three at random positions, which must never be reported breaking, in either
direction or reading; and one realistic narrowing, which must be breaking as an input change with a
witness the old schema accepts and the new one refuses (python jsonschema with the guard's regexes),
and, undone, breaking as an output change with a result the new schema allows and the old excluded.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from datetime import date
from typing import Any

import pytest
from diff_edits import NARROWINGS, REFACTORS, at, enriched
from diff_fuzz import CORPUS, META, accepts, positions, seed_schemas, tool, validator
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contractgen.diff import RULES_BY_ID, Context, DiffSettings, Direction, Level, run_diff
from contractgen.diff.structure import ToolPair

SEEDS = seed_schemas(CORPUS if CORPUS.is_dir() else None, with_function_calling=True)
EXAMPLES = settings(max_examples=150, derandomize=True, database=None, deadline=None,
                    suppress_health_check=list(HealthCheck))
#: the default reading calls a property added to an output object safe (consumers ignore it)
SAFE_OUTPUT_WIDENINGS_BY_DEFAULT = frozenset({"closed_property_removed"})


def findings(old: dict[str, Any], new: dict[str, Any], direction: Direction, strict: bool) -> list[Any]:
    report = run_diff([ToolPair(tool(old, "1.0.0", direction), tool(new, "2.0.0", direction))], [], DiffSettings(),
                      Context(date(2026, 1, 1), strict=strict))
    return [f for f in report.findings if RULES_BY_ID[f.rule].direction is direction]


def describe(name: str, edits: list[str], old: Any, new: Any, found: list[Any]) -> str:
    shown = [f"{f.level.name} {f.rule} {f.pointer}: {f.message} witness={json.dumps(f.witness)[:200]}" for f in found]
    return f"{name} {edits}\n    " + "\n    ".join(shown) + f"\n    old={json.dumps(old)[:700]}\n    new={json.dumps(new)[:700]}"


def _seed(data: st.DataObject) -> tuple[str, dict[str, Any]]:
    name, schema = data.draw(st.sampled_from(SEEDS), label="seed")
    if data.draw(st.booleans(), label="enriched") and "properties" in schema:
        return name + "+enriched", enriched(schema)
    return name, schema


def _refactored(data: st.DataObject) -> tuple[str, dict[str, Any], dict[str, Any], list[str]] | None:
    name, schema = _seed(data)
    new = copy.deepcopy(schema)
    applied: list[str] = []
    for _ in range(data.draw(st.integers(1, 3), label="edits")):
        edit = data.draw(st.sampled_from(sorted(REFACTORS)), label="refactor")
        ptr = _fitting(REFACTORS[edit], new, data)
        if ptr is not None and REFACTORS[edit](new, at(new, ptr), ptr):
            applied.append(f"{edit}@/{'/'.join(ptr)}")
    if not applied or new == schema or any(META.iter_errors(new)):
        return None
    return name, schema, new, applied


def _fitting(edit: Any, schema: dict[str, Any], data: st.DataObject) -> tuple[str, ...] | None:
    """A position of ``schema`` where ``edit`` applies (tried on copies), or None."""
    fitting = [ptr for _, ptr in positions(schema)
               if edit(copy.deepcopy(schema), copy.deepcopy(at(schema, ptr)), ptr)]
    return data.draw(st.sampled_from(fitting), label="position") if fitting else None


def _narrowed(data: st.DataObject) -> tuple[str, dict[str, Any], dict[str, Any], str] | None:
    name, schema = _seed(data)
    edit = data.draw(st.sampled_from(sorted(NARROWINGS)), label="narrowing")
    new = copy.deepcopy(schema)
    ptr = _fitting(NARROWINGS[edit], new, data)
    if ptr is None:
        return None
    NARROWINGS[edit](new, at(new, ptr), ptr)
    if any(META.iter_errors(new)):
        return None
    return name, schema, new, f"{edit}@/{'/'.join(ptr)}"


Judge = Callable[[st.DataObject, list[str], list[str]], None]


def explore(judge: Judge) -> tuple[list[str], list[str]]:
    """Run ``judge(data, tried, failures)`` on EXAMPLES drawn cases; the edits tried and the failures."""
    tried: list[str] = []
    failures: list[str] = []

    @EXAMPLES
    @given(st.data())
    def run(data: st.DataObject) -> None:
        judge(data, tried, failures)

    run()
    return tried, failures


@pytest.mark.parametrize("strict", [False, True], ids=["default", "strict"])
@pytest.mark.parametrize("direction", [Direction.INPUT, Direction.OUTPUT], ids=["input", "output"])
def test_refactors_of_real_schemas_are_not_breaking(direction: Direction, strict: bool) -> None:
    def judge(data: st.DataObject, tried: list[str], failures: list[str]) -> None:
        drawn = _refactored(data)
        if drawn is None:
            return
        name, old, new, applied = drawn
        tried.extend(e.split("@")[0] for e in applied)
        breaking = [f for f in findings(old, new, direction, strict) if f.level is Level.BREAKING]
        if breaking:
            failures.append(describe(name, applied, old, new, breaking))

    tried, failures = explore(judge)
    if CORPUS.is_dir():  # the repo's own contracts alone give some refactors no place to apply (true_schemas)
        assert len(set(tried)) == len(REFACTORS), sorted(set(REFACTORS) - set(tried))
    assert not failures, f"{len(failures)} refactors reported breaking:\n" + "\n".join(failures[:5])


@pytest.mark.parametrize("strict", [False, True], ids=["default", "strict"])
@pytest.mark.parametrize("direction", [Direction.INPUT, Direction.OUTPUT], ids=["input", "output"])
def test_realistic_narrowings_are_breaking_with_a_valid_witness(direction: Direction, strict: bool) -> None:
    """Input: old -> narrowed. Output: narrowed -> old (a widening of what the tool returns)."""
    def judge(data: st.DataObject, tried: list[str], failures: list[str]) -> None:
        drawn = _narrowed(data)
        if drawn is None:
            return
        name, schema, narrowed, edit = drawn
        if direction is Direction.OUTPUT and not strict and edit.split("@")[0] in SAFE_OUTPUT_WIDENINGS_BY_DEFAULT:
            return
        tried.append(edit.split("@")[0])
        old, new = (schema, narrowed) if direction is Direction.INPUT else (narrowed, schema)
        # input: a call old accepts and new refuses; output: a result new may return and old excluded
        keeps, loses = (validator(old), validator(new)) if direction is Direction.INPUT else (validator(new), validator(old))
        found = findings(old, new, direction, strict)
        proved = [f for f in found if f.level is Level.BREAKING and f.has_witness]
        if not proved:
            failures.append(describe(name, [edit], old, new, found))
        for finding in proved:
            if finding.rule == "input-property-removed-open":
                continue  # its example call is valid on both sides by design (an ignored argument)
            if not (accepts(keeps, finding.witness) and accepts(loses, finding.witness) is False):
                failures.append("invalid witness: " + describe(name, [edit], old, new, [finding]))

    tried, failures = explore(judge)
    assert len(set(tried)) >= len(NARROWINGS) - 1, sorted(set(NARROWINGS) - set(tried))
    assert not failures, f"{len(failures)} narrowings not proven breaking:\n" + "\n".join(failures[:5])
