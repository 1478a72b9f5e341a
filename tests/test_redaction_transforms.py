"""A secret the call sent is taken out of what the tool writes in the spellings text gives it.

Hypothesis draws a secret (letters, digits and the punctuation passwords hold), a spelling a tool or
an upstream gives it (as is, upper-cased, JSON- (PHP's too), HTML-, hex- or percent-encoded, base64
alone or inside a ``Basic`` credential where it starts at any byte), and a place the tool writes it: a ToolError's
message or upstream text, an exception the log prints, its own ok output. The envelope and the log
never hold the spelling, nor the secret itself.
"""

from __future__ import annotations

import base64
import html
import json
import logging
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from contractgen.runtime import Contract, Timeout, ToolError, guard

ALPHABET = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789!#$%&*+-/:;<=>?@^_~'\""
SPELLINGS = {
    "as-is": lambda s: s,
    "upper": str.upper,
    "json": lambda s: json.dumps(s)[1:-1],
    "html": html.escape,
    "percent": lambda s: quote(s, safe=""),
    "percent-path": quote,
    "json-php": lambda s: json.dumps(s)[1:-1].replace("/", "\\/"),
    "hex": lambda s: s.encode().hex(),
    "hex-upper": lambda s: s.encode().hex().upper(),
    "base64": lambda s: base64.b64encode(s.encode()).decode(),
    "base64-urlsafe": lambda s: base64.urlsafe_b64encode(s.encode()).decode(),
    "basic-credential": lambda s: "Basic " + base64.b64encode(f"ann:{s}".encode()).decode(),
    "basic-credential-2": lambda s: "Basic " + base64.b64encode(f"anne:{s}:x".encode()).decode(),
    "basic-credential-3": lambda s: "Basic " + base64.b64encode(f"ann.e:{s}".encode()).decode(),
}
CONTRACT = Contract(name="login", version="1.0.0", summary="s", description="d",
                    input_schema={"type": "object", "properties": {"pw": {"type": "string", "writeOnly": True},
                                                                   "user": {"type": "string"}}},
                    output_schema={"type": "object"}, timeout=Timeout(None))


class Denied(ToolError):
    code = "PERMISSION_DENIED"


def _implementation(place: str, written: str) -> Any:
    def implementation(arguments: Any) -> Any:
        if place == "message":
            raise Denied(f"upstream refused {written} for ann")
        if place == "upstream":
            raise Denied("upstream refused the login", upstream=f"401 for request with {written}")
        if place == "exception":
            raise RuntimeError(f"request failed: headers={{'Authorization': '{written}'}}")
        return {"debug": f"sent {written}"}

    return implementation


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(secret=st.text(ALPHABET, min_size=8, max_size=24), spelling=st.sampled_from(sorted(SPELLINGS)),
       place=st.sampled_from(["message", "upstream", "exception", "output"]))
def test_a_secret_is_taken_out_in_every_spelling(secret: str, spelling: str, place: str,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    def answer(secret: str, written: str) -> str:
        caplog.clear()
        tool = guard(CONTRACT, _implementation(place, written), errors=[Denied])
        with caplog.at_level(logging.DEBUG):
            envelope = tool({"pw": secret, "user": "ann"})
        return json.dumps(envelope, ensure_ascii=False) + caplog.text

    written = SPELLINGS[spelling](secret)
    bare = written.removeprefix("Basic ")
    # a secret that is a word of the envelope or the log themselves ("untruste") proves nothing
    assume(not any(t in answer("PLACEHOLDER-0000", "PLACEHOLDER-0000") for t in (secret, bare)))
    text = answer(secret, written)
    assert bare not in text and json.dumps(bare)[1:-1] not in text
    assert secret not in text
