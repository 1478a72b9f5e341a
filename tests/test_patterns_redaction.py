"""A key governed by a sensitive ``patternProperties`` subschema is redacted wherever the guard's
validator says the pattern governs it, also for keys on which Python's ``re`` reads the pattern
otherwise (``\\W`` and ``é``, ``\\D`` and ``٣``, ``\\s`` and U+FEFF, ``\\S`` and U+001C, ``$`` and a
final newline...). Before the walk asked ``runtime/patterns.py``, each of the explicit examples below
echoed the secret in ``attempted``.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from mcp_support import connected, error_texts

from contractgen.runtime import Contract, Timeout, guard
from contractgen.runtime.mcp_server import build_server
from contractgen.runtime.patterns import pattern_matches

MARKER = "SECRETmarker7731"
#: characters on which ECMA-262 (as jsonschema-rs reads it) and Python's re classify differently
TRICKY = "aZ09_-é٣１\u00a0\ufeff\x1c\x85\u2028 \n\t😀ß"
CLASSES = ["\\d", "\\D", "\\w", "\\W", "\\s", "\\S", "[^\\d]", "[\\w-]", "."]
#: (pattern, key) pairs where Python's re says "no match" and the validator says "match"
DISAGREEING = [("^\\W+$", "é"), ("^\\D$", "٣"), ("^\\s+$", "\ufeff"), ("^k\\S$", "k\x1c")]


def _contract(pattern: str, flag: str) -> Contract:
    secret = {"type": "string", "pattern": "^[0-9]+$", flag: True}
    holder = {"type": "object", "patternProperties": {pattern: secret}}
    schema = {"type": "object", "properties": {"outer": holder}, "patternProperties": {pattern: secret}}
    return Contract(name="login", version="1.0.0", summary="s", description="d", input_schema=schema,
                    output_schema={"type": "object"}, timeout=Timeout(None))


def _shapes(key: str) -> list[dict[str, Any]]:
    return [{key: MARKER}, {key: [MARKER]}, {key: MARKER, "other": 1}, {"outer": {key: MARKER}},
            {"outer": {key: {"deep": MARKER}}}]


def _reported(contract: Contract, key: str, caplog: pytest.LogCaptureFixture) -> str:
    records: list[Any] = []
    tool = guard(contract, lambda a: {}, on_call=records.append)
    texts = []
    with caplog.at_level(logging.DEBUG):
        for args in _shapes(key):
            envelope = tool(args)
            assert envelope["status"] == "error", envelope  # the secret fails its own pattern
            texts.append(json.dumps(envelope))
    return "\n".join(texts) + caplog.text + repr(records)


def test_the_examples_are_real_disagreements() -> None:
    """Each example is a key the validator sends to the sensitive subschema and Python's re would not."""
    for pattern, key in DISAGREEING:
        assert pattern_matches(pattern, key) is True
        assert re.search(pattern, key) is None


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cls=st.sampled_from(CLASSES), anchored=st.booleans(), key=st.text(TRICKY, min_size=1, max_size=3),
       flag=st.sampled_from(["writeOnly", "x-sensitive"]))
@example(cls="\\W", anchored=True, key="é", flag="writeOnly")
@example(cls="\\D", anchored=True, key="٣", flag="writeOnly")
@example(cls="\\s", anchored=True, key="\ufeff", flag="x-sensitive")
@example(cls="[a-z]", anchored=True, key="abc\n", flag="writeOnly")
def test_a_key_the_validator_governs_is_redacted(cls: str, anchored: bool, key: str, flag: str,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    pattern = f"^{cls}+$" if anchored else cls
    if pattern_matches(pattern, key) is not True:
        return  # the key is not governed: nothing to redact (the control test below covers echoing)
    caplog.clear()
    assert MARKER not in _reported(_contract(pattern, flag), key, caplog)


def test_an_ungoverned_key_is_still_echoed(caplog: pytest.LogCaptureFixture) -> None:
    """The control: a key the pattern does not govern, under a closed object, is echoed (so the test
    above can fail)."""
    schema = {"type": "object", "additionalProperties": {"type": "string", "pattern": "^[0-9]+$"},
              "patternProperties": {"^\\W+$": {"type": "string", "writeOnly": True}}}
    contract = Contract(name="login", version="1.0.0", summary="s", description="d", input_schema=schema,
                        output_schema={"type": "object"}, timeout=Timeout(None))
    assert pattern_matches("^\\W+$", "a") is False
    records: list[Any] = []
    envelope = guard(contract, lambda a: {}, on_call=records.append)({"a": MARKER})
    assert MARKER in json.dumps(envelope)


@pytest.mark.parametrize(("pattern", "key"), DISAGREEING)
def test_the_marker_never_comes_back_over_mcp(pattern: str, key: str) -> None:
    server = build_server([guard(_contract(pattern, "writeOnly"), lambda a: {})], name="redaction")
    texts = error_texts(server, "login", _shapes(key))
    assert all("INVALID_ARGUMENT" in t for t in texts)
    assert not [t for t in texts if MARKER in t]


def test_the_python_mcp_client_refuses_an_output_pattern_only_ecma_accepts() -> None:
    """Why `check` warns (output-pattern-not-portable): the official client checks outputSchema with
    Python's re, so a `\\p{L}` pattern there fails every call of the tool on the client's side, while
    the guard itself accepts the result."""
    output = {"type": "object", "properties": {"name": {"type": "string", "pattern": "^\\p{L}+$"}}}
    contract = Contract(name="greet", version="1.0.0", summary="s", description="d",
                        input_schema={"type": "object"}, output_schema=output, timeout=Timeout(None))
    tool = guard(contract, lambda a: {"name": "Zoë"})
    assert tool({})["status"] == "ok"
    server = build_server([tool], name="portability")

    async def main() -> None:
        async with connected(server) as session:
            with pytest.raises(RuntimeError, match="Invalid schema"):
                await session.call_tool("greet", {})

    anyio.run(main)
