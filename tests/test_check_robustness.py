"""Property tests: any bytes, and any JSON value dropped anywhere into a valid manifest, give
diagnostics (never an exception, never an internal-check failure)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contractgen.diagnostics import Diagnostic
from contractgen.manifest.load import load_parsed
from contractgen.manifest.parse import ParsedFile, parse_manifest_text

ROOT = Path(__file__).resolve().parents[1]
BASE_TEXT = (ROOT / "contracts" / "search_documents" / "1.0.0.yaml").read_bytes()
BASE = parse_manifest_text("base.yaml", BASE_TEXT).value

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
    | st.sampled_from(["#/$defs/x", "/query", "RATE_LIMITED", "object", "1.0.0", "None"]),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)


def _pointers(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, child in value.items():
            found.extend(_pointers(child, prefix + (key,)))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            found.extend(_pointers(child, prefix + (i,)))
    return found


POINTERS = _pointers(BASE)[1:]


def _assert_clean(diagnostics: tuple[Diagnostic, ...] | list[Diagnostic]) -> None:
    for diagnostic in diagnostics:
        assert not diagnostic.code.startswith("internal-"), diagnostic
        text = diagnostic.format()
        assert text.count("\n") <= 1, text  # one line, plus at most one hint line


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=400))
def test_any_bytes_give_diagnostics(raw: bytes) -> None:
    for name in ("x.yaml", "x.json"):
        parsed = parse_manifest_text(name, raw)
        _assert_clean(load_parsed([parsed]).diagnostics)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet="{}[]:,-&*!|>'\"#\n ab1.", max_size=200))
def test_yaml_punctuation_gives_diagnostics(text: str) -> None:
    _assert_clean(load_parsed([parse_manifest_text("x.yaml", text.encode())]).diagnostics)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(POINTERS), json_values)
def test_any_value_anywhere_gives_clean_diagnostics(path: tuple[Any, ...], value: Any) -> None:
    data = copy.deepcopy(BASE)
    target = data
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    text = json.dumps(data)
    parsed = parse_manifest_text("contracts/search_documents/1.0.0.json", text.encode())
    assert isinstance(parsed, ParsedFile)
    _assert_clean(load_parsed([parsed]).diagnostics)


ODD_VALUES = (None, [], "x", -1)
BUNDLED = sorted((ROOT / "contracts").rglob("*.yaml"))


def test_odd_value_at_every_position_of_every_bundled_manifest() -> None:
    """Exhaustive (no luck involved): each bundled manifest, each position up to depth 2, each odd
    value: the sections that stay well-formed are still checked, without crashing."""
    for path in BUNDLED:
        base = parse_manifest_text(str(path), path.read_bytes()).value
        for pointer in (p for p in _pointers(base)[1:] if len(p) <= 2):
            for value in ODD_VALUES:
                data = copy.deepcopy(base)
                target = data
                for step in pointer[:-1]:
                    target = target[step]
                target[pointer[-1]] = value
                parsed = parse_manifest_text(
                    f"{path.parent.name}/{path.name}.json", json.dumps(data).encode()
                )
                _assert_clean(load_parsed([parsed]).diagnostics)
