"""A tool that echoes a secret argument in its own ok output does not send it to the model.

When (and only when) the call carried sensitive values, the ok envelope's strings and keys are
scrubbed of them like error text is; the output check judges the tool's real output first. Hypothesis
varies how the secret is sensitive (marked, behind a ``$ref``, named only, an undeclared secret-named
key in an open schema, nested), how the tool echoes it (as is, inside a sentence, upper-cased,
JSON-escaped, as a key) and which path the guard takes (the fast path, the observed path, async, a
deadline, an empty-result rule, MCP).
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp_support import connected

from contractgen.runtime import Contract, Timeout, guard
from contractgen.runtime.contract import EmptyResult
from contractgen.runtime.mcp_server import build_server

SECRET = "Hunter2-pass/7731"
ECHOES = {
    "as-is": lambda s: {"msg": s},
    "sentence": lambda s: {"msg": f"logged in as {s}"},
    "upper": lambda s: {"msg": s.upper()},
    "json": lambda s: {"msg": json.dumps({"pw": s})},
    "key": lambda s: {"seen": {s: True}},
    "list": lambda s: {"items": ["a", f"x{s}y"]},
}


def _schemas(how: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(input schema, arguments holding SECRET) for one way of being sensitive."""
    closed = {"type": "object", "additionalProperties": False}
    if how == "marked":
        return {**closed, "properties": {"pw": {"type": "string", "writeOnly": True}, "user": {"type": "string"}}}, \
            {"pw": SECRET, "user": "ann"}
    if how == "x-sensitive-ref":
        return {**closed, "properties": {"pw": {"$ref": "#/$defs/S"}, "user": {"type": "string"}},
                "$defs": {"S": {"type": "string", "x-sensitive": True}}}, {"pw": SECRET, "user": "ann"}
    if how == "named":
        return {**closed, "properties": {"password": {"type": "string"}, "user": {"type": "string"}}}, \
            {"password": SECRET, "user": "ann"}
    if how == "undeclared":
        return {"type": "object", "properties": {"user": {"type": "string"}}}, {"user": "ann", "api_key": SECRET}
    if how == "nested-undeclared":
        return {"type": "object", "properties": {"user": {"type": "object"}}}, \
            {"user": {"name": "ann", "token": SECRET}}
    raise AssertionError(how)


def _contract(input_schema: dict[str, Any], timeout: float | None = None, empty: bool = False) -> Contract:
    return Contract(name="login", version="1.0.0", summary="s", description="d", input_schema=input_schema,
                    output_schema={"type": "object"}, timeout=Timeout(timeout),
                    empty_result=EmptyResult(pointer="/items", meaning="nothing found") if empty else None)


def _call(contract: Contract, implementation: Any, arguments: dict[str, Any], path: str) -> dict[str, Any]:
    if path == "fast":
        return dict(guard(contract, implementation)(arguments))
    if path == "observed":
        return dict(guard(contract, implementation, on_call=lambda record: None)(arguments))
    if path == "async":
        async def tool(value: Any) -> Any:
            return implementation(value)
        return dict(asyncio.run(guard(contract, tool).acall(arguments)))
    if path == "sync-in-async":
        return dict(asyncio.run(guard(contract, implementation).acall(arguments)))
    raise AssertionError(path)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(how=st.sampled_from(["marked", "x-sensitive-ref", "named", "undeclared", "nested-undeclared"]),
       echo=st.sampled_from(sorted(ECHOES)), path=st.sampled_from(["fast", "observed", "async", "sync-in-async"]),
       deadline=st.sampled_from([None, 5.0]))
def test_an_ok_output_never_echoes_a_secret_the_call_sent(how: str, echo: str, path: str, deadline: float | None,
                                                          caplog: pytest.LogCaptureFixture) -> None:
    input_schema, arguments = _schemas(how)
    make = ECHOES[echo]
    envelope = _call(_contract(input_schema, deadline), lambda value: make(SECRET), arguments, path)
    assert envelope["status"] == "ok"
    text = json.dumps(envelope, ensure_ascii=False)
    assert SECRET.lower() not in text.lower() and json.dumps(SECRET)[1:-1] not in text
    assert "[redacted]" in text


def test_an_ok_output_of_a_call_without_secrets_is_the_tools_own() -> None:
    """The scrub needs a secret sent in this call: the same text as a plain argument comes back."""
    input_schema, _ = _schemas("marked")
    result = {"msg": f"logged in as {SECRET}", "n": 1}
    envelope = guard(_contract(input_schema), lambda value: dict(result))({"user": SECRET})
    assert envelope["status"] == "ok" and envelope["output"] == result


def test_an_ok_output_with_an_empty_rule_and_over_mcp_never_echoes_the_secret(caplog: pytest.LogCaptureFixture) -> None:
    input_schema, arguments = _schemas("marked")
    envelope = guard(_contract(input_schema, empty=True), lambda value: {"msg": f"hi {SECRET}"})(arguments)
    assert envelope["status"] == "ok" and SECRET not in json.dumps(envelope)
    server = build_server([guard(_contract(input_schema), lambda value: {"msg": f"hi {SECRET}"})], name="echo")

    async def main() -> str:
        async with connected(server) as session:
            result = await session.call_tool("login", arguments)
            assert result.is_error is False
            return result.model_dump_json()

    with caplog.at_level(logging.DEBUG):
        text = anyio.run(main)
    assert SECRET not in text + caplog.text and "hi [redacted]" in text


@pytest.mark.parametrize("path", ["fast", "observed", "async"])
@pytest.mark.parametrize("mark", ["writeOnly", "x-sensitive"])
def test_an_output_value_marked_sensitive_is_withheld(path: str, mark: str) -> None:
    """check refuses the mark (sensitive-output); a contract built without check still keeps it."""
    output_schema = {"type": "object", "properties": {"session": {"type": "string"},
                                                      "refresh": {"$ref": "#/$defs/R"}},
                     "$defs": {"R": {"type": "string", mark: True}}}
    contract = Contract(name="login", version="1.0.0", summary="s", description="d",
                        input_schema={"type": "object", "additionalProperties": False,
                                      "properties": {"user": {"type": "string"}}},
                        output_schema=output_schema, timeout=Timeout(None))
    envelope = _call(contract, lambda value: {"session": "s-1", "refresh": "rt-9931-secret"}, {"user": "ann"}, path)
    assert envelope["status"] == "ok"
    assert envelope["output"] == {"session": "s-1", "refresh": "[redacted]"}


@pytest.mark.parametrize("weak", ["password", "letmein1", "Secret123"])
@pytest.mark.parametrize("echo", ["output", "tool-error"])
def test_a_weak_password_is_taken_out_wherever_the_tool_writes_it(weak: str, echo: str) -> None:
    """The chosen rule (docs/runtime.md): a writeOnly value that is also an ordinary word is taken
    out wherever the tool writes that word, in any case. The scrubber cannot tell the tool's own
    word from an echo of the secret, and a weak password is still the user's password: the careful
    side, at the price of the word. A word the call did not send stays."""
    from contractgen.runtime import ToolError

    schema = {"type": "object", "properties": {"user": {"type": "string"},
                                               "password": {"type": "string", "writeOnly": True}}}
    said = f"{weak.upper()} changed for bob; the old {weak} was weak; other words stay"

    def implementation(args: Any) -> Any:
        if echo == "tool-error":
            raise ToolError(said, code="PERMISSION_DENIED")
        return {"msg": said}
    tool = guard(Contract(name="login", version="1.0.0", summary="s", description="d", input_schema=schema,
                          output_schema={"type": "object"}, timeout=Timeout(None)), implementation)
    envelope = tool({"user": "bob", "password": weak})
    shown = json.dumps(envelope)
    assert weak.lower() not in shown.lower(), envelope
    assert "[redacted] changed for bob; the old [redacted] was weak; other words stay" in shown, envelope
