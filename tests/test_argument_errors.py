"""A new mistake of a known shape is answered exactly as the full path answers it.

Three things are kept per shape of mistake: the recipe of an explanation (``SchemaCheck._recipe``:
which templates, in which order, masked or not), the envelope wording it
(``argument_errors.ShapedErrors``: filled in with the call's echoed values), and, for a flat call
that may hold no secret, which envelope answers its signature (``SchemaCheck.mistake``,
``ShapedErrors.known``: only the echoes are new). Each is a shortcut; a warm guard that has taken
them must still answer every call exactly as a fresh guard does.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from pydantic_core import to_json

from contractgen.runtime import Contract, Timeout, guard, schema_check
from contractgen.runtime.argument_errors import _json_size

#: a wide flat input: every templated keyword, an enum to guess against, one marked secret, one
#: secret by name, and enough fields that long echoed values overflow the envelope's size cap
WIDE = {"type": "object", "additionalProperties": False, "required": ["mode", "flag"], "properties": {
    "mode": {"type": "string", "enum": ["fast", "slow", "careful"]},
    "n": {"type": "integer", "minimum": 0, "maximum": 9, "multipleOf": 3},
    "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
    "code": {"type": "string", "pattern": "^[A-Z]{3}$", "minLength": 3, "maxLength": 3},
    "flag": {"const": True},
    "day": {"type": "string", "format": "date"},
    "pw": {"type": "string", "writeOnly": True, "minLength": 12},
    "api_token": {"type": "string", "maxLength": 4},
    "gone": False,
    **{f"f{i}": {"type": "integer"} for i in range(12)}}}
#: the same without a marked field: calls naming no secret-looking field may then go by signature
PLAIN = {**WIDE, "properties": {**WIDE["properties"], "pw": {"type": "string", "minLength": 12}}}
NAMES = ["mode", "n", "ratio", "code", "flag", "day", "pw", "api_token", "gone", *(f"f{i}" for i in range(12))]
#: few values, so shapes repeat with new values; long texts with control characters (six bytes of
#: JSON each) and non-ASCII letters test the size fit and the byte count
SCALARS = (st.sampled_from([None, True, False, 0, -1, 3, 4, 12, 0.5, 1.5, -0.0, 3.0, 10**30])
           | st.sampled_from(["", "fast", "fats", "slwo", "ABC", "abc", "2024-02-30", "2024-01-05",
                              "hunter22hunter22", "fsat", "carefull", "\x01" * 120, "é" * 130, "x" * 300, "quote\"and\\slash"]))
CALLS = st.lists(st.dictionaries(st.sampled_from(NAMES), SCALARS, min_size=1, max_size=8), min_size=2, max_size=12)


def _contract(schema: dict[str, Any] = WIDE) -> Contract:
    return Contract(name="wide", version="1.0.0", summary="s", description="d", input_schema=schema,
                    output_schema={"type": "object"}, timeout=Timeout(None))


def _ok(arguments: Any) -> Any:
    return {}


def _fresh(arguments: Any, schema: dict[str, Any] = WIDE) -> Any:
    """The answer of a guard that has seen nothing: its own contract object, as compiled checks
    (and what they keep) are shared by the guards of one contract object."""
    return guard(_contract(schema), _ok)(arguments)


#: the names a run of calls sends (a model tends to send the same ones), then the values of each call:
#: the same places again with new values, so the kept recipes and envelopes are used
RUNS = st.tuples(st.lists(st.sampled_from(NAMES), min_size=1, max_size=6, unique=True),
                 st.lists(st.lists(SCALARS, min_size=6, max_size=6), min_size=2, max_size=8))


#: runs long enough for a signature to be learnt and then followed, with guesses found and missed,
#: integral floats beside fractional ones, and echoes that overflow the size cap late in the run
_LONG_RUNS = [
    (["mode", "n"], [["fats", "1"], ["slwo", "2"], ["fsat", "3"], ["fats", "4"], ["zzzz", "5"], ["slow", "6"],
                     ["carefull", "7"]]),
    (["mode", "code"], [[1.5, 2.5], [0.5, 1.5], [3.0, -0.0], [2.5, 4.5], [1.0, 2.0], [7.5, 0.25]]),
    (["mode", "f0", "f1"], [["fast", "a", "b"], ["fast", "c", "d"], ["fast", "e", "f"], ["fast", "g", "h"],
                            ["fast", "\x01" * 120, "é" * 130], ["fast", "x" * 300, "quote\"and\\slash"]]),
    # a null sent where a value is wrong: shown in its violation, left out of the summary at the top
    (["flag", "mode"], [[False, "fast"], [1, "fast"], [2, "fast"], [None, "fast"], [3, "fast"], [None, "fast"]]),
    (["mode", "flag", *(f"f{i}" for i in range(12))],
     [["fast", True, *([f"{j}"] * 12)] for j in range(5)] + [["fast", True, *(["\x01" * 100] * 12)]]),
]


@settings(max_examples=50, deadline=None)
@given(run=RUNS, schema=st.sampled_from([WIDE, PLAIN]))
@example(run=(["mode", "n"], [["fats", "1", *[None] * 4], ["slwo", "2", *[None] * 4], ["fsat", "3", *[None] * 4]]), schema=WIDE)
@example(run=(["mode", "code"], [[1.5, 2.5, *[None] * 4], [0.5, 1.5, *[None] * 4], [3.0, -0.0, *[None] * 4]]), schema=WIDE)
@example(run=(["mode", "f0", "f1"], [["fast", "a", "b", *[None] * 3], ["fast", "c", "d", *[None] * 3],
                                       ["fast", "\x01" * 120, "é" * 130, *[None] * 3]]), schema=WIDE)
def test_a_warm_guard_answers_every_new_mistake_as_a_fresh_one(run: tuple[list[str], list[list[Any]]],
                                                                schema: dict[str, Any]) -> None:
    names, rows = run
    warm = guard(_contract(schema), _ok)
    for row in rows:
        arguments = dict(zip(names, row))
        assert warm(arguments) == _fresh(arguments, schema), arguments


@pytest.mark.parametrize("schema", [WIDE, PLAIN], ids=["kept-envelopes", "by-signature"])
@pytest.mark.parametrize(("names", "rows"), _LONG_RUNS)
def test_a_call_answered_by_its_signature_is_answered_as_a_fresh_guard_answers_it(
        names: list[str], rows: list[list[Any]], schema: dict[str, Any]) -> None:
    """The same long runs through kept envelopes alone (WIDE marks a field, so no signature is
    learnt) and by signature (PLAIN)."""
    warm = guard(_contract(schema), _ok)
    for row in rows:
        arguments = dict(zip(names, row))
        assert warm(arguments) == _fresh(arguments, schema), arguments


def _counting_explanations(warm: Any) -> list[int]:
    """A one-item list counting the calls of ``warm``'s input check that explain a value."""
    check = warm._compiled.input
    explained = [0]
    original = check.explain

    def counting(*args: Any, **kwargs: Any) -> Any:
        explained[0] += 1
        return original(*args, **kwargs)

    check.explain = counting
    return explained


def test_a_new_value_of_a_known_signature_is_answered_from_its_echoes_alone() -> None:
    """From the fourth call of one signature (places seen, recipe learnt, plan and shape kept), a
    new wrong value is answered by filling in what it echoes: nothing is explained."""
    warm = guard(_contract(PLAIN), _ok)
    explained = _counting_explanations(warm)
    for i in range(20):
        # the guess for "fsat{i}" is found or missed by the same rule every call: always "fast"
        arguments = {"mode": "fsat" if i % 2 else "slwo", "n": str(i), "ratio": 1 + i, "flag": True, "day": i}
        answer = warm(arguments)
        assert answer == _fresh(arguments, PLAIN)
        assert {v["field"]: v["attempted"] for v in answer["error"]["violations"]} == {
            "/n": str(i), "/day": i, "/mode": arguments["mode"], "/ratio": 1 + i}
    assert explained == [3]


def test_the_shortcuts_are_really_taken_and_agree() -> None:
    """A run of new wrong values at known places goes by recipe and by a kept envelope."""
    warm = guard(_contract(), _ok)
    check = warm._compiled.input
    by_recipe = 0
    original = check._recipe

    def counting(*args: Any) -> Any:
        nonlocal by_recipe
        found = original(*args)
        by_recipe += found is not None
        return found

    check._recipe = counting  # type: ignore[method-assign]
    for i in range(20):
        arguments = {"mode": f"fst{i}", "n": str(i), "ratio": 1 + i, "pw": f"short{i}", "flag": True}
        assert warm(arguments) == _fresh(arguments)
    assert by_recipe == 18  # the second call learns the recipe of these places; every later one follows it
    assert warm._shaped_errors._kept  # and the envelope of that shape is a kept one, filled in


def test_a_filled_envelope_too_big_for_the_cap_is_cut_as_the_full_path_cuts_it() -> None:
    warm = guard(_contract(), _ok)
    small, other = ({"mode": "fast", "flag": True} | {f"f{i}": text for i in range(12)} for text in ("x", "y"))
    big = {"mode": "fast", "flag": True} | {f"f{i}": "\x01" * 100 for i in range(12)}  # 600 bytes of JSON each
    for arguments in (small, other, big, small, big):
        answer = warm(arguments)
        assert answer == _fresh(arguments)
    assert answer["error"].get("violations_omitted")  # the big one was cut to fit


def test_calls_with_the_same_errors_but_other_names_missing_are_told_apart() -> None:
    """The same raw errors (one ``required`` at the root, one wrong type) name other missing names
    when the call holds other names: the names are part of what a kept recipe is kept under."""
    warm = guard(_contract(), _ok)
    for arguments in ({"n": "x"}, {"n": "y"}, {"n": "z", "mode": "fast"}, {"n": "w", "flag": True}):
        assert warm(arguments) == _fresh(arguments), arguments


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=40) | st.text(st.characters(max_codepoint=0x7F), max_size=40))
def test_the_byte_count_of_an_echoed_text_is_the_size_checks(text: str) -> None:
    assert _json_size(text) == len(to_json(text))


@given(number=st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.booleans() | st.none())
def test_the_byte_count_of_an_echoed_number_is_the_size_checks(number: Any) -> None:
    assert _json_size(number) == len(to_json(number))


def test_a_signature_naming_a_secret_is_never_answered_from_echoes() -> None:
    """A call that may hold a secret (a field named like one) is searched for it on every call: a
    value sent both as the token and where it is no secret must not be echoed, however often the
    signature came before (the same fields sending different texts)."""
    warm = guard(_contract(PLAIN), _ok)
    for i in range(10):
        secret = f"sk-{i:04d}-a1b2c3d4e5"
        arguments = {"api_token": secret, "mode": secret if i >= 6 else f"qz-{i:04d}-x9w8v7u6t5", "n": str(i)}
        answer = warm(arguments)
        assert answer == _fresh(arguments, PLAIN)
        assert secret not in json.dumps(answer), answer


#: property schemas of flat tools, each with templated keywords; ``False`` refuses the name
_PROPERTY = st.sampled_from([
    {"type": "integer", "minimum": 2, "maximum": 9}, {"type": "string", "minLength": 2, "maxLength": 5},
    {"enum": ["red", "green", "blue", 1, None]}, {"type": "string", "pattern": "^[a-z]+$"},
    {"type": "number", "exclusiveMaximum": 1.5, "multipleOf": 0.5}, {"const": "x"},
    {"type": ["string", "null"], "maxLength": 3}, {"type": "boolean"}, {"type": "string", "format": "date"},
    {"type": "string", "enum": ["alpha", "beta", "gamma"]}, False])
_VALUE = st.sampled_from([None, True, False, 0, 1, -7, 3, 25, 0.5, 1.0, 2.5, 1e10, "", "a", "abc", "ABC", "red",
                          "rde", "grean", "alpah", "2024-01-01", "2024-13-01", "x", "xx", "é" * 130, "\x01" * 90,
                          "z" * 300])


@st.composite
def _flat_tools(draw: st.DrawFn) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A flat input schema and a run of calls sending the same names with values drawn anew."""
    names = [f"p{i}" for i in range(draw(st.integers(2, 6)))]
    schema: dict[str, Any] = {"type": "object", "properties": {name: draw(_PROPERTY) for name in names}}
    if draw(st.booleans()):
        schema["additionalProperties"] = False
    if draw(st.booleans()):
        schema["required"] = draw(st.lists(st.sampled_from(names), min_size=1, unique=True))
    sent = draw(st.lists(st.sampled_from([*names, "extra"]), min_size=1, unique=True))
    calls = draw(st.lists(st.fixed_dictionaries({name: _VALUE for name in sent}), min_size=4, max_size=12))
    return schema, calls


@settings(max_examples=40, deadline=None)
@given(tool=_flat_tools())
def test_any_flat_tool_warm_answers_as_fresh(tool: tuple[dict[str, Any], list[dict[str, Any]]]) -> None:
    """Beyond one schema: flat tools of any templated keywords, warm guards (kept envelopes, recipes,
    signatures) against fresh ones (found the top-level null ``attempted`` a kept envelope kept)."""
    schema, calls = tool
    warm = guard(_contract(schema), _ok)
    for arguments in calls:
        assert warm(arguments) == _fresh(arguments, schema), arguments


# -- unknown names drawn anew -------------------------------------------------------------------------
# A model's misspelt name is new call after call ("qeury", then "qurey"): a closed flat tool's
# signature holds a placeholder for each unknown name, and the violation naming it is made anew.

#: names a model sends that a closed tool does not declare: near misses of the declared ones, a
#: name that looks like a secret (its value must then be searched for again), names that need
#: escaping in a pointer or in JSON, long ones the message clips, and one UTF-8 cannot carry
_UNKNOWN = st.one_of(
    st.sampled_from(["moed", "MODE", "n1", "nn", "flga", "code_", "password", "apitoken", "Api_Token", "a/b~c", "line\nbreak",
                     "é" * 40, "x" * 300, "tab\there", "quote\"name", "\ud800"]),
    st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), min_size=1, max_size=12))
#: values few enough that one sent under an unknown secret-looking name comes back in another field
_SHARED = st.sampled_from(["fats", "slwo", "hunter22hunter22", "ABC", "abc", "1", "2", 1, 2, 1.5, None, True])


@st.composite
def _calls_with_new_names(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A run of calls to PLAIN sending the same declared names and one or two unknown names at the
    same places, the unknown names drawn anew for each call."""
    declared = draw(st.lists(st.sampled_from(["mode", "n", "ratio", "code", "flag", "day", "f0"]),
                             max_size=4, unique=True))
    places = draw(st.lists(st.integers(0, len(declared)), min_size=1, max_size=2))
    calls = []
    for _ in range(draw(st.integers(4, 10))):
        names: list[str | None] = list(declared)
        for place in sorted(places, reverse=True):
            names.insert(place, None)
        calls.append({draw(_UNKNOWN) if name is None else name: draw(_SHARED) for name in names})
    return calls


@settings(max_examples=60, deadline=None)
@given(calls=_calls_with_new_names())
@example(calls=[{"moed": "x", "code": "abcdefgh"}, {"meod": "x", "code": "bcdefghi"}, {"mdoe": "x", "code": "cdefghij"},
                {"moed": "x", "code": "defghijk"}, {"apitoken": "hunter22hunter22", "code": "hunter22hunter22"}])
@example(calls=[{"qq": 1, "n": "1"}, {"rr": 1, "n": "2"}, {"ss": 1, "n": "3"}, {"x" * 300: 1, "n": "4"},
                {"line\nbreak": 1, "n": "5"}, {"a/b~c": 1, "n": "6"}])
def test_new_unknown_names_are_answered_as_a_fresh_guard_answers_them(calls: list[dict[str, Any]]) -> None:
    """The field, message, guess and summary of a violation made anew are the call's own (the top
    of the envelope too), a secret-looking unknown name is never a placeholder (its value is
    searched for elsewhere in the call), and a name the envelope cannot carry goes the full way."""
    warm = guard(_contract(PLAIN), _ok)
    for arguments in calls:
        assert warm(arguments) == _fresh(arguments, PLAIN), arguments


def test_a_new_unknown_name_of_a_known_signature_is_answered_without_explaining() -> None:
    """The bench's four-problem mistake (a misspelt name, so a required one missing, a wrong type, an
    enum miss), every value and the unknown name new each call: from the fourth call on, nothing
    is explained."""
    warm = guard(_contract(PLAIN), _ok)
    explained = _counting_explanations(warm)
    for i in range(20):
        arguments = {f"moed{i}": "fast", "n": str(i), "code": f"{i:02d}", "flag": True}
        answer = warm(arguments)
        assert answer == _fresh(arguments, PLAIN)
        error = answer["error"]
        assert error["field"] == f"/moed{i}" and f"'moed{i}'" in error["message"]
        assert error["violations"][0]["did_you_mean"] == "mode"
    assert explained == [3]


# -- signatures read member by member ---------------------------------------------------------------
# A flat root whose members' schemas hold only rules a scalar fails one by one reads a call's
# signature with a validator per rule (SchemaCheck._member_failures), not evaluate(); the first plan
# kept checks that the rules failed are evaluate()'s, and turns the reading off where they are not.

#: member schemas: every scalar rule, annotations and x- keys beside them, rules of arrays and objects
#: a scalar skips, a marked secret, ``true`` and ``false``
_MEMBER_SCHEMAS = st.sampled_from([
    {"type": "integer", "minimum": 2, "maximum": 9, "description": "how many"},
    {"type": "string", "minLength": 2, "maxLength": 5, "examples": ["ab"]},
    {"enum": ["red", "green", "blue", 1, None], "title": "colour"},
    {"type": "string", "pattern": "^[a-z]+$", "x-note": "lower case"},
    {"type": "number", "exclusiveMaximum": 1.5, "exclusiveMinimum": -1, "multipleOf": 0.5},
    {"const": "x"}, {"type": ["string", "null"], "maxLength": 3}, {"type": "string", "format": "date"},
    {"type": "string", "writeOnly": True, "minLength": 12},
    {"type": "array", "items": {"type": "string"}, "minItems": 1, "uniqueItems": True},
    {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
    {"description": "anything"}, True, False,
    {"type": "string", "enum": ["alpha", "beta", "gamma"], "default": "alpha"}])
#: declared names: plain, secret by name, non-ASCII, needing escapes in a pointer, longer than a message shows
_MEMBER_NAMES = st.sampled_from(["mode", "count", "api_key", "password", "名前", "é" * 3, "a/b~c", "x" * 70,
                                 "order", "limit", "query"])


@st.composite
def _member_tools(draw: st.DrawFn) -> tuple[dict[str, Any], bool, list[dict[str, Any]]]:
    """A flat tool read member by member (open or closed, names required or not, formats asserted or
    not) and a run of calls sending the same declared names, with new values and unknown names at the
    same places drawn anew."""
    names = draw(st.lists(_MEMBER_NAMES, min_size=1, max_size=6, unique=True))
    schema: dict[str, Any] = {"type": "object", "properties": {name: draw(_MEMBER_SCHEMAS) for name in names}}
    if draw(st.booleans()):
        schema["additionalProperties"] = False
    if draw(st.booleans()):
        schema["required"] = draw(st.lists(st.sampled_from(names), min_size=1, unique=True))
    sent = draw(st.lists(st.sampled_from(names), unique=True))
    places = draw(st.lists(st.integers(0, len(sent)), max_size=2))
    calls = []
    for _ in range(draw(st.integers(4, 10))):
        slots: list[str | None] = list(sent)
        for place in sorted(places, reverse=True):
            slots.insert(place, None)
        calls.append({draw(_UNKNOWN) if name is None else name: draw(_VALUE | _SHARED) for name in slots})
    return schema, draw(st.booleans()), calls


@settings(max_examples=80, deadline=None)
@given(tool=_member_tools())
@example(tool=({"type": "object", "additionalProperties": False, "required": ["query", "limit"], "properties": {
    "query": {"type": "string", "minLength": 1}, "limit": {"type": "integer", "minimum": 1, "maximum": 100},
    "order": {"enum": ["newest", "oldest"]}}}, False,
    [{f"qeury{i}": "q", "limit": str(i), "order": f"random{i}"} for i in range(6)]))
def test_a_signature_read_member_by_member_answers_as_a_fresh_guard(
        tool: tuple[dict[str, Any], bool, list[dict[str, Any]]]) -> None:
    """Warm guards (signatures read rule by rule, plans, kept envelopes) answer every call as fresh
    ones do, and the rules never disagree with evaluate(): the reading stays on for every such tool
    (None only once turned off)."""
    schema, formats, calls = tool
    warm = guard(_contract(schema), _ok, formats=formats)
    for arguments in calls:
        assert warm(arguments) == guard(_contract(schema), _ok, formats=formats)(arguments), arguments
    assert warm._compiled.input._member_rules is not None


class _CountingValidator:
    """A jsonschema-rs validator that counts the calls of evaluate()."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.evaluated = inner, 0

    def evaluate(self, value: Any) -> Any:
        self.evaluated += 1
        return self.inner.evaluate(value)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def test_a_known_signature_is_read_without_evaluate() -> None:
    """The bench's four-problem mistake, new names and values each call: once its plan is kept,
    nothing asks evaluate() for the call's errors (it did on every call)."""
    warm = guard(_contract(PLAIN), _ok)
    check = warm._compiled.input
    check._rs = counting = _CountingValidator(check._rs)
    for i in range(20):
        arguments = {f"moed{i}": "fast", "n": str(i), "code": f"{i:02d}", "flag": True}
        assert warm(arguments) == _fresh(arguments, PLAIN)
    assert counting.evaluated == 3  # the three calls that learn the places, the recipe and the plan


def test_rules_that_disagree_with_evaluate_turn_the_member_reading_off() -> None:
    """Were a rule read alone to fail where evaluate() does not (here a rule made to refuse every
    value), no plan is kept under the signature it read and evaluate() reads every later call."""
    warm = guard(_contract(PLAIN), _ok)
    check = warm._compiled.input
    check._member_rules = check._compile_member_rules()  # (else compiled at the first bad call)
    whole, each = check._member_rules["n"]
    check._member_rules["n"] = (whole, (*each, ("maximum", lambda member: False)))
    for i in range(8):
        arguments = {f"moed{i}": "fast", "n": str(i), "code": f"{i:02d}", "flag": True}
        assert warm(arguments) == _fresh(arguments, PLAIN)
    assert check._member_rules is None
    assert all(signature[2:3] != (schema_check._BY_MEMBER,) for signature in check._plans)


def test_member_rules_are_compiled_at_the_first_bad_call_only() -> None:
    """A validator per rule of every declared name is built when a call is first refused, not when the
    tool is made (a tool of thousands of names that is never misused pays nothing)."""
    warm = guard(_contract(PLAIN), _ok)
    check = warm._compiled.input
    assert warm({"mode": "fast", "flag": True})["status"] == "ok"
    assert check._member_rules is schema_check._UNREAD
    assert warm({"mode": "fats", "flag": True})["status"] == "error"
    assert set(check._member_rules) == set(PLAIN["properties"])


def test_an_envelope_made_anew_is_measured_byte_for_byte_as_the_full_build_measures_it() -> None:
    """Calls naming a new unknown name, whose echoed values grow a byte a call, then whose unknown name
    (plain, or holding a tab the summary at the top respaces) grows a letter a call, across the
    error's 4,000-byte cap: each is answered as a fresh guard answers
    it (cut to fit past the cap), though a kept envelope's size is no longer measured whole but from
    the sizes of the parts that vary."""
    for width, calls in ((24, [(f"moe{k:03d}", "a" * k) for k in range(100)]),
                         (23, [("zz" + "q" * k, "a" * 40) for k in range(50)]),
                         (23, [("z\tz" + "q" * k, "a" * 40) for k in range(50)])):  # (a tab: respaced at the top)
        warm = guard(_contract(PLAIN), _ok)
        cut = 0
        for unknown, text in calls:
            arguments = {unknown: "fast", **{f"f{i}": "\x01" * width for i in range(11)}, "f11": text,
                         "flag": True, "mode": "fast", "n": "é"}
            answer = warm(arguments)
            assert answer == _fresh(arguments, PLAIN), arguments
            cut += "violations_omitted" in answer["error"]
        assert 3 < cut < len(calls) - 3  # both sides of the cap were answered by a kept envelope
