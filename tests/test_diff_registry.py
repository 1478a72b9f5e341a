"""The rule registry is complete and consistent: IDs, modules, docstrings, levels and case directories."""

from __future__ import annotations

import pkgutil
import re

from conftest import run_cli
from diff_support import CASES, case_dirs

from contractgen.diff import RULES, Direction, Level, Scope
from contractgen.diff import rules as rules_package
from contractgen.diff.levels import group_of


def test_rule_ids_are_unique_kebab_case_and_match_their_modules() -> None:
    ids = [rule.id for rule in RULES]
    assert len(ids) == len(set(ids))
    for rule in RULES:
        assert re.fullmatch(r"[a-z]+(-[a-z]+)+", rule.id), rule.id
        assert rule.module == rule.id.replace("-", "_"), (rule.id, rule.module)


def test_registry_lists_every_rule_module() -> None:
    modules = {m.name for m in pkgutil.iter_modules(rules_package.__path__) if not m.name.startswith("_")}
    assert modules == {rule.module for rule in RULES}


def test_every_rule_is_documented_as_data() -> None:
    for rule in RULES:
        assert isinstance(rule.level, Level) and isinstance(rule.direction, Direction)
        assert isinstance(rule.scope, Scope)
        assert rule.summary and "\n" not in rule.summary and len(rule.summary) <= 120, rule.id
        assert len(rule.rationale) >= 40, f"{rule.id}: check() needs a docstring saying why it matters"
        if rule.scope is Scope.SCHEMA:
            assert rule.direction in (Direction.INPUT, Direction.OUTPUT), rule.id
        if rule.witness:  # inputs and, since outputs carry witnesses too, outputs
            assert rule.scope is Scope.SCHEMA and rule.direction in (Direction.INPUT, Direction.OUTPUT), rule.id


def test_every_rule_has_a_case_that_exercises_it() -> None:
    names = {case.name for case in case_dirs()}
    for rule in RULES:
        own = [n for n in names if n == rule.id or n.startswith(rule.id + "--")]
        assert own, f"{rule.id} has no case directory under {CASES}"
        expected = (CASES / rule.id / "expected.txt").read_text("utf-8")
        assert re.search(rf"^(ERR|WARN|INFO) {re.escape(rule.id)} #", expected, re.MULTILINE), \
            f"{rule.id}: its own case does not produce it"


def test_list_rules_prints_every_rule_with_its_level() -> None:
    result = run_cli("diff", "--list-rules")
    assert result.returncode == 0, result.stderr
    for rule in RULES:
        assert re.search(rf"^{rule.level.tag}\s+{re.escape(rule.id)}\s+{rule.direction.value}\s+{group_of(rule)}\s+"
                         rf"{re.escape(rule.summary)}$", result.stdout, re.MULTILINE), rule.id
