"""``runtime/patterns.py`` answers as the generated guard does, for patterns built from ECMA-262
constructs (many of which Python's ``re`` refuses or reads otherwise) and strings around them.

Each example builds a real project with the real CLI (so ``check`` must accept every pattern the
guard accepts), imports the generated package and calls the guarded tool: a string in a property
with the pattern, and as a key of a map closed by that pattern. The call is accepted exactly when the
matcher says the pattern matches.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from build_support import build, imported_package, make_project
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from pattern_support import ALPHABET, KNOWN, ecma_patterns

from contractgen.runtime.patterns import is_valid_pattern, pattern_matches


def test_the_known_patterns_are_ones_python_reads_otherwise() -> None:
    texts = ["abc\n", "٣", "é", "2026", "😀", "\ufeff", "é", "\n"]
    for pattern, text in zip(KNOWN, texts):
        try:
            python = re.search(pattern, text) is not None
        except re.error:
            continue  # Python refuses the pattern itself
        assert python != pattern_matches(pattern, text), (pattern, text)


def _manifest(patterns: list[str]) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    for i, pattern in enumerate(patterns):
        properties[f"p{i}"] = {"type": "string", "pattern": pattern, "description": "A string."}
        properties[f"m{i}"] = {"type": "object", "patternProperties": {pattern: {"const": 1}},
                               "additionalProperties": False, "description": "Keys by pattern."}
    return {
        "name": "probe", "version": "1.0.0", "summary": "Probe patterns.",
        "description": "Returns ok. Use it to probe how patterns are judged.",
        "input": {"type": "object", "properties": properties},
        "output": {"type": "object", "properties": {"ok": {"type": "boolean", "description": "Always true."}}},
        "errors": [{"class": "Nope", "code": "NOT_FOUND", "message": "Nothing here. Ask again later."}],
        "examples": [{"arguments": {}}],
    }


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                HealthCheck.too_slow])
@example(patterns=KNOWN, texts=["abc", "abc\n", "٣", "1", "é", "\ufeff", " ", "2026", "😀", "A\n"])
@given(patterns=st.lists(ecma_patterns().filter(is_valid_pattern), min_size=6, max_size=10, unique=True),
       texts=st.lists(st.text(ALPHABET, max_size=4), min_size=12, max_size=20, unique=True))
def test_the_matcher_answers_as_the_generated_guard(patterns: list[str], texts: list[str],
                                                     tmp_path_factory: Any) -> None:
    root = make_project(tmp_path_factory.mktemp("patterns"))
    (root / "contracts" / "probe").mkdir()
    (root / "contracts" / "probe" / "1.0.0.json").write_text(json.dumps(_manifest(patterns)), "utf-8")
    result = build(root)
    assert result.returncode == 0, result.stderr
    with imported_package(root) as package:
        tool = package.probe_v1.probe.implement(lambda args: {"ok": True})
        for i, pattern in enumerate(patterns):
            for text in texts:
                expected = pattern_matches(pattern, text)
                assert expected is not None, (pattern, text)
                for arguments in ({f"p{i}": text}, {f"m{i}": {text: 1}}):
                    envelope = tool(arguments)
                    assert (envelope["status"] == "ok") is expected, (pattern, text, envelope)



def test_check_refuses_what_the_guard_refuses(tmp_path: Path) -> None:
    """The other half: a pattern the guard's validator refuses fails `check` (exit 2) with a hint."""
    refused = ["^[0-9]{6\\Z", "(?#c)a", "a{", "[^]"]
    assert not any(is_valid_pattern(p) for p in refused)
    root = make_project(tmp_path / "project")
    (root / "contracts" / "probe").mkdir()
    (root / "contracts" / "probe" / "1.0.0.json").write_text(json.dumps(_manifest(refused)), "utf-8")
    result = build(root)
    assert result.returncode == 2, result.stderr
    for i in range(len(refused)):
        assert f"#/input/properties/p{i}/pattern: invalid JSON Schema 2020-12: expected a regular " \
               "expression the guard's validator accepts" in result.stderr
    assert "hint:" in result.stderr and "Traceback" not in result.stderr
    assert not (root / "generated").exists()
