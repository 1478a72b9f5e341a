"""The output scrub's plan (``secret_positions``, ``scrub._planned_secrets``, ``scrub._unchanged_by``)
gives the output the general reading gives (``secrets_sent`` on the whole call, then its scrubber),
for schemas with marks at fixed paths, under combinators and behind references."""

from __future__ import annotations

import json
from typing import Any
from unittest import mock

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from contractgen.runtime import Contract, RetryPolicy, Timeout, guard
from contractgen.runtime import scrub as scrub_module
from contractgen.runtime.redaction import REDACTED
from contractgen.runtime.scrub import (
    Scrubber,
    SecretsWithheld,
    _planned_secrets,
    _unchanged_by,
    output_scrub,
    secrets_sent,
)
from contractgen.runtime.secret_positions import SecretPositions

NAMES = ["a", "b", "note", "card", "pin_code", "password", "0", "items", "otp"]
TEXTS = ["hunter22hunter", "s3cr3t-value", "ordinary", "123", "4242424242424242", "ab", "ça va bien",
         "tok en with  spaces", "İstanbul!", REDACTED, "…", "dGVzdA==", "x" * 40]

leaves = st.sampled_from([
    {"type": "string"}, {"type": "integer"}, {}, {"type": "string", "writeOnly": True},
    {"x-sensitive": True}, {"type": "array", "items": {"type": "string", "writeOnly": True}},
    {"$ref": "#/$defs/secret"}, {"$ref": "#/$defs/holder"}, {"type": ["string", "object"]},
])


def _extend(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    objects = st.builds(
        lambda props, closed, extra: {"type": "object", "properties": props,
                                      **({"additionalProperties": False} if closed else {}),
                                      **({"additionalProperties": extra} if extra is not None and not closed else {})},
        st.dictionaries(st.sampled_from(NAMES), children, min_size=1, max_size=4), st.booleans(),
        st.none() | children)
    arrays = st.builds(lambda items: {"type": "array", "items": items}, children)
    combined = st.builds(lambda key, branches: {key: branches}, st.sampled_from(["anyOf", "allOf", "oneOf"]),
                         st.lists(children, min_size=1, max_size=3))
    return objects | arrays | combined


schemas = st.builds(
    lambda body, secret: {**body, "$defs": {
        "secret": secret,
        "holder": {"type": "object", "additionalProperties": False,
                   "properties": {"pin": {"type": "string", "x-sensitive": True}, "label": {"type": "string"}}}}},
    st.recursive(leaves, _extend, max_leaves=8).filter(lambda s: isinstance(s, dict)),
    st.sampled_from([{"type": "string", "writeOnly": True}, {"type": "string"}]))


def _instance(data: st.DataObject, schema: Any, depth: int = 0) -> Any:
    """A value following ``schema`` most of the time, and now and then one that does not."""
    if depth > 4 or not isinstance(schema, dict) or data.draw(st.integers(0, 9)) == 0:
        return data.draw(st.sampled_from(TEXTS) | st.integers(-5, 10**6) | st.none()
                         | st.dictionaries(st.sampled_from(NAMES), st.sampled_from(TEXTS), max_size=2))
    if "$ref" in schema:
        return _instance(data, {"secret": {"type": "string"}, "holder": {
            "type": "object", "properties": {"pin": {}, "label": {}}}}[schema["$ref"].rpartition("/")[2]], depth + 1)
    for key in ("anyOf", "allOf", "oneOf"):
        if key in schema:
            return _instance(data, data.draw(st.sampled_from(schema[key])), depth + 1)
    if "properties" in schema:
        names = data.draw(st.lists(st.sampled_from(list(schema["properties"])), unique=True))
        value = {name: _instance(data, schema["properties"][name], depth + 1) for name in names}
        if data.draw(st.integers(0, 5)) == 0:
            value[data.draw(st.sampled_from(NAMES))] = data.draw(st.sampled_from(TEXTS))
        return value
    if "items" in schema:
        return [_instance(data, schema["items"], depth + 1) for _ in range(data.draw(st.integers(0, 3)))]
    return data.draw(st.sampled_from(TEXTS) | st.integers(100, 10**5))


def _texts_of(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [*value, *(t for member in value.values() for t in _texts_of(member))]
    if isinstance(value, list):
        return [t for member in value for t in _texts_of(member)]
    return [] if value is None or isinstance(value, bool) else [repr(value)]


def _output(data: st.DataObject, arguments: Any) -> Any:
    """A result that quotes the call's texts, in the spellings a tool may give them, or short texts."""
    sent = _texts_of(arguments) or ["none"]
    quoted = st.builds(lambda text, how: how(text), st.sampled_from(sent), st.sampled_from([
        lambda t: t, str.upper, lambda t: f"echo: {t}!", lambda t: json.dumps(t), lambda t: t[:10],
        lambda t: t[:3], lambda t: t[:100] + "…"]))
    short = st.text(max_size=3)
    return data.draw(st.dictionaries(short, quoted | short, max_size=4) | st.lists(quoted | short, max_size=4))


def _general(schema: Any, arguments: Any, output: Any) -> Any:
    """The reference: the whole call read by ``secrets_sent``, its scrubber over the whole output."""
    found = secrets_sent(arguments, schema)
    if found.withholds(output):
        return "withheld"
    return found.value(output) if found else output


def _planned(schema: Any, arguments: Any, output: Any) -> Any:
    scrub = output_scrub(schema)
    assume(scrub is not None)  # none for a closed schema that marks nothing: its valid calls send no secret
    try:
        return scrub(arguments, output)
    except SecretsWithheld:
        return "withheld"


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schema=schemas, data=st.data())
def test_the_plan_scrubs_as_the_general_reading_does(schema: dict[str, Any], data: st.DataObject) -> None:
    arguments = _instance(data, schema)
    output = _output(data, arguments)
    assert _planned(schema, arguments, output) == _general(schema, arguments, output)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schema=schemas, data=st.data())
def test_a_planned_call_finds_the_general_readings_secrets(schema: dict[str, Any], data: st.DataObject) -> None:
    """Where the plan reads a call itself, its scrubber looks for what the general one looks for."""
    arguments = _instance(data, schema)
    planned = _planned_secrets(SecretPositions(schema), arguments)
    general = secrets_sent(arguments, schema)
    if planned is None:
        return  # read the general way: the test above covers it
    texts, withhold = planned
    ours = Scrubber(texts, withhold=withhold) if texts else Scrubber(())
    for name in ("_secrets", "_spellings", "_numbers", "_shortest"):
        assert getattr(ours, name) == getattr(general, name), name


@settings(max_examples=400, deadline=None)
@given(secrets=st.lists(st.sampled_from(TEXTS) | st.text(min_size=3, max_size=12), min_size=1, max_size=3),
       output=st.recursive(st.text(max_size=9) | st.integers(),
                           lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=9), c, max_size=3),
                           max_leaves=6))
def test_what_the_length_filter_skips_a_scrubber_leaves_as_it_is(secrets: list[str], output: Any) -> None:
    secrets = [s for s in secrets if len(s) >= 4 or len(s) >= 3 and s.isdigit()]
    if not secrets:
        return
    if _unchanged_by(secrets, output):
        assert Scrubber(secrets).value(output) == output


LOGIN = {"type": "object", "additionalProperties": False, "required": ["user"],
         "properties": {"user": {"type": "string"}, "password": {"type": "string", "writeOnly": True},
                        "profile": {"type": "object", "additionalProperties": False,
                                    "properties": {"pin": {"type": "string", "x-sensitive": True},
                                                   "city": {"type": "string"}}},
                        "keys": {"type": "array", "items": {"$ref": "#/$defs/key"}}},
         "$defs": {"key": {"type": "object", "additionalProperties": False,
                           "properties": {"value": {"type": "string", "writeOnly": True},
                                          "label": {"type": "string"}}}}}


def test_the_plan_reads_a_call_that_follows_its_schema() -> None:
    plan = SecretPositions(LOGIN)
    call = {"user": "ana", "profile": {"pin": "4321", "city": "Lisbon"},
            "keys": [{"value": "k-1234567890", "label": "home"}]}
    assert sorted(plan(call)) == ["4321", "k-1234567890"]
    assert plan({"user": "ana", "profile": {"city": "Lisbon"}}) == []
    # shapes the schema does not describe beside a secret are left to the general reading
    assert plan({"user": "ana", "profile": "pin 4321"}) is None
    assert plan({"user": "ana", "profile": {"pin": "4321", "zip": "1000"}}) is None
    assert plan({"user": "ana", "keys": ({"value": "k-1"},)}) is None


def test_an_unmarked_schema_reads_names_alone() -> None:
    schema = {"type": "object", "properties": {"q": {"type": "string"}, "filters": {"$ref": "#/$defs/f"}},
              "$defs": {"f": {"type": "object", "properties": {"kinds": {"type": "array"}}}}}
    plan = SecretPositions(schema)
    assert plan({"q": "x", "filters": {"kinds": ["doc"]}}) == []
    assert plan({"q": "x", "filters": {"api_key": "abcd1234"}}) is None  # a name to judge


def test_a_guarded_tool_scrubs_what_the_plan_finds() -> None:
    contract = Contract(name="login", version="1.0.0", summary="s", description="d", input_schema=LOGIN,
                        output_schema={"type": "object"}, timeout=Timeout(None), retry=RetryPolicy(failure_budget=2))
    tool = guard(contract, lambda args: {"msg": f"logged in with {args['keys'][0]['value'].upper()} in "
                                                f"{args['profile']['city']}", "ok": "yes"})
    envelope = tool({"user": "ana", "profile": {"pin": "4321", "city": "Lisbon"},
                     "keys": [{"value": "k-1234567890", "label": "home"}]})
    assert envelope["status"] == "ok", envelope
    assert envelope["output"] == {"msg": f"logged in with {REDACTED} in Lisbon", "ok": "yes"}


def test_a_closed_schema_behind_references_pays_for_no_scrub() -> None:
    defs = {"f": {"type": "object", "additionalProperties": False, "properties": {"kind": {"type": "string"}}}}
    closed = {"type": "object", "additionalProperties": False, "$defs": defs,
              "properties": {"q": {"type": "string"}, "f": {"$ref": "#/$defs/f"}}}
    assert output_scrub(closed) is None
    # each of these may let a secret-looking member in, or read a schema from elsewhere
    for ref in ("#/$defs/missing", "other.json#/f", "#f"):
        assert output_scrub({**closed, "properties": {"f": {"$ref": ref}}}) is not None, ref
    opened = {**defs["f"], "additionalProperties": True}
    assert output_scrub({**closed, "$defs": {"f": opened}}) is not None
    scoped = {**defs["f"], "$id": "https://example.com/f"}
    assert output_scrub({**closed, "$defs": {"f": scoped}}) is not None


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(secrets=st.lists(st.sampled_from(TEXTS) | st.text(min_size=4, max_size=30), min_size=3, max_size=8),
       data=st.data())
def test_a_short_text_looked_through_spelling_by_spelling_is_scrubbed_as_through_the_pattern(
        secrets: list[str], data: st.DataObject) -> None:
    """``Scrubber._present`` narrows many spellings by one pattern on a long text, and reads a short
    one spelling by spelling (``_SCAN_WORK``): both find the same spellings. The pattern is made to
    serve every text here, and must find what reading spelling by spelling finds."""
    scrubber = Scrubber(secrets)
    assume(len(scrubber._lowered) > scrub_module._SCANNED)
    spelt = st.builds(lambda s, how: how(s), st.sampled_from(secrets), st.sampled_from([
        str, str.upper, json.dumps, lambda t: t[:9], lambda t: t[-9:], lambda t: "id " + t + "…"]))
    texts = data.draw(st.lists(spelt | st.text(max_size=20), min_size=1, max_size=5))
    for text in texts:
        low = text.lower()
        with mock.patch.object(scrub_module, "_SCAN_WORK", 0):
            narrowed = scrubber._present(low)
        assert narrowed == frozenset(s for spelling, spellings in scrubber._lowered.items() if spelling in low
                                     for s in spellings)


def test_marks_anything_is_one_walk_where_no_mark_is_written() -> None:
    """``implement()`` asks it of every input and output schema: where no mapping anywhere is marked,
    one walk says so (a looped schema built in code too); where one is, the resolution decides."""
    from contractgen.runtime.schema_resolve import marks_anything

    looped: dict[str, Any] = {"type": "object", "properties": {}}
    looped["properties"]["again"] = looped
    assert marks_anything(looped) is False
    behind_ref = {"type": "object", "properties": {"token": {"$ref": "#/$defs/secret"}},
                  "$defs": {"secret": {"type": "string", "x-sensitive": True}}}
    assert marks_anything(behind_ref) is True
    # a mark written only in data (an example) is no schema's: the walk cannot tell, the resolution can
    assert marks_anything({"type": "object", "examples": [{"writeOnly": True}]}) is False


def test_a_mark_is_found_by_the_texts_quick_answer_and_by_the_walk_alike() -> None:
    """``marks_anything``'s first question: plain JSON whose text names no mark has none; anything
    else (a mapping of another kind, a tuple, a loop) is walked, as before the quick answer."""
    from contractgen.runtime.schema_resolve import _mentions_a_mark

    class Marked(dict):  # type: ignore[type-arg] - answers ``get`` its own way
        def get(self, key: Any, default: Any = None) -> Any:
            return True if key == "x-sensitive" else super().get(key, default)

    assert _mentions_a_mark({"properties": {"pw": {"type": "string", "writeOnly": True}}})
    assert not _mentions_a_mark({"properties": {"writeOnly": {"type": "string"}, "n": {"enum": ["x-sensitive"]}}})
    assert _mentions_a_mark({"properties": {"pw": Marked(type="string")}})
    assert _mentions_a_mark({"anyOf": ({"x-sensitive": True},)})
    looped: dict[str, Any] = {"type": "object", "properties": {}}
    looped["properties"]["self"] = looped
    assert not _mentions_a_mark(looped)
