"""A YAML manifest means what its text says, or is refused: never a value the author did not write.

The loader reads JSON-compatible scalars only, but it turned a key into the JSON spelling of what YAML
reads (``1e3:`` became the property ``"1000.0"``, ``~:`` and a list key ``"null"``, ``01:`` ``"1.0"``)
and dropped every explicit tag (``!!binary aGVsbG8=`` stayed the base64 text, ``!!set`` became a
mapping, ``!!python/object:...`` a plain mapping, ``!!bool yes`` read as false). Attacked on both parser
paths (libyaml and the pure-Python reader) with keys in every spelling and tags in every place.
"""

from __future__ import annotations

import json
from pathlib import Path

from build_support import make_project
from conftest import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from contractgen.manifest.parse import parse_manifest_text

#: plain scalars YAML may read as something other than the text (numbers, booleans, nulls), in
#: spellings that keep and change their text, plus words that stay strings
_digits = st.text("0123456789", min_size=1, max_size=3)
KEY_TEXT = st.one_of(
    st.sampled_from(["~", "null", "Null", "NULL", "true", "True", "FALSE", "false", ".inf", "-.Inf", ".nan",
                     "0", "-0", "+1", "1", "01", "1.0", "1.", ".5", "1e3", "1E+3", "0.10", "-1.5", "name"]),
    st.builds(lambda sign, whole, frac, exp: sign + whole + frac + exp, st.sampled_from(["", "-", "+"]), _digits,
              st.sampled_from(["", ".", ".0", ".25"]), st.sampled_from(["", "e1", "E-2", "e+0"])),
)


@settings(max_examples=150, deadline=None)
@given(key=KEY_TEXT, flow=st.booleans(), fast=st.booleans())
def test_a_key_is_read_as_written_or_refused_with_a_hint_to_quote_it(key: str, flow: bool, fast: bool) -> None:
    text = f"{{{key}: 1, other: 2}}\n" if flow else f"{key}: 1\nother: 2\n"
    parsed = parse_manifest_text("m.yaml", text.encode(), fast=fast)
    if parsed.diagnostics:
        assert [d.code for d in parsed.diagnostics] == ["non-string-key"], parsed.diagnostics
        problem = parsed.diagnostics[0]
        assert problem.line == 1 and repr(key) in problem.message
        quoted = (problem.hint or "").removeprefix("quote the key: ")
        fixed = parse_manifest_text("m.yaml", text.replace(key, quoted.rstrip(":"), 1).encode(), fast=fast)
        assert fixed.diagnostics == [] and fixed.value == {key: 1, "other": 2}
    else:
        assert parsed.value == {key: 1, "other": 2}


def test_a_list_or_mapping_as_a_key_is_refused() -> None:
    for text in ("? [a, b]\n: 1\n", "? {a: 1}\n: 1\n", "{[a]: 1}\n"):
        for fast in (True, False):
            parsed = parse_manifest_text("m.yaml", text.encode(), fast=fast)
            assert [d.code for d in parsed.diagnostics] == ["non-string-key"], (text, parsed.diagnostics)


FOREIGN_TAGS = ["!!binary", "!!set", "!!omap", "!!pairs", "!!timestamp", "!!python/object:os.system",
                "!!python/name:os.system", "!!python/object/apply:os.system", "!local", "!<tag:example.com,2026:x>",
                "!!merge", "!!value"]
PLACES = {  # a YAML document with TAG in one place, and the pointer of that place
    "scalar": ("description: TAG aGVsbG8=\n", "/description"),
    "mapping": ("input: TAG {type: object}\n", "/input"),
    "list": ("input:\n  required: TAG [a, b]\n", "/input/required"),
    "flow scalar": ("input: {enum: [TAG x]}\n", "/input/enum/0"),
    "key": ("input:\n  TAG k: 1\n", "/input/k"),
    "anchored": ("a: &x TAG {b: 1}\nc: *x\nd: *x\n", "/a"),
}


@settings(max_examples=120, deadline=None)
@given(tag=st.sampled_from(FOREIGN_TAGS), place=st.sampled_from(sorted(PLACES)), fast=st.booleans())
def test_a_tag_json_has_no_value_for_is_refused_where_it_is(tag: str, place: str, fast: bool) -> None:
    text, pointer = PLACES[place]
    parsed = parse_manifest_text("m.yaml", text.replace("TAG", tag).encode(), fast=fast)
    codes = [d.code for d in parsed.diagnostics]
    if codes == ["malformed-yaml"]:  # a tag the YAML reader itself refuses in this place
        return
    assert codes == ["yaml-tag"], parsed.diagnostics  # an anchored node is reported once, at its anchor
    assert parsed.diagnostics[0].pointer == pointer and parsed.diagnostics[0].hint


@settings(max_examples=120, deadline=None)
@given(tag=st.sampled_from(["!!str", "!!int", "!!float", "!!bool", "!!null"]),
       text=st.sampled_from(["5", "-5", "0x10", "1.5", "1e3", "yes", "on", "true", "False", "null", "~", "abc", "0o7"]),
       fast=st.booleans())
def test_a_core_tag_reads_its_text_as_json_would_or_is_refused(tag: str, text: str, fast: bool) -> None:
    """``!!bool yes`` read as false and ``!!int 0x10`` as the string '0x10': YAML 1.1 readings."""
    parsed = parse_manifest_text("m.yaml", f"v: {tag} {text}\n".encode(), fast=fast)
    if parsed.diagnostics:
        assert [d.code for d in parsed.diagnostics] == ["yaml-tag"], parsed.diagnostics
        return
    value = parsed.value["v"]
    if tag == "!!str":
        assert value == text
    else:
        expected = json.loads(text.replace("True", "true").replace("False", "false").replace("~", "null"))
        assert value == expected and isinstance(value, bool) == isinstance(expected, bool)


def test_check_and_build_refuse_tags_and_keys_yaml_reads_otherwise(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    (root / "contracts" / "probe").mkdir()
    (root / "contracts" / "probe" / "1.0.0.yaml").write_text(
        "name: probe\nversion: 1.0.0\nsummary: Probe.\ndescription: !!binary aGVsbG8=\n"
        "input:\n  type: object\n  properties:\n    1e3: {type: string, description: A number-like name.}\n"
        "output: !!python/object:os.system {type: object, properties: {ok: {type: boolean}}}\n", "utf-8")
    for command in ("check", "build"):
        result = run_cli(command, cwd=root)
        assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
        assert "#/description: expected a plain YAML value (got the tag !!binary" in result.stderr
        assert "#/input/properties/1e3: expected a string key (got '1e3', which YAML reads as 1000.0)" in result.stderr
        assert "#/output: expected a plain YAML mapping (got the tag !!python/object:os.system" in result.stderr
    assert not (root / "generated").exists()
