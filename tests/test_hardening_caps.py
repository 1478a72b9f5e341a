"""Caps on bytes -> value hold on every path, and numbers the runtime cannot hold are rejected by check.

Attacked generically: hypothesis nests values to random depths and writes integers of random length
through the JSON path, the YAML path and the path where YAML refuses valid JSON; a sparse 1.5 GB
manifest must be refused from its size alone; and boundary numbers either fail ``check`` or build
into a module that imports.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from build_support import build, imported_package, make_project
from conftest import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from contractgen.manifest.caps import MAX_DEPTH, MAX_INT_DIGITS, MAX_MANIFEST_BYTES
from contractgen.manifest.load import load_parsed
from contractgen.manifest.parse import parse_manifest_text

BASIC = Path(__file__).resolve().parent / "cases" / "build" / "basic" / "contracts" / "get_weather" / "1.0.0.yaml"


def _manifest(input_schema: dict[str, object] | None = None) -> dict[str, object]:
    return {
        "name": "probe", "version": "1.0.0", "summary": "Probe a value.",
        "description": "Probes one value. Use it to test how numbers are handled by the generator.",
        "input": input_schema or {"type": "object", "properties": {"q": {"type": "string"}}},
        "output": {"type": "object", "properties": {"ok": {"type": "boolean"}}},
        "errors": [{"class": "Busy", "code": "UNAVAILABLE", "message": "Busy; try again later."}],
    }


def _nested(depth: int, kind: str) -> str:
    return ("[" * depth + "1" + "]" * depth) if kind == "list" else ('{"a":' * depth + "1" + "}" * depth)


@settings(max_examples=25, deadline=None)
@given(depth=st.integers(min_value=MAX_DEPTH + 1, max_value=1_500), kind=st.sampled_from(["list", "dict"]),
       suffix=st.sampled_from([".json", ".yaml"]), fallback=st.booleans())
def test_deep_nesting_is_a_diagnostic_on_every_parser_path(depth: int, kind: str, suffix: str, fallback: bool) -> None:
    # ``\\/`` is a valid JSON escape that the YAML 1.1 reader rejects: the JSON-only fallback path
    text = '{"name": "x\\/y", "input": ' if fallback else '{"name": "x", "input": '
    text += _nested(depth, kind) + "}"
    parsed = parse_manifest_text(f"m{suffix}", text.encode())
    assert parsed.value is None
    assert [d.code for d in parsed.diagnostics] == ["too-deep"], parsed.diagnostics


@settings(max_examples=40, deadline=None)
@given(digits=st.integers(min_value=MAX_INT_DIGITS + 1, max_value=50_000), suffix=st.sampled_from([".json", ".yaml"]),
       sign=st.sampled_from(["", "-"]), fallback=st.booleans())
def test_long_integers_are_a_diagnostic_on_every_parser_path(digits: int, suffix: str, sign: str, fallback: bool) -> None:
    name = '"x\\/y"' if fallback else '"x"'
    text = f'{{"name": {name}, "input": {{"maximum": {sign}{"7" * digits}}}}}'
    parsed = parse_manifest_text(f"m{suffix}", text.encode())
    assert parsed.value is None
    assert [d.code for d in parsed.diagnostics] == ["number-too-long"], parsed.diagnostics
    assert "digits" in parsed.diagnostics[0].message


@settings(max_examples=60, deadline=None)
@given(surrogate=st.integers(min_value=0xD800, max_value=0xDFFF), where=st.sampled_from(["value", "key", "deep"]),
       around=st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp"), blacklist_characters='\\"\x85'),
                      max_size=3),
       suffix=st.sampled_from([".json", ".yaml", ".yml"]), fallback=st.booleans())
def test_lone_surrogates_are_a_diagnostic_on_every_parser_path(surrogate: int, where: str, around: str, suffix: str,
                                                              fallback: bool) -> None:
    """JSON and double-quoted YAML spell half a character as ``"\\ud800"``: no encoder writes it, and a
    key holding one crashed check and build (a pattern matcher raised on it)."""
    half = f"{around}\\u{surrogate:04x}{around}"
    name = '"x\\/y"' if fallback else '"x"'
    member = {"value": f'"title": "{half}"', "key": f'"{half}": 1',
              "deep": f'"input": {{"properties": {{"{half}": {{"type": "string"}}}}}}'}[where]
    parsed = parse_manifest_text(f"m{suffix}", f'{{"name": {name}, {member}}}'.encode())
    assert parsed.value is None
    assert [d.code for d in parsed.diagnostics] == ["lone-surrogate"], parsed.diagnostics
    problem = parsed.diagnostics[0]
    assert f"\\u{surrogate:04x}" in problem.message and problem.hint
    assert problem.pointer.startswith("/title" if where == "value" else "/input/properties/" if where == "deep" else "/")


@settings(max_examples=40, deadline=None)
@given(pair=st.integers(min_value=0x10000, max_value=0x10FFFF), suffix=st.sampled_from([".json", ".yaml"]))
def test_surrogate_pairs_read_back_in_json_and_are_explained_in_yaml(pair: int, suffix: str) -> None:
    """JSON joins a pair of escapes into one character; YAML reads each as a character of its own (the
    spec's ``\\u`` is one code point), so there the pair is refused with the YAML spelling as the hint."""
    high, low = 0xD800 + ((pair - 0x10000) >> 10), 0xDC00 + ((pair - 0x10000) & 0x3FF)
    parsed = parse_manifest_text(f"m{suffix}", f'{{"t": "\\u{high:04x}\\u{low:04x}"}}'.encode())
    if suffix == ".json":
        assert parsed.diagnostics == [] and parsed.value == {"t": chr(pair)}
    else:
        assert [d.code for d in parsed.diagnostics] == ["lone-surrogate"]
        assert "\\U0001F600" in (parsed.diagnostics[0].hint or "")
    unescaped = parse_manifest_text(f"m{suffix}", f'{{"t": "\\U{pair:08x}"}}'.encode() if suffix == ".yaml"
                                    else json.dumps({"t": chr(pair)}, ensure_ascii=False).encode())
    assert unescaped.diagnostics == [] and unescaped.value == {"t": chr(pair)}


@settings(max_examples=40, deadline=None)
@given(digits=st.integers(min_value=1, max_value=MAX_INT_DIGITS), suffix=st.sampled_from([".json", ".yaml"]))
def test_integers_under_the_cap_read_back_exactly(digits: int, suffix: str) -> None:
    number = int("9" * digits)
    parsed = parse_manifest_text(f"m{suffix}", f'{{"n": {number}}}'.encode())
    assert parsed.diagnostics == [] and parsed.value == {"n": number}


def test_a_huge_manifest_is_refused_from_its_size_without_reading_it(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p")
    big = root / "contracts" / "big.yaml"
    with open(big, "wb") as handle:  # sparse: 1.5 GB on stat, nothing on disk
        handle.truncate(1_500_000_000)
    for command in (["check", "contracts"], ["build"], ["build", "--check"]):
        result, peak_kib = _run_measured(root, *command)
        assert result.returncode == 2, (command, result.stderr)
        assert "file-too-large" in result.stderr or f"at most {MAX_MANIFEST_BYTES:,} bytes" in result.stderr
        assert "Traceback" not in result.stderr
        assert peak_kib < 400_000, (command, peak_kib)  # reading the file would take 1.5 GB


def _run_measured(cwd: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], int]:
    """The real CLI in a subprocess that reports its own peak memory (KiB) on its last stderr line."""
    # VmHWM is this process image's own peak: ru_maxrss would carry over the peak of the forking
    # test process (Linux keeps it across exec), which grows over a long session
    code = ("import runpy, sys\nsys.argv = ['contractgen', *sys.argv[1:]]\ntry:\n"
            "    runpy.run_module('contractgen', run_name='__main__')\nfinally:\n"
            "    peak = [l for l in open('/proc/self/status') if l.startswith('VmHWM:')][0].split()[1]\n"
            "    print(peak, file=sys.stderr)\n")
    result = subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, text=True,
                            timeout=300, check=False)
    *rest, last = result.stderr.rstrip("\n").split("\n")
    result.stderr = "\n".join(rest)
    return result, int(last)


REJECTED = [
    ("maximum", "1e400", "non-json-number"),
    ("minimum", "-.inf", "non-json-number"),
    ("maxLength", "1e30", "length-out-of-range"),
    ("maxItems", "1.0e16", "length-out-of-range"),
    ("minLength", "9007199254740992", "length-out-of-range"),
    ("maxLength", "5.0", "length-not-integer"),
    ("maximum", "1" + "0" * 320, "number-out-of-range"),
    ("multipleOf", "1" + "0" * 399, "number-out-of-range"),
]


@pytest.mark.parametrize(("keyword", "literal", "code"), REJECTED)
def test_numbers_the_runtime_cannot_hold_fail_check(tmp_path: Path, keyword: str, literal: str, code: str) -> None:
    text = BASIC.read_text("utf-8").replace("minLength: 1,", f"{keyword}: {literal},")
    assert keyword in text
    manifest = tmp_path / "contracts" / "get_weather" / "1.0.0.yaml"
    manifest.parent.mkdir(parents=True)
    manifest.write_text(text, "utf-8")
    result = run_cli("check", str(tmp_path / "contracts"), "--format", "json")
    assert result.returncode == 2, result.stdout + result.stderr
    codes = {d["code"] for d in json.loads(result.stdout)["diagnostics"]}
    assert code in codes, result.stdout


@settings(max_examples=300, deadline=None)
@given(keyword=st.sampled_from(["maximum", "minimum", "exclusiveMaximum", "multipleOf", "maxLength",
                                "minLength", "maxItems", "maxProperties"]),
       number=st.integers(min_value=-(10 ** 320), max_value=10 ** 320)
       | st.floats(allow_nan=True, allow_infinity=True) | st.integers(min_value=0, max_value=2**70))
def test_check_accepts_only_numbers_pydantic_can_hold(keyword: str, number: float) -> None:
    """Whatever check accepts, pydantic can build a field with (the constraint the generated module writes)."""
    from pydantic import BaseModel, Field

    field_type = {"maxLength": str, "minLength": str, "maxItems": list, "maxProperties": dict}.get(keyword, float)
    prop = {"type": {str: "string", list: "array", dict: "object", float: "number"}[field_type], keyword: number}
    parsed = parse_manifest_text("m.json", json.dumps(_manifest({"type": "object", "properties": {"v": prop}}))
                                 .encode())
    result = load_parsed([parsed])
    if not result.ok:
        assert all("Traceback" not in d.message and d.code != "internal-check-failure" for d in result.diagnostics)
        return
    constraint = {"maximum": "le", "minimum": "ge", "exclusiveMaximum": "lt", "multipleOf": "multiple_of",
                  "maxLength": "max_length", "minLength": "min_length", "maxItems": "max_length",
                  "maxProperties": "max_length"}[keyword]
    type("Probe", (BaseModel,), {"__annotations__": {"v": field_type}, "v": Field(**{constraint: number})})


def test_boundary_numbers_that_pass_check_build_and_import(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p")
    bounds = {"maxLength": 2**53 - 1, "minLength": 0}
    numbers = {"maximum": 1.7976931348623157e308, "minimum": -(10 ** 300), "multipleOf": 5e-324}
    schema = {"type": "object", "properties": {
        "s": {"type": "string", **bounds}, "n": {"type": "number", **numbers}, "i": {"type": "integer",
                                                                                     "maximum": 10 ** 300}}}
    (root / "contracts" / "probe.json").write_text(json.dumps(_manifest(schema)), "utf-8")
    result = build(root)
    assert result.returncode == 0, result.stderr
    with imported_package(root) as package:
        stub = package.STUBS["probe_v1"]
        assert stub.contract.input_schema["properties"]["i"]["maximum"] == 10 ** 300
    assert sys.get_int_max_str_digits() == 0 or sys.get_int_max_str_digits() >= MAX_INT_DIGITS


def test_huge_retry_numbers_reach_the_model_in_short_form(tmp_path: Path) -> None:
    """A backoff of 1e308 s (or a 301-digit integer) passed check and was written into the model-facing
    description digit by digit: hundreds of tokens on every request, saying nothing more than 1e+308."""
    root = make_project(tmp_path / "p")
    manifest = _manifest()
    manifest["retry"] = {"retryable_codes": ["UNAVAILABLE"], "failure_budget": 10**300,
                         "backoff": {"initial": 1, "multiplier": 2, "maximum": "@@", "jitter": True}}
    (root / "contracts" / "probe").mkdir()
    (root / "contracts" / "probe" / "1.0.0.json").write_text(json.dumps(manifest).replace('"@@"', "1e308"), "utf-8")
    result = build(root)
    assert result.returncode == 0, result.stderr
    with imported_package(root) as generated:
        description = generated.probe_v1.DESCRIPTION
    facts = description.splitlines()[-1]
    assert "backoff 1-1e+308 s; stop after 1e+300 failures in a row." in facts and len(facts) < 200, facts
