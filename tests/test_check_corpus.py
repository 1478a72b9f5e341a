"""Real third-party tool schemas (MCP servers, tau-bench functions) wrapped as manifests pass
`contractgen check`, or get only clean diagnostics; the test reports how many pass."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli

# one diagnostic: `file[:line[:col]] #/pointer: [warning: ]message`, then maybe `    hint: ...`
DIAGNOSTIC_LINE = re.compile(r"^\S.*?(?::\d+(?::\d+)?)? #(?:/\S*)?: (?:warning: )?\S.*$")
HINT_LINE = re.compile(r"^    hint: \S.*$")
SUMMARY_LINE = re.compile(r"^\d+ manifests? checked(?:, no errors|: .+)$")


def _tool_files(corpus: Path) -> list[Path]:
    return sorted(
        [*corpus.glob("mcp_tools/*/*.json"), *corpus.glob("function_calling/tau_bench/*/*.json")]
    )


def wrap_as_manifest(tool: dict[str, Any]) -> dict[str, Any]:
    """An MCP tool or an OpenAI function object as a manifest; the output is left open."""
    if "function" in tool:
        function = tool["function"]
        name, description, schema = (
            function["name"],
            function.get("description", ""),
            function.get("parameters", {}),
        )
    else:
        name, description, schema = (
            tool["name"],
            tool.get("description", ""),
            tool.get("inputSchema", {}),
        )
    first_sentence = description.split(". ")[0].strip() or name
    return {
        "name": name,
        "version": "1.0.0",
        "summary": first_sentence[:200],
        "description": description or name,
        "input": schema,
        "output": {"type": "object", "additionalProperties": True},
    }


def _write_corpus_manifests(corpus: Path, root: Path) -> dict[str, list[str]]:
    """One folder per corpus source (tool names are unique within one); source -> files."""
    by_source: dict[str, list[str]] = {}
    for path in _tool_files(corpus):
        manifest = wrap_as_manifest(json.loads(path.read_text("utf-8")))
        # the tool name may hold spaces or worse: the file layout must not depend on it being clean
        target = root / path.parent.name / path.stem / "1.0.0.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(manifest, indent=2), "utf-8")
        by_source.setdefault(path.parent.name, []).append(
            str(target.relative_to(root / path.parent.name))
        )
    return by_source


def test_corpus_tools_pass_check_or_get_clean_diagnostics(
    corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    by_source = _write_corpus_manifests(corpus, tmp_path)
    assert sum(map(len, by_source.values())) >= 150, "corpus looks truncated"
    failing: dict[str, list[str]] = {}
    # tools with keys no 2020-12 validator reads (a typo, or a YAML/JSON authoring slip)
    stray_keywords: set[tuple[str, str]] = set()
    total = 0
    for source, files in sorted(by_source.items()):
        total += len(files)
        result = run_cli("check", "--format", "json", ".", cwd=tmp_path / source, timeout=120)
        assert "Traceback" not in result.stderr, result.stderr
        assert result.returncode in (0, 2), result.stderr
        report = json.loads(result.stdout)
        assert report["manifests"] == len(files)
        for diagnostic in report["diagnostics"]:
            assert diagnostic["file"] in files, diagnostic
            assert diagnostic["level"] in ("error", "warning")
            assert diagnostic["pointer"] == "" or diagnostic["pointer"].startswith("/"), diagnostic
            assert diagnostic["message"].strip() and "\n" not in diagnostic["message"], diagnostic
            assert re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", diagnostic["code"]), diagnostic
            assert not diagnostic["code"].startswith("internal-"), diagnostic
            assert isinstance(diagnostic["line"], int) and diagnostic["line"] >= 1, diagnostic
            if diagnostic["code"] in ("unknown-schema-keyword", "legacy-schema-keyword"):
                assert isinstance(diagnostic["column"], int), diagnostic  # located at the key
                stray_keywords.add((source, diagnostic["file"]))
            if diagnostic["level"] == "error":
                failing.setdefault(diagnostic["file"], []).append(
                    f"{diagnostic['pointer']}: {diagnostic['message']}"
                )
        # the text format: every line is a diagnostic, a hint or the summary
        text = run_cli("check", ".", cwd=tmp_path / source, timeout=120)
        for line in text.stderr.splitlines():
            assert (
                DIAGNOSTIC_LINE.match(line) or HINT_LINE.match(line) or SUMMARY_LINE.match(line)
            ), line
    passed = total - len(failing)
    with capsys.disabled():
        print(
            f"\ncorpus: {passed} of {total} tools pass `contractgen check` unchanged; "
            f"{len(stray_keywords)} have unknown or legacy schema keywords; failing: "
            + "; ".join(f"{file} {problems[0]}" for file, problems in sorted(failing.items()))
        )
    # every failure must be a real defect of the input (today: names with spaces, not portable)
    for file, problems in failing.items():
        assert all("/name" in p for p in problems), (file, problems)
    assert passed >= total * 0.95
