"""A sensitive value never comes back, whichever way its schema reaches it.

Hypothesis hides a ``writeOnly`` / ``x-sensitive`` string behind each indirection (``$ref`` by pointer,
to an ``$anchor``, deep ``$ref`` chains, ``$dynamicRef``, combinators, ``dependentSchemas``,
``if``/``then``, nesting in objects and arrays) and calls the guard with a marker secret in every wrong
shape (wrong pattern, wrong type, inside a list or an object, echoed as part of a parent that fails).
The marker must not appear in the envelope, the logs, the ``on_call`` record or an MCP result read by
the real SDK client.
"""

from __future__ import annotations

import builtins
import json
import logging
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from mcp_support import error_texts

from contractgen.runtime import Contract, Timeout, ToolError, guard, redaction
from contractgen.runtime.errors import VersionMismatchError
from contractgen.runtime.mcp_server import build_server

MARKER = "SECRETmarker7731"
SECRET = {"type": "string", "pattern": "^[0-9]+$"}


def _hide(kind: str, depth: int, flag: str) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """(schema for the property, $defs to add, keywords to add to the object holding it)."""
    marked = {**SECRET, flag: True}
    if kind == "direct":
        return marked, {}, {}
    if kind == "pointer":
        return {"$ref": "#/$defs/Secret"}, {"Secret": marked}, {}
    if kind == "anchor":
        return {"$ref": "#secret"}, {"Secret": {"$anchor": "secret", **marked}}, {}
    if kind == "chain":
        defs = {f"D{i}": {"$ref": f"#/$defs/D{i + 1}"} for i in range(depth)}
        defs[f"D{depth}"] = marked
        return {"$ref": "#/$defs/D0"}, defs, {}
    if kind == "dynamic":
        return {"$dynamicRef": "#secret"}, {"Secret": {"$dynamicAnchor": "secret", **marked}}, {}
    if kind in ("allOf", "anyOf", "oneOf"):
        return {kind: [marked]}, {}, {}
    if kind == "dependent":  # unmarked where it is declared: the mark arrives with another key
        return dict(SECRET), {}, {"dependentSchemas": {"pw": {"properties": {"pw": marked}}}}
    if kind == "conditional":
        return dict(SECRET), {}, {"if": {"required": ["pw"]}, "then": {"properties": {"pw": marked}}}
    if kind == "escaped-pointer":
        return {"$ref": "#/$defs/a~1b%25"}, {"a/b%": marked}, {}
    if kind == "embedded-resource":  # '#/...' inside a resource with its own $id points into it
        inner = {"$id": "https://contracts.example/inner", "$ref": "#/$defs/Secret", "$defs": {"Secret": marked}}
        return {"$ref": "https://contracts.example/inner"}, {"Inner": inner}, {}
    if kind == "relative-id":  # a relative $id resolved against the enclosing resource's URI
        inner = {"$id": "parts/secret.json", **marked}
        return {"$ref": "https://contracts.example/parts/secret.json"}, {"Inner": inner}, {"$id": "https://contracts.example/root"}
    raise AssertionError(kind)


KINDS = ["direct", "pointer", "anchor", "chain", "dynamic", "allOf", "anyOf", "oneOf", "dependent",
         "conditional", "escaped-pointer", "embedded-resource", "relative-id"]


def _contract(kind: str, depth: int, flag: str, nesting: str) -> Contract:
    prop, defs, extra = _hide(kind, depth, flag)
    root_id = extra.pop("$id", None)
    holder: dict[str, Any] = {"type": "object", "maxProperties": 2,
                              "properties": {"pw": prop, "note": {"type": "string"}}, **extra}
    if nesting == "top":
        schema = {**holder}
    elif nesting == "object":
        schema = {"type": "object", "properties": {"outer": holder, "note": {"type": "string"}}}
    else:
        schema = {"type": "object", "properties": {"outer": {"type": "array", "maxItems": 1, "items": holder}}}
    schema = {**schema, "$defs": {**schema.get("$defs", {}), **defs}} if defs else schema
    schema = {"$id": root_id, **schema} if root_id else schema
    return Contract(name="login", version="1.0.0", summary="s", description="d", input_schema=schema,
                    output_schema={"type": "object"}, timeout=Timeout(None))


def _shapes(nesting: str) -> list[Any]:
    """Arguments holding the marker in each wrong shape, at the position of the nesting."""
    holders: list[dict[str, Any]] = [
        {"pw": MARKER},                                  # fails the pattern at the sensitive field
        {"pw": [MARKER]}, {"pw": {"k": MARKER}},          # wrong type, marker inside
        {"pw": MARKER, "note": 5},                        # a sibling fails: the parent is not echoed raw
        {"pw": MARKER, "note": "n", "more": 1},           # the parent fails (maxProperties): echoed whole
        {"note": "n", "more": 1, "pw": [1, {"deep": [MARKER]}]},  # marker deep inside, parent fails
    ]
    if nesting == "top":
        return holders
    if nesting == "object":
        return [{"outer": h} for h in holders] + [{"outer": h, "note": 1} for h in holders]
    return [{"outer": [h]} for h in holders] + [{"outer": [h, h]} for h in holders]


def _calls(contract: Contract, arguments: list[Any], caplog: pytest.LogCaptureFixture) -> str:
    records: list[Any] = []
    tool = guard(contract, lambda a: {}, on_call=records.append)
    seen = []
    with caplog.at_level(logging.DEBUG):
        for args in arguments:
            envelope = tool(args)
            seen.append(json.dumps(envelope, default=str))
    return "\n".join(seen) + caplog.text + "\n".join(repr(r) for r in records)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(KINDS), depth=st.integers(min_value=1, max_value=40),
       flag=st.sampled_from(["writeOnly", "x-sensitive"]), nesting=st.sampled_from(["top", "object", "array"]))
def test_the_marker_never_comes_back(kind: str, depth: int, flag: str, nesting: str,
                                     caplog: pytest.LogCaptureFixture) -> None:
    caplog.clear()
    contract = _contract(kind, depth, flag, nesting)
    text = _calls(contract, _shapes(nesting), caplog)
    assert "INVALID_ARGUMENT" in text  # the calls did fail, and were reported
    assert MARKER not in text


def test_an_unmarked_schema_still_echoes_what_was_sent(caplog: pytest.LogCaptureFixture) -> None:
    """The control: the same shapes without a mark do echo the value (so the test above can fail)."""
    contract = Contract(name="login", version="1.0.0", summary="s", description="d",
                        input_schema={"type": "object", "properties": {"pw": SECRET}}, output_schema={},
                        timeout=Timeout(None))
    assert MARKER in _calls(contract, [{"pw": MARKER}], caplog)


@pytest.mark.parametrize("kind", KINDS)
def test_the_marker_never_comes_back_over_mcp(kind: str) -> None:
    contract = _contract(kind, 3, "writeOnly", "object")
    server = build_server([guard(contract, lambda a: {})], name="redaction")
    texts = error_texts(server, "login", _shapes("object"))
    assert all("INVALID_ARGUMENT" in t for t in texts)
    assert not [t for t in texts if MARKER in t]


@pytest.mark.parametrize("kind", ["anchor", "dynamic", "dependent", "chain"])
def test_model_errors_are_redacted_by_the_resolved_schema(kind: str, caplog: pytest.LogCaptureFixture) -> None:
    """The schema accepts the call, the (stricter) input model rejects it: its errors are redacted too."""
    import pydantic

    prop, defs, extra = _hide(kind, 3, "writeOnly")
    prop = {key: value for key, value in prop.items() if key not in ("type", "pattern")}
    defs = {name: {k: v for k, v in d.items() if k not in ("type", "pattern")} for name, d in defs.items()}
    if kind == "dependent":
        extra = {"dependentSchemas": {"pw": {"properties": {"pw": {"writeOnly": True}}}}}
    schema = {"type": "object", "properties": {"pw": prop}, **extra, **({"$defs": defs} if defs else {})}
    contract = Contract(name="login", version="1.0.0", summary="s", description="d", input_schema=schema,
                        output_schema={"type": "object"}, timeout=Timeout(None))

    class Strict(pydantic.BaseModel):
        pw: int

    records: list[Any] = []
    tool = guard(contract, lambda a: {}, input_model=Strict, on_call=records.append)
    with caplog.at_level(logging.DEBUG):
        envelope = tool({"pw": MARKER})
    assert envelope["status"] == "error" and envelope["error"]["code"] == "INVALID_ARGUMENT", envelope
    assert envelope["error"]["field"] == "/pw"
    assert MARKER not in json.dumps(envelope) + caplog.text + repr(records)


@pytest.mark.parametrize("nesting", ["top", "object", "array"])
def test_a_sensitive_schema_given_as_a_resource_is_honoured(nesting: str, caplog: pytest.LogCaptureFixture) -> None:
    """A ``$ref`` to a remote document the guard was given (``resources=``): its marks count too."""
    uri = "https://schemas.example/secret.json"
    holder = {"type": "object", "maxProperties": 2, "properties": {"pw": {"$ref": uri}, "note": {"type": "string"}}}
    schema: dict[str, Any] = {"top": holder, "object": {"type": "object", "properties": {"outer": holder}},
                              "array": {"type": "object", "properties": {"outer": {"type": "array", "items": holder}}}}[nesting]
    contract = Contract(name="login", version="1.0.0", summary="s", description="d", input_schema=schema,
                        output_schema={"type": "object"}, timeout=Timeout(None))
    records: list[Any] = []
    tool = guard(contract, lambda a: {}, on_call=records.append,
                 resources={uri: {**SECRET, "$id": uri, "writeOnly": True}})
    with caplog.at_level(logging.DEBUG):
        text = "\n".join(json.dumps(tool(args)) for args in _shapes(nesting))
    assert "INVALID_ARGUMENT" in text
    assert MARKER not in text + caplog.text + repr(records)


SECRET_WORDS = [MARKER + "-alpha", MARKER + "-beta", *(f"{MARKER}-{i:03}" for i in range(40))]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(KINDS), flag=st.sampled_from(["writeOnly", "x-sensitive"]),
       many=st.booleans(), const=st.booleans(), nesting=st.sampled_from(["top", "object", "array"]))
def test_the_allowed_values_of_a_sensitive_field_are_never_listed(
        kind: str, flag: str, many: bool, const: bool, nesting: str, caplog: pytest.LogCaptureFixture) -> None:
    """A marked enum or const may be the list of secrets: no message, expectation or did-you-mean
    shows it, nor ranks it by what was sent (a near miss must not learn the closest secret)."""
    allowed: dict[str, Any] = {"const": SECRET_WORDS[0]} if const else {"enum": SECRET_WORDS[:40 if many else 2]}
    global SECRET
    saved = SECRET
    SECRET = {"type": "string", **allowed}
    try:
        contract = _contract(kind, 2, flag, nesting)
    finally:
        SECRET = saved
    near = SECRET_WORDS[0][:-1] + "x"
    calls = [{"pw": near, "note": "n"}, {"pw": "zz"}, {"pw": 5}]
    wrapped = {"top": calls, "object": [{"outer": c} for c in calls], "array": [{"outer": [c]} for c in calls]}
    caplog.clear()
    text = _calls(contract, wrapped[nesting], caplog)
    assert "INVALID_ARGUMENT" in text
    assert MARKER not in text


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(word=st.sampled_from(["auth", "pin", "otp", "ssn", "cvv", "jwt", "bearer", "access_key", "accessKey",
                             "AUTH", "passcode", "card_number", "creditCard", "signingKey", "Authorisation",
                             "pwd", "pass", "pasword", "passwrd", "Passwort", "secrte", "credentails"]),
       prefix=st.sampled_from(["", "x_", "user", "X-", "my"]), suffix=st.sampled_from(["", "_value", "Header", "-2"]),
       nesting=st.sampled_from(["top", "object", "array"]))
def test_keys_named_like_secrets_are_redacted_everywhere(word: str, prefix: str, suffix: str, nesting: str,
                                                         caplog: pytest.LogCaptureFixture) -> None:
    """Secret-looking names (whole words for the short ones, one edit or swap away for the long ones:
    a model invents misspelt keys), whatever the case and the separators, at the failing field and
    inside an echoed parent."""
    name = prefix + (word[:1].upper() + word[1:] if prefix and prefix[-1].isalpha() and prefix[-1].islower() else word) + suffix
    holder = {"type": "object", "maxProperties": 2, "properties": {name: {"type": "integer"}}}
    schema = {"top": holder, "object": {"type": "object", "properties": {"outer": holder}},
              "array": {"type": "object", "properties": {"outer": {"type": "array", "items": holder}}}}[nesting]
    contract = Contract(name="login", version="1.0.0", summary="s", description="d", input_schema=schema,
                        output_schema={"type": "object"}, timeout=Timeout(None))
    calls = [{name: MARKER}, {name: 1, "a": 2, "b": MARKER}, {name: [MARKER], "a": 1, "b": 2}]
    wrapped = {"top": calls, "object": [{"outer": c} for c in calls], "array": [{"outer": [c]} for c in calls]}
    caplog.clear()
    text = _calls(contract, wrapped[nesting][:1] + wrapped[nesting][2:], caplog)
    assert "INVALID_ARGUMENT" in text
    assert MARKER not in text


@settings(max_examples=300, deadline=None)
@given(name=st.text(st.sampled_from("pPaAsSwWoOrRdDtTkKeEnN_-1\u017f\u212a\u0130\u0131é"), max_size=14)
       | st.sampled_from(["pa\u017fsword", "\u017fecret", "to\u212aen", "API_KEY", "x-Api-Key", "SESSION_ID"]))
def test_secret_looking_names_are_judged_as_the_case_blind_pattern_judges_them(name: str) -> None:
    """The name rule reads ASCII names lowered, with a case-sensitive pattern (three times faster);
    every name the case-blind pattern finds a secret word in must still count, non-ASCII case folds
    included (the long s is an s, the Kelvin sign a k)."""
    if redaction.SENSITIVE_NAME.search(name):
        assert redaction.sensitive_name(name), name


@pytest.mark.parametrize("name", ["author", "spin", "pinned_ok", "shipping", "lotp", "passed", "compass", "passage"])
def test_words_that_only_contain_a_short_secret_word_still_echo(name: str, caplog: pytest.LogCaptureFixture) -> None:
    """The control for whole-word matching: ``author`` is not ``auth``."""
    contract = Contract(name="t", version="1.0.0", summary="s", description="d",
                        input_schema={"type": "object", "properties": {name: {"type": "integer"}}},
                        output_schema={}, timeout=Timeout(None))
    assert MARKER in _calls(contract, [{name: MARKER}], caplog)


@pytest.mark.parametrize("kind", KINDS)
def test_the_marker_never_reaches_a_span(kind: str) -> None:
    """OpenTelemetry's ``gen_ai.tool.call.arguments`` is redacted by the same resolved schema."""
    pytest.importorskip("opentelemetry.sdk")
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from contractgen.runtime.hooks import CallHooks
    from contractgen.runtime.telemetry import GEN_AI_TOOL_CALL_ARGUMENTS, Telemetry

    spans = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    tool = guard(_contract(kind, 3, "x-sensitive", "object"), lambda a: {})
    tool.hooks = CallHooks(telemetry=Telemetry(provider, None))
    for args in _shapes("object") + [{"outer": {"pw": "123", "note": MARKER}}]:
        tool(args)
    recorded = [s.attributes.get(GEN_AI_TOOL_CALL_ARGUMENTS) for s in spans.get_finished_spans()]
    assert any(MARKER in (r or "") for r in recorded)  # the control: an unmarked member is recorded
    assert not [r for r in recorded[:-1] if MARKER in (r or "")]


def test_arguments_too_long_to_record_are_summarised_without_walking_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """Telemetry records every call's arguments: a huge call is summarised by size and key names
    (no value), never redacted member by member (100,000 members took seconds per call)."""
    from contractgen.runtime import redaction
    from contractgen.runtime.telemetry import redacted_arguments

    contract = _contract("anchor", 3, "writeOnly", "array")
    tool = guard(contract, lambda a: {})
    walked = {"nodes": 0}
    original = redaction._redact

    def counting(*args: Any, **kwargs: Any) -> Any:
        walked["nodes"] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(redaction, "_redact", counting)
    text = redacted_arguments(tool, {"outer": [{"pw": MARKER, "note": "n"}] * 100_000})
    assert MARKER not in text and "an object with 1 keys (outer)" in text
    assert walked["nodes"] == 0
    small = redacted_arguments(tool, {"outer": [{"pw": MARKER, "note": "n"}]})
    assert MARKER not in small and "[redacted]" in small and walked["nodes"] > 0


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(KINDS), flag=st.sampled_from(["writeOnly", "x-sensitive"]),
       closed=st.booleans(), nesting=st.sampled_from(["top", "object", "array"]), combinator=st.booleans())
def test_member_names_inside_a_sensitive_value_never_come_back(kind: str, flag: str, closed: bool, nesting: str,
                                                               combinator: bool, caplog: pytest.LogCaptureFixture) -> None:
    """A secret value's keys are part of it: an unknown key, or a wrong member under a key, inside a
    marked object is reported at the marked position, naming nothing inside it (fields, messages,
    and the closest-branch explanation of an enclosing anyOf)."""
    global SECRET
    saved = SECRET
    SECRET = ({"type": "object", "additionalProperties": False, "properties": {"a": {}}} if closed
              else {"type": "object", "additionalProperties": {"type": "integer"}})
    try:
        contract = _contract(kind, 2, flag, nesting)
    finally:
        SECRET = saved
    if combinator:  # the holder reached through an anyOf: its explanation quotes the closest branch
        schema = contract.input_schema
        contract = Contract(name=contract.name, version="1.0.0", summary="s", description="d",
                            input_schema={"anyOf": [schema, {"type": "integer"}], "$defs": schema.get("$defs", {}),
                                          **({"$id": schema["$id"]} if "$id" in schema else {})},
                            output_schema={"type": "object"}, timeout=Timeout(None))
    inner = [{"pw": {MARKER: "x"}}, {"pw": {"a": 1, MARKER: [1]}, "note": "n"}]
    wrapped = {"top": inner, "object": [{"outer": c} for c in inner], "array": [{"outer": [c]} for c in inner]}
    caplog.clear()
    text = _calls(contract, wrapped[nesting], caplog)
    assert "INVALID_ARGUMENT" in text
    assert MARKER not in text


@pytest.mark.parametrize("holder", ["tokens", "api_keys", "x-auth", "credentials"])
def test_member_names_under_a_secret_looking_name_never_come_back(holder: str, caplog: pytest.LogCaptureFixture) -> None:
    contract = Contract(name="t", version="1.0.0", summary="s", description="d",
                        input_schema={"type": "object", "properties": {holder: {
                            "type": "object", "additionalProperties": {"type": "integer"}, "maxProperties": 1}}},
                        output_schema={}, timeout=Timeout(None))
    text = _calls(contract, [{holder: {MARKER: "x"}}, {holder: {"a": 1, MARKER: 2}}], caplog)
    assert "INVALID_ARGUMENT" in text and MARKER not in text


def test_a_validation_error_an_implementation_raises_is_logged_without_its_input(
        caplog: pytest.LogCaptureFixture) -> None:
    """pydantic quotes the input in a ValidationError's text: an implementation that builds a model
    from its arguments (or a result model that fails) would put them, secrets included, into the log."""
    import pydantic

    class Card(pydantic.BaseModel):
        number: int

    secret = "tok-4111111111111111-secret"
    contract = Contract(name="pay", version="1.0.0", summary="s", description="d",
                        input_schema={"type": "object", "properties": {"card": {"type": "string", "writeOnly": True}}},
                        output_schema={"type": "object"})

    def direct(args: Any) -> Any:
        Card.model_validate({"number": args["card"]})

    def chained(args: Any) -> Any:
        try:
            Card.model_validate({"number": args["card"]})
        except pydantic.ValidationError as exc:
            raise RuntimeError("charging failed") from exc

    for implementation in (direct, chained):
        caplog.clear()
        with caplog.at_level(logging.ERROR, logger="contractgen.runtime"):
            envelope = guard(contract, implementation)({"card": secret})
        assert envelope["error"]["code"] == "INTERNAL"
        logged = "\n".join(record.getMessage() + "\n" + logging.Formatter().formatException(record.exc_info)
                           for record in caplog.records if record.exc_info)
        assert "ref=" in logged and "validation error for Card (input values hidden)" in logged
        assert "number: Input should be a valid integer" in logged  # the error itself is kept
        assert secret not in logged and "4111111111111111" not in logged


# -- what the implementation writes itself: exceptions and ToolErrors quoting a secret it was sent --

def _spelt(secret: str, spelling: str) -> str:
    """The secret as a tool might write it into its own text."""
    from urllib.parse import quote

    return {"plain": secret, "upper": secret.upper(), "lower": secret.lower(), "json": json.dumps(secret)[1:-1],
            "repr": repr(secret), "percent": quote(secret, safe=""), "inside": f"auth={secret};next"}[spelling]


def _raising(shape: str, text: str) -> BaseException:
    """An exception carrying ``text`` in the way ``shape`` names."""
    class TokenRejected(Exception):
        def __str__(self) -> str:
            return f"TokenRejected({self.args[0]!r})"

    if shape == "message":
        return RuntimeError(text)
    if shape == "key":
        return KeyError(text)
    if shape == "custom-str":
        return TokenRejected(text)
    if shape == "note":
        exc = RuntimeError("lookup failed")
        exc.add_note(f"while checking {text}")
        return exc
    if shape in ("cause", "context"):
        outer = RuntimeError("lookup failed")
        inner = ValueError(text)
        outer.__cause__ = inner if shape == "cause" else None
        outer.__context__ = inner
        return outer
    if shape == "syntax":  # ast.literal_eval(secret): the log prints the source line, not the text
        return SyntaxError("invalid syntax", ("<unknown>", 1, 1, text, 1, 2))
    if shape == "group":
        return GROUP("several lookups failed", [ValueError("fine"), KeyError(text)])  # type: ignore[no-any-return]
    if shape == "tool-error":
        return ToolError(f"the token {text} was refused", code="PERMISSION_DENIED")
    if shape == "tool-error-long":  # the secret sits where the message cap cuts it
        return ToolError("x" * 290 + text, code="PERMISSION_DENIED")
    if shape == "upstream":
        return ToolError(code="UNAVAILABLE", upstream=f'{{"error": "bad credentials {text}"}}')
    if shape == "upstream-bytes":  # a body that is not UTF-8 throughout
        return ToolError(code="UNAVAILABLE", upstream=b"\xff\xfe denied: " + text.encode())
    if shape == "partial":
        return ToolError(code="UNAVAILABLE", partial_results={"tried": [text], text: 1})
    if shape == "field":
        return ToolError(code="NOT_FOUND", field=f"/accounts/{text}")
    if shape == "version":
        return VersionMismatchError(received_version=text, migration=[f"note: {text} is retired"])
    raise AssertionError(shape)


GROUP: Any = getattr(builtins, "ExceptionGroup", None)  # Python 3.11+
RAISE_SHAPES = ["message", "key", "custom-str", "note", "cause", "context", "syntax", *(["group"] if GROUP else []),
                "tool-error", "tool-error-long", "upstream", "upstream-bytes", "partial", "field", "version"]


def _scrub_contract(kind: str, timeout: float | None) -> Contract:
    """The contracts of ``_contract``, with a secret any string may be (no pattern to fail)."""
    def unpatterned(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: unpatterned(v) for k, v in node.items() if k != "pattern"}
        return [unpatterned(v) for v in node] if isinstance(node, list) else node

    contract = _contract(kind, 2, "writeOnly", "top")
    return Contract(name="login", version="1.0.0", summary="s", description="d",
                    input_schema={**unpatterned(contract.input_schema), "maxProperties": 3},
                    output_schema={"type": "object"}, timeout=Timeout(timeout))


def _logged(caplog: pytest.LogCaptureFixture) -> str:
    return "\n".join(record.getMessage() + "\n" + (logging.Formatter().formatException(record.exc_info)
                                                    if record.exc_info else "") for record in caplog.records)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(shape=st.sampled_from(RAISE_SHAPES), kind=st.sampled_from(["direct", "anchor", "dependent", "chain"]),
       spelling=st.sampled_from(["plain", "upper", "lower", "json", "repr", "percent", "inside"]),
       path=st.sampled_from(["fast", "observed", "worker", "async"]))
def test_a_secret_the_implementation_quotes_never_comes_back(shape: str, kind: str, spelling: str, path: str,
                                                            caplog: pytest.LogCaptureFixture) -> None:
    """An implementation that writes a secret it was sent into an exception (its message, a note,
    its cause or context, an exception group member, a KeyError) or a ToolError (message, upstream
    text, partial results, field) leaks it to neither the envelope, the log, the on_call record nor
    the model; any case or escaping of it is taken out too, before any cap cuts it."""
    secret = 'Pa"ss w/rd\u00e9-' + MARKER
    text = _spelt(secret, spelling)
    records: list[Any] = []
    contract = _scrub_contract(kind, 5.0 if path == "worker" else None)

    if path == "async":
        async def implementation(args: Any) -> Any:
            raise _raising(shape, text)
    else:
        def implementation(args: Any) -> Any:
            raise _raising(shape, text)

    tool = guard(contract, implementation, on_call=records.append if path != "fast" else None)
    caplog.clear()
    with caplog.at_level(logging.DEBUG):
        envelope = anyio.run(tool.acall, {"pw": secret, "note": "n"}) if path == "async" \
            else tool({"pw": secret, "note": "n"})
    assert envelope["status"] == "error"
    seen = json.dumps(envelope) + json.dumps(envelope, ensure_ascii=False) + _logged(caplog) + repr(records)
    assert MARKER not in seen and MARKER.lower() not in seen.lower()
    if shape == "tool-error":
        assert "[redacted]" in envelope["error"]["message"]


def test_a_secret_in_an_exception_is_still_logged_as_the_same_exception(caplog: pytest.LogCaptureFixture) -> None:
    """The control: scrubbing keeps the exception's name, its other text and an unmarked value."""
    contract = _scrub_contract("direct", None)

    def implementation(args: Any) -> Any:
        raise KeyError(f"{args['pw']} for {args['note']}")

    with caplog.at_level(logging.ERROR):
        guard(contract, implementation)({"pw": MARKER, "note": "visible-note"})
    logged = _logged(caplog)
    assert "KeyError: '[redacted] for visible-note'" in logged and MARKER not in logged


def test_a_secret_the_implementation_quotes_never_reaches_an_mcp_client() -> None:
    contract = _scrub_contract("anchor", None)

    def implementation(args: Any) -> Any:
        raise ToolError(f"token {args['pw']} refused", code="PERMISSION_DENIED",
                        upstream=f"401 for {args['pw'].upper()}")

    server = build_server([guard(contract, implementation)], name="scrub")
    texts = error_texts(server, "login", [{"pw": MARKER}])
    assert "[redacted]" in texts[0] and MARKER.lower() not in texts[0].lower()


# -- a value sent in a shape its schema does not describe, where secrets are held inside --

_BOX_MARK = {"type": "string", "writeOnly": True, "pattern": "^[0-9]+$"}


def _box(kind: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the schema of a property 'box' holding a secret through ``kind``, $defs to add)."""
    m = _BOX_MARK
    return {
        "items": ({"type": "array", "items": m}, {}),
        "prefixItems": ({"type": "array", "prefixItems": [m]}, {}),
        "contains": ({"type": "array", "contains": m}, {}),
        "additionalProperties": ({"type": "object", "additionalProperties": m}, {}),
        "patternProperties": ({"type": "object", "patternProperties": {"^k": m}}, {}),
        "unevaluatedProperties": ({"type": "object", "properties": {"n": {"type": "integer"}},
                                   "unevaluatedProperties": m}, {}),
        "property": ({"type": "object", "properties": {"s": m}}, {}),
        "branch": ({"anyOf": [{"type": "object", "properties": {"s": m}}, {"type": "integer"}]}, {}),
        "conditional": ({"type": "object", "if": {"required": ["s"]}, "then": {"properties": {"s": m}}}, {}),
        "ref-with-siblings": ({"$ref": "#/$defs/Box", "maxItems": 3}, {"Box": {"type": "array", "items": m}}),
        "anchor": ({"$ref": "#box"}, {"Box": {"$anchor": "box", "type": "array", "items": m}}),
        "recursive": ({"$ref": "#/$defs/Node"}, {"Node": {"type": "object", "properties": {
            "s": m, "child": {"$ref": "#/$defs/Node"}}}}),
    }[kind]


BOX_KINDS = ["items", "prefixItems", "contains", "additionalProperties", "patternProperties",
             "unevaluatedProperties", "property", "branch", "conditional", "ref-with-siblings", "anchor", "recursive"]


def _spans_and_tool(contract: Contract, records: list[Any]) -> tuple[Any, Any]:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from contractgen.runtime.hooks import CallHooks
    from contractgen.runtime.telemetry import Telemetry

    spans = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    tool = guard(contract, lambda a: {}, on_call=records.append)
    tool.hooks = CallHooks(telemetry=Telemetry(provider, None))
    return spans, tool


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(BOX_KINDS), nesting=st.sampled_from(["top", "object", "array"]),
       sent=st.sampled_from([MARKER, [MARKER], [[MARKER]], {"zz": MARKER}, {"zz": [MARKER]}, [1, MARKER, {"q": MARKER}]]),
       crowded=st.booleans())
def test_a_secret_sent_in_a_shape_its_schema_does_not_describe_never_comes_back(
        kind: str, nesting: str, sent: Any, crowded: bool, caplog: pytest.LogCaptureFixture) -> None:
    """A string where an array of tokens belongs, a token as an undeclared member or item beside
    the declared secret ones: no schema says which part is the secret, so a value holding secrets
    inside is hidden wherever its shape is not the one its schema describes (in attempted, in an
    echoed parent, in a span's arguments); nothing of it reaches the model, the log or a hook."""
    pytest.importorskip("opentelemetry.sdk")
    from contractgen.runtime.telemetry import GEN_AI_TOOL_CALL_ARGUMENTS

    box, defs = _box(kind)
    holder: dict[str, Any] = {"type": "object", "maxProperties": 2,
                              "properties": {"box": box, "note": {"type": "string"}}}
    schema: dict[str, Any] = {"top": holder, "object": {"type": "object", "properties": {"outer": holder}},
                              "array": {"type": "object", "properties": {"outer": {"type": "array", "items": holder}}}}[nesting]
    if defs:
        schema = {**schema, "$defs": defs}
    contract = Contract(name="login", version="1.0.0", summary="s", description="d", input_schema=schema,
                        output_schema={"type": "object"}, timeout=Timeout(None))
    call: dict[str, Any] = {"box": sent, "note": "n", "more": 1} if crowded else {"box": sent}
    wrapped = {"top": call, "object": {"outer": call}, "array": {"outer": [call]}}[nesting]
    records: list[Any] = []
    spans, tool = _spans_and_tool(contract, records)
    caplog.clear()
    with caplog.at_level(logging.DEBUG):
        envelope = tool(wrapped)
    recorded = [s.attributes.get(GEN_AI_TOOL_CALL_ARGUMENTS) or "" for s in spans.get_finished_spans()]
    assert recorded and "[redacted]" in recorded[0]
    seen = json.dumps(envelope) + caplog.text + repr(records) + "".join(recorded)
    assert MARKER not in seen
    server = build_server([guard(contract, lambda a: {})], name="shapes")
    if envelope["status"] == "error":
        assert MARKER not in error_texts(server, "login", [wrapped])[0]


def test_a_value_of_the_shape_its_schema_describes_is_still_echoed(caplog: pytest.LogCaptureFixture) -> None:
    """The control: members the schema declares unmarked, beside a marked one, are echoed."""
    box, _ = _box("property")
    schema = {"type": "object", "maxProperties": 1, "properties": {"box": {**box, "properties": {
        "s": _BOX_MARK, "label": {"type": "string"}}}, "note": {"type": "string"}}}
    contract = Contract(name="login", version="1.0.0", summary="s", description="d", input_schema=schema,
                        output_schema={"type": "object"}, timeout=Timeout(None))
    text = _calls(contract, [{"box": {"s": MARKER, "label": "shown-label"}, "note": "n"}], caplog)
    assert "shown-label" in text and MARKER not in text


@pytest.mark.parametrize("kind", ["items", "contains", "prefixItems", "ref-with-siblings", "anchor"])
def test_an_object_too_big_to_echo_where_an_array_of_secrets_belongs_is_summarised_without_its_keys(
        kind: str, caplog: pytest.LogCaptureFixture) -> None:
    """A value too long to echo is summarised by its size (and its key names): where secrets belong
    and objects do not, the keys may be the secrets sent astray, so only the size is said."""
    box, defs = _box(kind)
    schema = {"type": "object", "properties": {"box": box}, **({"$defs": defs} if defs else {})}
    contract = Contract(name="login", version="1.0.0", summary="s", description="d", input_schema=schema,
                        output_schema={"type": "object"}, timeout=Timeout(None))
    text = _calls(contract, [{"box": {f"{MARKER}-{i}": True for i in range(12)}}], caplog)
    assert "an object with 12 keys" in text and MARKER not in text


@pytest.mark.parametrize("sent", [{MARKER: "not an integer"}, {MARKER: 1, "other": 2}, {"a": 1, MARKER: [1]},
                                  {f"{MARKER}-{i}": "x" for i in range(12)}])
def test_member_names_a_marked_property_names_schema_covers_never_come_back(
        sent: Any, caplog: pytest.LogCaptureFixture) -> None:
    """``propertyNames`` marked sensitive makes the keys the secrets: a violation inside such an
    object is reported at the object, which is echoed as [redacted]."""
    schema = {"type": "object", "properties": {"vault": {
        "type": "object", "maxProperties": 1, "additionalProperties": {"type": "integer"},
        "propertyNames": {"type": "string", "writeOnly": True, "maxLength": 64}}}}
    contract = Contract(name="login", version="1.0.0", summary="s", description="d", input_schema=schema,
                        output_schema={"type": "object"}, timeout=Timeout(None))
    text = _calls(contract, [{"vault": sent}], caplog)
    assert "INVALID_ARGUMENT" in text and MARKER not in text


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(KINDS), flag=st.sampled_from(["writeOnly", "x-sensitive"]),
       nesting=st.sampled_from(["top", "object", "array"]))
def test_a_missing_sensitive_field_is_described_without_its_values(kind: str, flag: str, nesting: str,
                                                                   caplog: pytest.LogCaptureFixture) -> None:
    """A missing required argument is described (type, description, example) so the model can send
    it; for a sensitive one neither its examples nor its allowed values are, whichever way the mark
    reaches it (dependentSchemas and if/then add it beside the property's own node)."""
    global SECRET
    saved = SECRET
    SECRET = {"type": "string", "description": "The password.", "examples": [MARKER + "-ex"],
              "enum": [MARKER + "-a", MARKER + "-b"]}
    try:
        contract = _contract(kind, 2, flag, nesting)
    finally:
        SECRET = saved
    schema = json.loads(json.dumps(contract.input_schema))
    holder = {"top": lambda s: s, "object": lambda s: s["properties"]["outer"],
              "array": lambda s: s["properties"]["outer"]["items"]}[nesting](schema)
    holder["required"] = ["pw"]
    contract = Contract(name="login", version="1.0.0", summary="s", description="d", input_schema=schema,
                        output_schema={"type": "object"}, timeout=Timeout(None))
    calls = {"top": [{"note": "n"}], "object": [{"outer": {"note": "n"}}], "array": [{"outer": [{"note": "n"}]}]}
    caplog.clear()
    text = _calls(contract, calls[nesting], caplog)
    assert "missing required argument 'pw'" in text
    assert MARKER not in text


def test_a_mapper_that_fails_on_a_secret_logs_it_scrubbed(caplog: pytest.LogCaptureFixture) -> None:
    """An exception mapper reads the tool's exception; the one it raises may quote it (a KeyError
    of the text it looked up), and is logged like the tool's own."""
    contract = _scrub_contract("anchor", None)
    known = {"quota": ToolError(code="RATE_LIMITED")}

    def implementation(args: Any) -> Any:
        raise ValueError(f"upstream refused {args['pw']}")

    def mapper(exc: BaseException) -> ToolError | None:
        return known[str(exc)]  # KeyError('upstream refused <secret>')

    with caplog.at_level(logging.DEBUG):
        envelope = guard(contract, implementation, mapper=mapper)({"pw": MARKER})
    assert envelope["error"]["code"] == "INTERNAL"
    logged = _logged(caplog)
    assert "exception mapper failed" in logged and "KeyError" in logged and MARKER not in logged


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(KINDS), flag=st.sampled_from(["writeOnly", "x-sensitive"]),
       listing=st.sampled_from(["enum", "const", "enum-in-branch"]),
       sent=st.sampled_from([None, {"pw": "other"}, "zz", [1]]))
def test_allowed_values_holding_a_secret_inside_are_never_listed(kind: str, flag: str, listing: str, sent: Any,
                                                                  caplog: pytest.LogCaptureFixture) -> None:
    """An ``enum`` or ``const`` of objects whose member is marked (``enum: [{"pw": "..."}]``) holds
    the secrets themselves: no message or expectation lists it (a wrong value, a wrong type, a
    missing argument, the closest branch of an anyOf)."""
    prop, defs, extra = _hide(kind, 2, flag)
    root_id = extra.pop("$id", None)
    allowed = [{"pw": MARKER + "-a"}, {"pw": MARKER + "-b"}]
    box: dict[str, Any] = {"type": "object", "properties": {"pw": prop}, **extra}
    box = {**box, "const": allowed[0]} if listing == "const" else {**box, "enum": allowed}
    if listing == "enum-in-branch":
        box = {"anyOf": [box, {"type": "integer"}]}
    schema: dict[str, Any] = {"type": "object", "required": ["box"], "properties": {"box": box}}
    schema = {**schema, "$defs": defs} if defs else schema
    schema = {"$id": root_id, **schema} if root_id else schema
    contract = Contract(name="login", version="1.0.0", summary="s", description="d", input_schema=schema,
                        output_schema={"type": "object"}, timeout=Timeout(None))
    caplog.clear()
    text = _calls(contract, [{} if sent is None else {"box": sent}], caplog)
    assert "INVALID_ARGUMENT" in text and MARKER not in text


def test_allowed_objects_without_a_secret_are_still_listed(caplog: pytest.LogCaptureFixture) -> None:
    schema = {"type": "object", "properties": {"box": {"type": "object", "enum": [{"q": "visible-choice"}]}}}
    contract = Contract(name="login", version="1.0.0", summary="s", description="d", input_schema=schema,
                        output_schema={"type": "object"}, timeout=Timeout(None))
    assert "visible-choice" in _calls(contract, [{"box": {"q": "other"}}], caplog)


@pytest.mark.parametrize("cvv", ["123", 123, "0042"])
def test_a_short_numeric_secret_is_taken_out_as_a_whole_number(cvv: Any, caplog: pytest.LogCaptureFixture) -> None:
    """A CVV or a short PIN is three or four digits: it is looked for as a whole number, so the
    numbers around it (a line number, an amount) stay."""
    contract = Contract(name="pay", version="1.0.0", summary="s", description="d",
                        input_schema={"type": "object", "properties": {"code": {"type": ["string", "integer"],
                                                                                "writeOnly": True}}},
                        output_schema={"type": "object"})

    def implementation(args: Any) -> Any:
        raise ToolError(f"code {args['code']} refused for 91234 cents", code="PERMISSION_DENIED")

    message = guard(contract, implementation)({"code": cvv})["error"]["message"]
    assert message == "code [redacted] refused for 91234 cents"


@pytest.mark.parametrize("length", [40, 300])
def test_a_secret_deep_in_a_long_exception_chain_is_never_logged(length: int, caplog: pytest.LogCaptureFixture) -> None:
    """Each link of a chain is scrubbed, however deep the secret sits; a chain too long to look at
    whole is logged by its first exception's type alone."""
    contract = _scrub_contract("direct", None)

    def implementation(args: Any) -> Any:
        exc: BaseException = ValueError(f"bad {args['pw']}")
        for i in range(length):
            outer = RuntimeError(f"step {i}")
            outer.__cause__ = exc
            exc = outer
        raise exc

    with caplog.at_level(logging.ERROR):
        envelope = guard(contract, implementation)({"pw": MARKER})
    logged = _logged(caplog)
    assert envelope["error"]["code"] == "INTERNAL" and "RuntimeError" in logged and MARKER not in logged


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(KINDS), where=st.sampled_from(["sibling", "key", "long-sibling", "long-key", "nested-key"]),
       spelling=st.sampled_from(["plain", "upper"]), cut=st.integers(min_value=1, max_value=210))
def test_a_secret_also_sent_where_it_is_not_one_never_comes_back(kind: str, where: str, spelling: str, cut: int,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    """A model that sends its secret at the marked field and again elsewhere (a wrong-typed sibling,
    an unknown key, a long text a cap cuts right inside the secret) still never reads it back: the
    call's secrets are taken out of everything the guard echoes (envelope, span, MCP), and a cap
    that cut one leaves none of its start."""
    pytest.importorskip("opentelemetry.sdk")
    from contractgen.runtime.telemetry import GEN_AI_TOOL_CALL_ARGUMENTS

    secret = "Zq" + MARKER + "-tail"
    again = secret.upper() if spelling == "upper" else secret
    contract = _contract(kind, 2, "writeOnly", "top")
    schema = json.loads(json.dumps(contract.input_schema))
    schema["properties"]["pw"] = {k: v for k, v in schema["properties"]["pw"].items() if k != "pattern"}
    schema["properties"]["size"] = {"type": "integer"}
    schema["properties"]["text"] = {"type": "string", "maxLength": 3}
    schema["additionalProperties"] = False
    schema.pop("maxProperties", None)
    contract = Contract(name="login", version="1.0.0", summary="s", description="d", input_schema=schema,
                        output_schema={"type": "object"}, timeout=Timeout(None))
    padding = "x" * cut
    call: dict[str, Any] = {"pw": secret, "note": "n"}
    if where == "sibling":
        call["size"] = again
    elif where == "key":
        call[again] = 1
    elif where == "long-sibling":
        call["text"] = padding + again
    elif where == "long-key":
        call[padding + again] = 1
    else:
        call["note"] = {again: 1}
    records: list[Any] = []
    spans, tool = _spans_and_tool(contract, records)
    caplog.clear()
    with caplog.at_level(logging.DEBUG):
        envelope = tool(call)
    assert envelope["status"] == "error"
    recorded = "".join(s.attributes.get(GEN_AI_TOOL_CALL_ARGUMENTS) or "" for s in spans.get_finished_spans())
    server = build_server([guard(contract, lambda a: {})], name="again")
    seen = json.dumps(envelope, ensure_ascii=False) + caplog.text + repr(records) + recorded \
        + error_texts(server, "login", [call])[0]
    assert MARKER.lower() not in seen.lower() and "zq" + MARKER[:3].lower() not in seen.lower()


def test_a_near_miss_notice_never_names_a_secret_the_call_sent() -> None:
    """On an open schema a near-miss key is named in a notice; a key that is the secret is not."""
    contract = Contract(name="login", version="1.0.0", summary="s", description="d",
                        input_schema={"type": "object", "properties": {"pw": {"type": "string", "writeOnly": True},
                                                                       "owner": {"type": "string"}}},
                        output_schema={"type": "object"}, timeout=Timeout(None))
    envelope = guard(contract, lambda a: {})({"pw": "ownerx", "ownerx": 1, "ownr": 2})
    assert envelope["status"] == "ok"
    assert [n["message"].split("'")[1] for n in envelope["notices"]] == ["[redacted]", "ownr"]


def _near(secret: str, how: str) -> str:
    """A text that all but spells ``secret``."""
    return {"drop-last": secret[:-1], "drop-first": secret[1:], "extra": secret + "x",
            "swap": secret[:3] + secret[4] + secret[3] + secret[5:], "substitute": secret[:-2] + "Q" + secret[-1],
            "most": secret[: len(secret) // 2 + 2], "first-third": secret[:4], "middle-third": secret[4:8],
            "last-third": secret[-4:]}[how]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(how=st.sampled_from(["drop-last", "drop-first", "extra", "swap", "substitute", "most", "first-third",
                            "middle-third", "last-third"]),
       where=st.sampled_from(["key", "sibling"]), kind=st.sampled_from(["direct", "anchor", "dependent"]))
def test_a_key_or_value_that_all_but_spells_a_secret_is_never_echoed(how: str, where: str, kind: str,
                                                                     caplog: pytest.LogCaptureFixture) -> None:
    """An unknown key (or a wrong value elsewhere) one edit away from the secret sent, or most of it,
    would tell the secret when echoed in a message or attempted: it is taken out like the secret. So
    is a third of it (any piece of four characters or more), which was echoed."""
    # The tail is letters: digits of the secret could turn up by chance in a call's duration.
    tail = "Qzvk"
    secret = "hunter22" + tail
    near = _near(secret, how)
    contract = _scrub_contract(kind, None)
    schema = {**contract.input_schema, "additionalProperties": False,
              "properties": {**contract.input_schema["properties"], "size": {"type": "integer"}}}
    contract = Contract(name="login", version="1.0.0", summary="s", description="d", input_schema=schema,
                        output_schema={"type": "object"}, timeout=Timeout(None))
    call: dict[str, Any] = {"pw": secret, near: 1} if where == "key" else {"pw": secret, "size": near}
    caplog.clear()
    text = _calls(contract, [call], caplog)
    assert "INVALID_ARGUMENT" in text and near.lower() not in text.lower() and tail not in text


@pytest.mark.parametrize("secret", ["ab\udcffcd-secret", "tab\there-secret", "\u00e9\u00e9\u00e9\u00e9-secret"])
def test_a_secret_no_encoding_likes_is_still_taken_out(secret: str) -> None:
    """A lone surrogate (which percent-encoding refuses) or a control character in a secret does not
    stop the guard from answering, nor from taking the secret out of what the tool wrote."""
    contract = Contract(name="pay", version="1.0.0", summary="s", description="d",
                        input_schema={"type": "object", "properties": {"pw": {"writeOnly": True}}},
                        output_schema={"type": "object"})

    def implementation(args: Any) -> Any:
        raise ToolError(f"bad {args['pw']}", code="NOT_FOUND")

    envelope = guard(contract, implementation)({"pw": secret})
    assert envelope["error"]["code"] == "NOT_FOUND" and envelope["error"]["message"] == "bad [redacted]"


def _marked_at(mark: str) -> tuple[dict[str, Any], str, dict[str, Any]]:
    """(input schema, the key the secret is sent under, $defs) for each way a name may be secret."""
    if mark == "writeOnly":
        return {"pw": {"type": "string", "writeOnly": True}}, "pw", {}
    if mark == "x-sensitive-ref":
        return {"pw": {"$ref": "#/$defs/Secret"}}, "pw", {"Secret": {"type": "string", "x-sensitive": True}}
    if mark == "items":
        return {"pw": {"type": "array", "items": {"type": "string", "writeOnly": True}}}, "pw", {}
    return {"note": {"type": "string"}}, "api_key", {}  # no mark: an undeclared secret-looking name


def _echoed_by_login(schema: dict[str, Any], call: dict[str, Any], said: Any, echo: str,
                     caplog: pytest.LogCaptureFixture) -> tuple[dict[str, Any], str]:
    """A tool that writes ``said(arguments)`` in its ok output, a ToolError (``tool-error``), its
    partial results (``partial``) or an exception, called once: (its envelope, everything the
    envelope, the logs and the ``on_call`` record show)."""
    def implementation(args: Any) -> Any:
        text = said(args)
        if echo == "tool-error":
            raise ToolError(text, code="PERMISSION_DENIED")
        if echo == "partial":
            raise ToolError("partly done", code="UNAVAILABLE", partial_results={"said": text})
        if echo == "exception":
            raise RuntimeError(text)
        return {"said": text}
    records: list[Any] = []
    tool = guard(Contract(name="login", version="1.0.0", summary="s", description="d", input_schema=schema,
                          output_schema={"type": "object"}, timeout=Timeout(None)),
                 implementation, on_call=records.append)
    caplog.clear()
    with caplog.at_level(logging.DEBUG):
        envelope = tool(call)
    return envelope, json.dumps(envelope) + _logged(caplog) + repr(records)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mark=st.sampled_from(["writeOnly", "x-sensitive-ref", "items", "name"]),
       padding=st.sampled_from(["members before", "long texts", "records before", "long texts in records"]),
       count=st.sampled_from([300, 1200, 4000]), echo=st.sampled_from(["output", "tool-error", "exception"]))
def test_a_secret_among_many_other_members_is_still_taken_out_of_what_the_tool_writes(
        mark: str, padding: str, count: int, echo: str, caplog: pytest.LogCaptureFixture) -> None:
    """The secrets a tool's text is scrubbed of were looked for only in a shortened copy of the call,
    and only the 256 longest texts redaction hid were kept: a password sent after 1,000 other members
    was cut, and 300 long texts of an undeclared member beside it (hidden whole, being where no schema
    says which part is a secret) crowded it out, so a tool echoing it sent it to the model. Texts
    sent under a marked or secret-looking name are now found anywhere in the call, and come first."""
    properties, key, defs = _marked_at(mark)
    secret = "hunter22-" + MARKER
    filler: dict[str, Any]
    if padding == "members before":
        filler = {f"k{i}": i for i in range(count)}
    elif padding == "long texts":
        filler = {"extra": [f"an undeclared text that is long, number {i:05d}" for i in range(count)]}
    elif padding == "records before":
        filler = {"rows": [{f"c{j}": j for j in range(40)} for _ in range(count // 40 + 1)]}
    else:
        filler = {"rows": [{"text": f"an undeclared text that is long, number {i:05d}"} for i in range(count)]}
    call = {**filler, key: [secret] if mark == "items" else secret}
    schema: dict[str, Any] = {"type": "object", "properties": properties, **({"$defs": defs} if defs else {})}
    envelope, seen = _echoed_by_login(schema, call, lambda args: f"signed in with {args[key]}", echo, caplog)
    assert MARKER not in seen and MARKER.lower() not in seen.lower()
    assert envelope["status"] == ("ok" if echo == "output" else "error"), envelope


@settings(max_examples=300, deadline=None)
@given(secrets=st.lists(st.text("ab", min_size=4, max_size=9), min_size=1, max_size=120, unique=True),
       pieces=st.lists(st.tuples(st.integers(0, 119), st.text("abx", max_size=3),
                                 st.sampled_from(["plain", "upper", "base64"])), max_size=30),
       where=st.sampled_from(["string", "key", "strings"]))
def test_many_secrets_sharing_starts_and_overlapping_are_all_taken_out(
        secrets: list[str], pieces: list[tuple[int, str, str]], where: str) -> None:
    """Past a few dozen spellings, a text is first searched for their first characters at once
    (a trie), overlapping places and shorter starts included, and only those found are looked for:
    secrets over two letters share every start and overlap everywhere, and none survives."""
    import base64

    from contractgen.runtime.scrub import Scrubber

    written = ""
    for index, filler, spelling in pieces:
        secret = secrets[index % len(secrets)]
        written += filler + {"plain": secret, "upper": secret.upper(),
                             "base64": base64.b64encode(secret.encode()).decode()}[spelling]
    value: Any = {"said": written} if where == "string" else {written: 1} if where == "key" else \
        {"said": [written, written[::-1], "plain words"]}
    scrubber = Scrubber(secrets)
    for shown in (scrubber.value(value), scrubber.text(written)):
        text = json.dumps(shown).lower()
        assert not any(secret in text for secret in secrets), (text, secrets)
        assert not any(base64.b64encode(secret.encode()).decode().lower() in text for secret in secrets)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(count=st.one_of(st.integers(0, 300), st.sampled_from([255, 256, 257, 2000, 9000])),
       where=st.sampled_from(["own member first", "own member last", "first key", "middle key", "last key",
                              "marked members"]),
       echo=st.sampled_from(["output", "tool-error", "exception", "partial"]))
@example(count=255, where="marked members", echo="output")
@example(count=256, where="marked members", echo="output")
@example(count=178, where="marked members", echo="output")
def test_a_short_secret_among_any_number_of_secrets_never_comes_back(
        count: int, where: str, echo: str, caplog: pytest.LogCaptureFixture) -> None:
    """Only the first 256 secret texts of a call were looked for, so a short password sent beside
    300 writeOnly keys was pushed out, and a tool quoting it sent it to the model. Past the cap the
    texts that may hold one are withheld now, and an ok result that may quote one is refused with a
    reason; below it they are scrubbed as before. Values hidden only for being undeclared (maybe a
    secret sent astray) never push one out: tests/test_hardening_redaction.py's many-members test."""
    from contractgen.runtime.scrub import SECRETS_CAP

    keys = [f"key-number-{i:06d}-long-{MARKER}" for i in range(count)]
    pw = "hunter22"
    call: dict[str, Any] = {"keys": keys}
    if where.startswith("own member"):
        call = {"pw": pw, **call} if where.endswith("first") else {**call, "pw": pw}
    elif where == "marked members":  # undeclared members an additionalProperties mark hides
        call = {"keys": [], "vault": {**{key: key for key in keys}, "zz": pw}}  # names no other texts
    else:
        at = {"first key": 0, "middle key": count // 2, "last key": count}[where]
        call = {"keys": keys[:at] + [pw] + keys[at:]}
    secret = {"type": "string", "writeOnly": True}
    schema = {"type": "object", "properties": {"keys": {"type": "array", "items": secret}, "pw": secret,
                                               "vault": {"type": "object", "additionalProperties": secret}}}

    envelope, seen = _echoed_by_login(schema, call, lambda args: f"signed in with {pw}, keys "
                                      f"{' '.join(args['keys'][:3])}", echo, caplog)
    assert pw not in seen and MARKER not in seen
    many = count + 1 > SECRETS_CAP
    if echo == "output":
        assert envelope["status"] == ("error" if many else "ok"), envelope
        if many:
            assert "more than 256 secret values" in envelope["error"]["message"]
            assert envelope["error"]["retryable"] is False
    else:
        assert envelope["status"] == "error"


def test_a_result_too_short_to_quote_a_secret_is_kept_past_the_cap() -> None:
    """Past the cap a result is refused only when one of its texts is long enough to quote a secret:
    a count and one-letter keys come back as written."""
    secret = {"type": "string", "writeOnly": True}
    schema = {"type": "object", "properties": {"keys": {"type": "array", "items": secret}}}
    tool = guard(Contract(name="rotate", version="1.0.0", summary="s", description="d", input_schema=schema,
                          output_schema={"type": "object"}, timeout=Timeout(None)),
                 lambda args: {"n": len(args["keys"])})
    envelope = tool({"keys": [f"key-number-{i:06d}-long" for i in range(600)]})
    assert envelope["status"] == "ok" and envelope["output"] == {"n": 600}, envelope


def _scrubbed_one_by_one(scrubber: Any, value: Any) -> Any:
    """``Scrubber.value`` as it was first written: every string and key through ``text``."""
    if isinstance(value, str):
        return scrubber.text(value)
    if isinstance(value, dict):
        return {scrubber.text(k): _scrubbed_one_by_one(scrubber, v) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrubbed_one_by_one(scrubber, v) for v in value]
    return value


_PIECES = st.sampled_from(["hunter22", "HUNTER22", "hunter2", "123", "1234", "x\x00y", "İstanbul", "straße", "…",
                           "aGVsbG8gaHVudGVyMjI=", "ok", " ", "\n"])


@settings(max_examples=200, deadline=None)
@given(secrets=st.lists(st.one_of(st.sampled_from(["hunter22", "123", "x\x00y", "İstanbul", "straße"]),
                                  st.text(min_size=3, max_size=8)), min_size=1, max_size=5),
       texts=st.lists(st.lists(st.one_of(_PIECES, st.text(max_size=4)), max_size=5).map("".join), max_size=12),
       shape=st.sampled_from(["list", "keys", "nested"]))
def test_a_result_is_scrubbed_as_text_by_text(secrets: list[str], texts: list[str], shape: str) -> None:
    """A result's texts holding a secret are found in one pass and only they are scrubbed one by one;
    every text comes out as scrubbing each on its own makes it (cases, a lowering that changes a
    length, a NUL in a secret, short numbers, a cap's cut)."""
    from contractgen.runtime.scrub import Scrubber

    value: Any = texts if shape == "list" else {t: i for i, t in enumerate(texts)} if shape == "keys" else \
        {"a": [{"b": t, t: [t]} for t in texts]}
    scrubber = Scrubber(secrets)
    assert scrubber.value(value) == _scrubbed_one_by_one(scrubber, value)


def test_a_big_result_scrubs_only_the_texts_that_hold_a_secret() -> None:
    """Scrubbing an ok output ran every one of its strings through the scrubber when one secret was
    among them (0.35-0.5 s per 100,000 strings); the texts holding one are now found in one pass,
    also when lowering a text changes its length."""
    import sys

    from contractgen.runtime.scrub import Scrubber

    for secrets in (["hunter22"], [f"key-number-{i:06d}-long" for i in range(200)] + ["hunter22"]):
        scrubber = Scrubber(secrets)
        # 'İ' lowers to two characters: the texts holding a secret were then scrubbed one by one again
        result = {"rows": [f"row {i}" for i in range(20_000)] + ["İstanbul", "signed in with hunter22",
                                                                 "key-number-000007-long"]}
        calls = 0

        def count(frame: Any, event: str, arg: Any) -> None:
            nonlocal calls
            if event == "call" and frame.f_code is Scrubber.text.__code__:
                calls += 1
        sys.setprofile(count)
        try:
            shown = scrubber.value(result)
        finally:
            sys.setprofile(None)
        assert "hunter22" not in json.dumps(shown) and shown["rows"][5] == "row 5"
        assert calls <= 2, (len(secrets), calls)


@settings(max_examples=16, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(where=st.sampled_from(["first", "last"]), padding=st.sampled_from(["members", "records"]),
       echo=st.sampled_from(["tool-error", "partial"]))
def test_a_secret_in_a_call_too_big_to_read_whole_never_comes_back_in_a_tool_error(
        where: str, padding: str, echo: str, caplog: pytest.LogCaptureFixture) -> None:
    """Before finding a call's secrets, a ToolError's texts are checked for any text of the call; that
    check read only the call's first 10,000 texts, so a password read after them (sent first, beside
    11,000 other members) was never looked for, and the tool's message quoting it reached the model."""
    pw = "hunter-QzvkWbyl"  # letters: MARKER's digits are among the filler's numbers, which are looked for
    filler: dict[str, Any] = {f"k{i}": i for i in range(11_000)} if padding == "members" else \
        {"rows": [{"a": i} for i in range(11_000)]}
    call = {"pw": pw, **filler} if where == "first" else {**filler, "pw": pw}
    schema = {"type": "object", "properties": {"pw": {"type": "string", "writeOnly": True}}}
    envelope, seen = _echoed_by_login(schema, call, lambda args: f"signed in with {pw}", echo, caplog)
    assert pw not in seen and envelope["status"] == "error"


@settings(max_examples=16, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(where=st.sampled_from(["first", "last"]), depth=st.sampled_from(["top", "nested"]),
       echo=st.sampled_from(["output", "tool-error", "exception"]))
def test_a_secret_under_a_marked_pattern_among_many_members_never_comes_back(
        where: str, depth: str, echo: str, caplog: pytest.LogCaptureFixture) -> None:
    """A member marked through patternProperties was found only where the shortened copy redaction
    reads kept it: one sent after 1,000 other members of a nested object was cut, never looked for,
    and the tool's echo of it came back. A name a marked pattern matches is now found anywhere."""
    pw = "hunter22-" + MARKER
    members: dict[str, Any] = {f"k{i}": i for i in range(1_500)}
    box = {"s_pw": pw, **members} if where == "first" else {**members, "s_pw": pw}
    holder = {"type": "object", "patternProperties": {"^s_": {"type": "string", "writeOnly": True}}}
    schema = holder if depth == "top" else {"type": "object", "properties": {"box": holder}}
    call = box if depth == "top" else {"box": box}
    envelope, seen = _echoed_by_login(schema, call, lambda args: f"signed in with {pw}", echo, caplog)
    assert MARKER not in seen and envelope["status"] == ("ok" if echo == "output" else "error"), envelope


@settings(max_examples=20, deadline=None)
@given(long=st.lists(st.text(min_size=200, max_size=2_000), min_size=1, max_size=3),
       short=st.lists(st.text("abcdef-0123", min_size=4, max_size=12), min_size=40, max_size=60))
# a secret that is a run of the scrubber's own marker ('edac' of '[redacted]') is no leak
@example(long=["0" * 200], short=["edac"] + ["0000"] * 39)
def test_the_pieces_many_secrets_are_found_by_come_from_the_start_of_each_spelling(
        long: list[str], short: list[str]) -> None:
    """Past a few dozen spellings each is found by one piece of it; every piece of every spelling
    was weighed, so ten 10,000-character secrets (a private key, say) took 3.7 s before a result was
    scrubbed. Only the first 64 characters of each are read now, and a secret is still found."""
    from contractgen.runtime.scrub import _PIECES_READ, _PREFIX, Scrubber, _rarest_pieces

    scrubber = Scrubber(long + short)
    for spelling, piece in _rarest_pieces(scrubber._lowered):
        assert spelling.find(piece) <= _PIECES_READ - 1, (spelling[:80], piece)
        assert len(piece) == min(_PREFIX, len(spelling))
    for secret in long + short:
        if len(secret) >= 4:
            shown = json.dumps(scrubber.value({"said": ["x" * 20] * 50 + [f"<{secret}>"]}), ensure_ascii=False)
            assert secret not in shown.replace(redaction.REDACTED, "\0")  # what the caller sent, not the marker


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(at=st.sampled_from([1, 1_200]), echo=st.sampled_from(["output", "tool-error", "exception"]))
def test_a_secret_marked_by_its_place_in_a_tuple_never_comes_back(at: int, echo: str,
                                                                    caplog: pytest.LogCaptureFixture) -> None:
    """A prefixItems entry marked writeOnly past the first 1,000 items was cut from the copy
    redaction reads, never found, and the tool's echo of it came back; a tuple with a marked item is
    now read whole as secret, as an array of marked items is."""
    pw = "hunter-" + MARKER
    schema = {"type": "object", "properties": {"row": {"type": "array", "prefixItems": [
        *([{"type": "integer"}] * at), {"type": "string", "writeOnly": True}]}}}
    envelope, seen = _echoed_by_login(schema, {"row": [*range(at), pw]}, lambda args: f"bad {pw}", echo, caplog)
    assert MARKER not in seen
    if at == 1 and echo == "output":  # a short tuple's result still comes back, scrubbed
        assert envelope["status"] == "ok" and envelope["output"] == {"said": "bad [redacted]"}, envelope


@pytest.mark.parametrize("count", [10, 300])
def test_what_is_withheld_past_the_cap_keeps_the_envelopes_shape(count: int) -> None:
    """Past the cap a notice list, partial results and a violation's attempted value were replaced
    whole by the withheld text, so an ok envelope's ``notices`` became a string (an invalid
    envelope); each long text is withheld in its place now."""
    from contractgen.testing import envelope_problems

    secret = {"type": "string", "writeOnly": True}
    keys = [f"key-number-{i:06d}-long" for i in range(count)]
    schema = {"type": "object", "properties": {"keys": {"type": "array", "items": secret}, "owner": {"type": "string"}}}
    contract = Contract(name="t", version="1.0.0", summary="s", description="d", input_schema=schema,
                        output_schema={"type": "object"}, timeout=Timeout(None))
    envelope = guard(contract, lambda a: {"n": 1})({"keys": keys, "ownr": "x"})
    assert envelope_problems(envelope, contract) == [] and isinstance(envelope["notices"], list), envelope
    assert envelope["notices"][0]["did_you_mean"] == "owner"

    def failing(args: Any) -> Any:
        raise ToolError("partly done", code="UNAVAILABLE", partial_results={"done": [keys[0], "ok"]})
    envelope = guard(contract, failing)({"keys": keys})
    assert envelope_problems(envelope, contract) == [] and keys[0] not in json.dumps(envelope)
    assert isinstance(envelope["error"]["partial_results"]["done"], list), envelope
