"""`contractgen diff --versions` over histories built from the shared corpus's real tools.

The corpus holds one version of each tool, so histories are made of real neighbours: the tools the two
tau-bench environments both define (airline's ``get_user_details`` then retail's, and back), and within
one server the tools naming one thing (okta's ``create_group`` then ``update_group``, alfresco's
``get_node`` then ``get_node_content``), each way. Every tool goes through the real `contractgen import`
first and every history through the real CLI, in both readings: no crash (exit 0 or 1), every ERR about
values carries a witness that python jsonschema accepts under the schema it must satisfy and refuses
under the other, and under --strict no input history is left without ERR when a value the old schema
accepts (drawn by hypothesis-jsonschema) is refused by the new one. Skipped when ../shared is absent.
"""

from __future__ import annotations

import contextlib
import itertools
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import run_cli
from diff_fuzz import CORPUS, accepts, validator
from hypothesis import HealthCheck, given, settings

from contractgen.diff import RULES_BY_ID

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared corpus (../shared/corpus) is absent")

#: words that say what a tool does, not what it does it to: the rest of the name is its subject
VERBS = frozenset({"create", "update", "get", "delete", "list", "activate", "deactivate", "add", "remove",
                   "search", "find", "modify", "cancel", "confirm", "replace", "set", "read", "open",
                   "return", "exchange", "book", "send", "assign", "unassign", "lifecycle"})
#: values drawn from each old input schema to look for one the new schema refuses
DRAWS = 12
#: every this-many-th pair of neighbours within a server is kept (both ways): okta alone gives 200 pairs
STRIDE = 3


def _subject(name: str) -> str:
    return "_".join(part for part in name.split("_") if part not in VERBS)


def _import(source: Path, out: Path) -> dict[str, dict[str, Any]]:
    result = run_cli("import", str(source), "--out", str(out), "--version", "1.0.0")
    assert result.returncode == 0, result.stderr
    return {p.parent.name: yaml.safe_load(p.read_text("utf-8")) for p in sorted(out.glob("*/1.0.0.yaml"))}


def _histories(work: Path) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    servers = {f"tau_{env}": _import(CORPUS / "function_calling" / "tau_bench" / env, work / env)
               for env in ("airline", "retail")}
    for folder in sorted((CORPUS / "mcp_tools").iterdir()):
        servers[folder.name] = _import(folder, work / folder.name)
    airline, retail = servers["tau_airline"], servers["tau_retail"]
    found = []
    for name in sorted(set(airline) & set(retail)):
        found += [(f"tau/{name}", airline[name], retail[name]), (f"tau/{name} (back)", retail[name], airline[name])]
    neighbours = [(server, first, second) for server, tools in servers.items()
                  for first, second in itertools.combinations(sorted(tools), 2)
                  if _neighbours(_subject(first), _subject(second))]
    for server, first, second in neighbours[::STRIDE]:
        tools = servers[server]
        found += [(f"{server}/{first} -> {second}", tools[first], tools[second]),
                  (f"{server}/{second} -> {first}", tools[second], tools[first])]
    return found


def _neighbours(a: str, b: str) -> bool:
    """Whether two subjects name one thing, or one a part of the other (group, group_rule)."""
    return bool(a) and (a == b or a.startswith(b + "_") or b.startswith(a + "_"))


@pytest.fixture(scope="module")
def histories(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, tuple[str, Any, Any]]]:
    work = tmp_path_factory.mktemp("corpus-histories")
    tree, named = work / "tree", {}
    for index, (label, old, new) in enumerate(_histories(work / "imported")):
        tool = f"history_{index:03d}"
        named[tool] = (label, old, new)
        for version, manifest in (("1.0.0", old), ("1.1.0", new)):
            (tree / tool).mkdir(parents=True, exist_ok=True)
            text = yaml.safe_dump({**manifest, "name": tool, "version": version}, sort_keys=False)
            (tree / tool / f"{version}.yaml").write_text(text, "utf-8")
    assert len(named) > 100, "the corpus should give a few hundred histories"
    return tree, named


_REPORTS: dict[tuple[Path, bool], dict[str, Any]] = {}


def _report(tree: Path, strict: bool) -> dict[str, Any]:
    """The CLI's JSON report on the tree (one run per reading)."""
    if (tree, strict) in _REPORTS:
        return _REPORTS[(tree, strict)]
    args = ["diff", "--versions", str(tree), "--format", "json", "--today", "2026-11-30"]
    result = run_cli(*args, *(["--strict"] if strict else []))
    assert result.returncode in (0, 1), result.stderr[-3000:]
    report: dict[str, Any] = json.loads(result.stdout)
    assert report["result"]["compared"] > 0
    _REPORTS[(tree, strict)] = report
    return report


@pytest.mark.parametrize("strict", [False, True], ids=["default", "strict"])
def test_every_err_of_a_real_history_carries_a_real_witness(histories: Any, strict: bool) -> None:
    tree, named = histories
    problems = []
    for finding in _report(tree, strict)["findings"]:
        rule = RULES_BY_ID[finding["rule"]]
        if finding["level"] != "breaking" or not rule.witness or rule.id == "input-property-removed-open":
            continue  # input-property-removed-open's example call is valid on both sides by design
        label, old, new = named[finding["tool"]]
        side = "input" if finding["pointer"].startswith("/input") else "output"
        keeps, loses = (old[side], new[side]) if side == "input" else (new[side], old[side])
        if not finding["witness"] and finding["witness"] != {}:
            problems.append(f"{label}: {rule.id} {finding['pointer']} has no witness")
        elif not (accepts(validator(keeps), finding["witness"]) and accepts(validator(loses), finding["witness"]) is False):
            problems.append(f"{label}: {rule.id} witness {finding['witness']!r} does not hold")
    assert not problems, "\n".join(problems[:10])


def test_no_real_history_that_refuses_an_old_call_is_left_without_err(histories: Any) -> None:
    tree, named = histories
    erred = {f["tool"] for f in _report(tree, True)["findings"]
             if f["level"] == "breaking" and f["pointer"].startswith("/input")}
    missed = []
    for tool, (label, old, new) in named.items():
        if tool in erred:
            continue
        refused = next((v for v in _drawn(old["input"]) if accepts(validator(new["input"]), v) is False), None)
        if refused is not None:
            missed.append(f"{label}: {json.dumps(refused)[:200]}")
    assert not missed, f"{len(missed)} histories refuse an old call without ERR:\n" + "\n".join(missed[:10])


def _drawn(schema: dict[str, Any]) -> list[Any]:
    """Values hypothesis-jsonschema draws for ``schema`` (none when it cannot handle it)."""
    from hypothesis_jsonschema import from_schema

    values: list[Any] = []
    try:
        strategy = from_schema(schema)
    except Exception:  # noqa: BLE001 - its schema support is partial
        return values

    @settings(max_examples=DRAWS, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def draw(value: Any) -> None:
        values.append(value)

    with contextlib.suppress(Exception):  # a keyword it reads differently fails mid-draw
        draw()
    return values
