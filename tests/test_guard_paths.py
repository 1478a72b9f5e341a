"""One path for every call: observers never change an envelope, the call log follows its level, and
the two error readers (and the memo of explanations) explain alike.

(The plan's envelopes against the reference semantics: tests/test_guard_reference.py.)
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
from typing import Any

import pydantic
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from contractgen.runtime import (
    Contract,
    EmptyResult,
    ErrorSpec,
    GuardedTool,
    RetryPolicy,
    Timeout,
    ToolError,
    guard,
)
from contractgen.runtime.schema_check import SchemaCheck

FLAT_INPUT = {"type": "object", "additionalProperties": False, "required": ["mode"],
              "properties": {"mode": {"type": "string"}, "n": {"type": "integer", "minimum": 0},
                             "tag": {"enum": ["a", "b"]}}}
OPEN_INPUT = {**FLAT_INPUT, "additionalProperties": True}
RECURSIVE_INPUT = {**FLAT_INPUT, "properties": {**FLAT_INPUT["properties"], "tree": {"$ref": "#/$defs/tree"}},
                   "$defs": {"tree": {"type": "array", "items": {"$ref": "#/$defs/tree"}}}}
OUTPUT = {"type": "object", "required": ["hits"], "additionalProperties": False,
          "properties": {"hits": {"type": "array", "items": {"type": "string"}}}}
FLAKY = ErrorSpec("Flaky", "UNAVAILABLE", "The backend is flaky. Try again shortly.", retry_after=1.0)
MISSING_THING = ErrorSpec("MissingThing", "NOT_FOUND", "No such thing.")


class Hits(pydantic.BaseModel):
    hits: list[str]


def contract(input_schema: dict[str, Any], *, empty: bool = False) -> Contract:
    return Contract(name="probe", version="2.0.0", summary="s", description="d", input_schema=input_schema,
                    output_schema=OUTPUT, errors=(FLAKY, MISSING_THING), timeout=Timeout(seconds=None),
                    retry=RetryPolicy(failure_budget=3),
                    empty_result=EmptyResult("/hits", "Nothing matched.") if empty else None)


async def _later(value: Any) -> Any:
    return value


def implementation(args: Any) -> Any:
    """What the call asks for in ``mode``: every kind of result and failure an implementation has."""
    mode = args["mode"]
    if mode == "model":
        return Hits(hits=["m"])
    if mode == "empty":
        return {"hits": []}
    if mode == "wrong_output":
        return {"hits": "not a list"}
    if mode == "nan":
        return {"hits": [], "score": math.nan}
    if mode == "flaky":
        raise ToolError.for_spec(FLAKY)()
    if mode == "missing":
        raise ToolError.for_spec(MISSING_THING)()
    if mode == "crash":
        raise ValueError("boom")
    if mode == "cancel":
        raise asyncio.CancelledError
    if mode == "coroutine":
        return _later({"hits": ["c"]})
    return {"hits": [mode]}


MODES = ["ok", "model", "empty", "wrong_output", "nan", "flaky", "missing", "crash", "cancel", "coroutine"]
# success and a counted failure most often: their interleaving is what the budget must get right
MODE = st.sampled_from(["ok", "flaky"]) | st.sampled_from(MODES)
VALID = st.fixed_dictionaries({"mode": MODE}, optional={"n": st.integers(0, 3), "tag": st.sampled_from(["a", "b"])})
ODD = st.fixed_dictionaries({"mode": MODE}, optional={"n": st.integers(-2, 3) | st.text(max_size=2),
                                                      "tag": st.sampled_from(["a", "b", "c"]),
                                                      "nmae": st.just(1), "mdoe": st.just("x")})
CALLS = st.lists(st.tuples(VALID | ODD, st.sampled_from(["default", "s1"])), min_size=1, max_size=10)


def _comparable(envelope: Any) -> Any:
    """The envelope with its random ref (in ``ref`` and in the message) made constant."""
    error = envelope.get("error") if isinstance(envelope, dict) else None
    if not isinstance(error, dict) or not error.get("ref"):
        return envelope
    return {**envelope, "error": {**error, "ref": "<ref>", "message": error["message"].replace(error["ref"], "<ref>")}}


@pytest.mark.parametrize(("schema", "empty"), [(FLAT_INPUT, False), (OPEN_INPUT, False), (RECURSIVE_INPUT, False),
                                             (FLAT_INPUT, True)], ids=["flat", "open", "recursive", "empty-rule"])
@settings(max_examples=150, deadline=None)
@given(calls=CALLS)
@example(calls=[({"mode": "flaky"}, "s1"), ({"mode": "ok"}, "s1"), ({"mode": "flaky"}, "s1")])
def test_observed_and_unobserved_calls_agree_over_a_sequence_of_calls(
        schema: dict[str, Any], empty: bool, calls: list[tuple[dict[str, Any], str]]) -> None:
    """An observer (``on_call``) sees the call; it never changes the envelope or the budget."""
    the_contract = contract(schema, empty=empty)
    plain = guard(the_contract, implementation)
    records: list[Any] = []
    observed = guard(the_contract, implementation, on_call=records.append)
    for arguments, session in calls:
        one, other = plain(arguments, session=session), observed(arguments, session=session)
        assert _comparable(one) == _comparable(other), (arguments, session)
    assert len(records) == len(calls)


def test_failures_count_per_session_and_a_success_resets_them() -> None:
    tool = guard(contract(FLAT_INPUT), implementation)
    budgets = [tool({"mode": "flaky"}, session="s")["error"]["budget"]["consecutive_failures"] for _ in range(2)]
    assert budgets == [1, 2]
    assert tool({"mode": "flaky"}, session="t")["error"]["budget"]["consecutive_failures"] == 1
    assert tool({"mode": "ok"}, session="s")["status"] == "ok"
    assert tool({"mode": "flaky"}, session="s")["error"]["budget"]["consecutive_failures"] == 1


def test_the_call_log_sees_every_call_however_its_level_is_set(caplog: pytest.LogCaptureFixture) -> None:
    """The call log is asked on every call: a level set on the logger, on a parent or by
    ``logging.disable`` after earlier calls takes effect at the next call."""
    tool = guard(contract(FLAT_INPUT), implementation)

    def logged_calls() -> int:
        return sum(record.name == "contractgen.runtime.calls" for record in caplog.records)
    parent = logging.getLogger("contractgen")
    for _ in range(2):
        tool({"mode": "ok"})
    assert logged_calls() == 0
    with caplog.at_level(logging.DEBUG, logger="contractgen.runtime.calls"):
        for _ in range(3):
            assert tool({"mode": "ok"})["status"] == "ok"
        assert logged_calls() == 3
    caplog.clear()
    saved = parent.level
    caplog.handler.setLevel(logging.DEBUG)
    try:
        tool({"mode": "ok"})
        assert logged_calls() == 0
        parent.setLevel(logging.DEBUG)  # a parent's level, set after calls were answered
        tool({"mode": "ok"})
        tool({"mode": "ok"})
        assert logged_calls() == 2
        logging.disable(logging.DEBUG)  # the process-wide switch turns the log off again
        tool({"mode": "ok"})
        assert logged_calls() == 2
    finally:
        logging.disable(logging.NOTSET)
        parent.setLevel(saved)
        caplog.handler.setLevel(logging.NOTSET)


def test_a_subclass_that_writes_its_own_call_keeps_it() -> None:
    """A subclass's own ``__call__`` (a wrapper that logs, say) runs on every call."""
    seen: list[Any] = []

    class Logged(GuardedTool):  # type: ignore[type-arg]
        def __call__(self, arguments: Any, *rest: Any, **options: Any) -> Any:
            seen.append(arguments)
            return super().__call__(arguments, *rest, **options)

    tool = Logged(contract(FLAT_INPUT), implementation)
    assert tool({"mode": "ok"})["status"] == "ok" and seen == [{"mode": "ok"}]
    assert type(tool.with_implementation(implementation)) is Logged


def test_interrupts_are_never_swallowed() -> None:
    def stop(args: Any) -> Any:
        raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        guard(contract(FLAT_INPUT), stop)({"mode": "ok"})


def test_a_tools_own_system_exit_is_its_failure() -> None:
    def exits(args: Any) -> Any:
        raise SystemExit(2)
    assert guard(contract(FLAT_INPUT), exits)({"mode": "ok"})["error"]["code"] == "INTERNAL"


# -- the two error readers: evaluate() on flat schemas, iter_errors() on the rest ---------------

FLAT_SCHEMAS = [
    {"type": "object", "additionalProperties": False, "required": ["a", "c/d"],
     "properties": {"a": {"$ref": "#/$defs/word"}, "c/d": {"type": "integer", "minimum": 0, "multipleOf": 2},
                    "list": {"type": "array", "items": {"type": "string", "maxLength": 2}, "maxItems": 3,
                             "uniqueItems": True},
                    "pair": {"type": "array", "prefixItems": [{"type": "integer"}, False], "minItems": 1},
                    "t": {"type": ["string", "null"], "enum": ["x", "yy", None]}, "gone": False,
                    "api_key": {"type": "string", "writeOnly": True, "minLength": 8},
                    "obj": {"type": "object", "properties": {"pin": {"type": "string", "x-sensitive": True,
                                                                     "pattern": "^[0-9]{4}$"}},
                            "required": ["pin"], "additionalProperties": {"type": "integer"},
                            "maxProperties": 2}},
     "$defs": {"word": {"type": "string", "minLength": 2, "const": "ok"}}},
    {"type": "array", "items": False},
    {"type": "object", "properties": {"additionalProperties": False, "properties": {"type": "number"}}},
]
# no empty key: jsonschema-rs iter_errors() drops it from instance paths (``{"obj": {"": 1}}`` is
# reported at /obj), which evaluate() gets right; test_an_empty_key_is_located_exactly shows it
KEYS = st.sampled_from(["a", "c/d", "list", "pair", "t", "gone", "api_key", "obj", "pin", "why", "additionalProperties",
                        "properties", "zz", "~q"])
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 5) | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from([0, 0.0, -0.0, False, 1, 1.0, True])  # equal as keys, each explained as sent
    | st.sampled_from(["", "x", "ok", "yy", "Yy", "xy", "1234", "secret-value", "a/b"]),  # near misses of the enum too
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4), max_leaves=12)


def _corpus_input_schemas() -> list[Any]:
    from conftest import CORPUS

    found = []
    for path in sorted((CORPUS / "mcp_tools").glob("*/*.json")) if CORPUS.is_dir() else []:
        schema = json.loads(path.read_text("utf-8")).get("inputSchema")
        if isinstance(schema, dict):
            found.append(schema)
    return found


def _explanations(check: SchemaCheck, value: Any) -> str:
    """The explanation as its JSON text, which tells apart what Python equality does not (-0.0 and
    0.0, 1 and 1.0 and true) and what the caller will be sent."""
    violations, omitted = check.explain(value)
    return json.dumps([[v.as_dict() for v in violations], omitted], default=repr)


@settings(max_examples=300, deadline=None)
@given(which=st.integers(0, len(FLAT_SCHEMAS) - 1), value=JSON_VALUES)
def test_evaluate_and_iter_errors_explain_alike(which: int, value: Any) -> None:
    schema = FLAT_SCHEMAS[which]
    flat, grouped = SchemaCheck(schema), SchemaCheck(schema)
    assert flat._flat
    grouped._flat = False  # the iter_errors() reader
    assert _explanations(flat, value) == _explanations(grouped, value)


def test_evaluate_and_iter_errors_explain_alike_on_real_tool_schemas() -> None:
    schemas = _corpus_input_schemas()
    if not schemas:
        pytest.skip("shared corpus not found")
    flat_count = 0
    for schema in schemas:
        flat, grouped = SchemaCheck(schema), SchemaCheck(schema)
        if not flat._flat:
            continue
        flat_count += 1
        grouped._flat = False
        names = list(schema.get("properties", {}))
        # every property sent with each wrong shape, plus an unknown key and a near miss of a name
        for wrong in (None, 7, "text", [1, "x"], {"k": 1}, True, 1.5):
            value = dict.fromkeys(names, wrong) | {"zz_unknown": 1}
            if names:
                value[names[0][:-1] or "x"] = wrong
            assert _explanations(flat, value) == _explanations(grouped, value), schema
        assert _explanations(flat, {}) == _explanations(grouped, {})
    assert flat_count >= len(schemas) // 2  # most real tool inputs are flat: the fast reader serves them


def test_a_schema_with_combinators_keeps_the_grouping_reader() -> None:
    assert not SchemaCheck({"properties": {"a": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}})._flat
    assert not SchemaCheck({"properties": {"a": {"$ref": "https://example.com/s.json"}}})._flat
    assert not SchemaCheck({"dependentRequired": {"a": ["b"]}})._flat  # evaluate() locates it per name
    assert SchemaCheck({"properties": {"a": {"type": "string", "x-anything": {"anyOf": []}}}})._flat


@settings(max_examples=150, deadline=None)
@given(which=st.integers(0, len(FLAT_SCHEMAS) - 1), values=st.lists(JSON_VALUES, min_size=2, max_size=6))
def test_a_kept_explanation_is_the_one_computed_afresh(which: int, values: list[Any]) -> None:
    """Explanations kept from earlier calls never stand in for a different mistake."""
    warm = SchemaCheck(FLAT_SCHEMAS[which])
    for value in values + values[::-1]:
        assert _explanations(warm, value) == _explanations(SchemaCheck(FLAT_SCHEMAS[which]), value)


def test_a_new_value_at_a_known_place_is_explained_as_by_a_fresh_check() -> None:
    """Wording made for one wrong value is kept for its place; the next values there (other text, near
    misses of the enum, other types, secrets) still get exactly what a fresh check says about them."""
    warm = SchemaCheck(FLAT_SCHEMAS[0])
    for sent in ["zz", "Yy", "xy", "X", "yy ", 7, 7.5, -0.0, True, None, "secret-value", "x" * 300]:
        for value in ({"a": "ok", "c/d": 2, "t": sent}, {"a": sent, "c/d": sent}, {"a": "ok", "c/d": 2, "api_key": sent},
                      {"a": "ok", "c/d": 2, "obj": {"pin": sent, "n": sent}}, {"a": "ok", "c/d": 2, "list": [sent]},
                      {"c/d": 2, "zz": sent}):
            assert _explanations(warm, value) == _explanations(SchemaCheck(FLAT_SCHEMAS[0]), value), value


@pytest.mark.parametrize("which", range(len(FLAT_SCHEMAS)))
def test_values_python_calls_equal_are_never_explained_alike(which: int) -> None:
    """0, 0.0, -0.0 and False are one dict key (and 1, 1.0 and True another), yet each is echoed as
    sent: a warm check must not answer one with the other's explanation, nor reorder the names."""
    warm = SchemaCheck(FLAT_SCHEMAS[which])
    for name in ("t", "c/d", "zz", "obj"):
        for equals in ([0, 0.0, -0.0, False], [1, 1.0, True]):
            for member in equals + equals[::-1]:
                value = {name: member, "a": 1}
                assert _explanations(warm, value) == _explanations(SchemaCheck(FLAT_SCHEMAS[which]), value)
    for value in ({"zz": 1, "yy": 2}, {"yy": 2, "zz": 1}):
        assert _explanations(warm, value) == _explanations(SchemaCheck(FLAT_SCHEMAS[which]), value)


SECRET_INPUT = {"type": "object", "additionalProperties": False, "required": ["mode"], "properties": {
    "mode": {"type": "string"}, "pw": {"type": "string", "writeOnly": True},
    "note": {"type": "string", "maxLength": 3}, "tag": {"enum": ["a", "b"]}}}
#: the same with nothing marked: only the names say what is secret (``pw`` a plain string)
NAMED_SECRET_INPUT = {**SECRET_INPUT, "properties": {**SECRET_INPUT["properties"], "pw": {"type": "string"}}}
#: few texts, so that one call's secret is another call's (or the same call's) plain value
TEXTS = st.sampled_from(["zzzzz", "hunter22", "hunter2", "abcd", "1234", "x"])
SECRET_CALLS = st.lists(st.fixed_dictionaries({"mode": st.just("ok")}, optional={
    "pw": TEXTS, "note": TEXTS, "tag": TEXTS, "api_key": TEXTS,
    "extra": st.dictionaries(TEXTS, TEXTS, max_size=2)}), min_size=2, max_size=8)


@pytest.mark.parametrize("marked", [True, False], ids=["marked", "by-name"])
@settings(max_examples=100, deadline=None)
@given(calls=SECRET_CALLS)
@example(calls=[{"mode": "ok", "pw": "abcd", "note": "zzzzz"}, {"mode": "ok", "pw": "zzzzz", "note": "zzzzz"}])
def test_a_bad_call_is_answered_as_by_a_fresh_guard_whatever_came_before(marked: bool, calls: list[dict[str, Any]]) -> None:
    """Explanations and envelopes kept from earlier calls never stand in for a call whose secrets
    differ: the same mistake made with the password another call sent as a plain note must not
    echo it (a kept envelope, scrubbed for the first call's secrets, did). The secret is marked
    ``writeOnly``, or only named like one (``password``; ``api_key`` is undeclared either way)."""
    the_contract = contract(SECRET_INPUT if marked else NAMED_SECRET_INPUT)
    warm = guard(the_contract, implementation)
    for call in calls:
        arguments = {k: v for k, v in call.items() if k != "extra"} | call.get("extra", {})
        if not marked and "pw" in arguments:
            arguments["password"] = arguments.pop("pw")
        answer = json.dumps(warm(arguments), sort_keys=True)
        # a contract object of its own: the guards of one share its compiled checks and what they keep
        fresh = guard(contract(SECRET_INPUT if marked else NAMED_SECRET_INPUT), implementation)
        assert answer == json.dumps(fresh(arguments), sort_keys=True), arguments
        for name in ("pw", "password", "api_key"):
            secret = arguments.get(name)
            if isinstance(secret, str) and len(secret) >= 4:
                assert secret.lower() not in answer.lower(), (arguments, answer)


def test_a_repeated_mistake_gets_an_equal_envelope_the_caller_may_change() -> None:
    tool = guard(contract(FLAT_INPUT), implementation)
    bad = {"mode": 3, "n": -1, "tag": "c", "nmae": {"deep": [1]}}
    first = tool(bad)
    expected = json.loads(json.dumps(first))
    first["error"]["violations"][0]["message"] = "changed"
    first["error"]["violations"].clear()
    first["error"]["message"] = "changed"
    again = tool(bad)
    assert again == expected and again is not first
    assert again["error"]["violations"] and again["error"]["code"] == "INVALID_ARGUMENT"


def test_an_empty_key_is_located_exactly() -> None:
    check = SchemaCheck({"type": "object", "properties": {"obj": {"additionalProperties": {"type": "integer"}}}})
    assert check._flat
    violations, _ = check.explain({"obj": {"": "text"}})
    assert [(v.field, v.constraint, v.attempted) for v in violations] == [("/obj/", "type", "text")]


def test_the_plan_names_only_the_stages_a_tool_needs() -> None:
    plain = guard(contract(FLAT_INPUT), implementation)
    assert plain.plan == ("private copy", "input schema", "run inline", "output schema", "budget")
    ruled = guard(contract(FLAT_INPUT, empty=True), implementation, input_model=None, on_call=lambda r: None)
    assert "empty rule" in ruled.plan and ruled.plan[-1] == "observers"
    timed = guard(Contract(**{**contract(OPEN_INPUT).__dict__, "timeout": Timeout(seconds=5),
                              "retry": RetryPolicy(failure_budget=None)}), implementation)
    assert "run worker under deadline" in timed.plan and "notices" in timed.plan and "budget" not in timed.plan

    async def awaited(args: Any) -> Any:
        return {"hits": []}
    assert "run awaited" in guard(contract(FLAT_INPUT), awaited).plan


@pytest.mark.parametrize("path", ["inline", "deadline", "acall"])
def test_a_defect_of_the_guard_while_answering_a_failure_is_internal_on_every_path(
        path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the tool raised is turned into its envelope by the guard; a defect there (simulated: the
    method that does it raises) must still give an envelope, INTERNAL, on each run stage."""
    def broken() -> Any:
        raise RuntimeError("the tool's own failure")

    async def broken_async() -> Any:
        raise RuntimeError("the tool's own failure")

    seconds = 5 if path == "deadline" else None
    made = contract(FLAT_INPUT)
    made = Contract(**{**made.__dict__, "timeout": Timeout(seconds=seconds)})
    tool = guard(made, (lambda args: broken_async()) if path == "acall" else (lambda args: broken()))

    def defect(exc: BaseException) -> Any:
        raise KeyError("a bug in the guard")

    monkeypatch.setattr(tool, "_from_exception", defect)
    envelope = asyncio.run(tool.acall({"mode": "x"})) if path == "acall" else tool({"mode": "x"})
    assert envelope["status"] == "error" and envelope["error"]["code"] == "INTERNAL", envelope
    assert "bug" not in json.dumps(envelope) and "own failure" not in json.dumps(envelope)
