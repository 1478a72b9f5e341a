"""check refuses an annotation that reads as a guarantee the guard never keeps: the content keywords
of a string (``contentEncoding``, ``contentMediaType``, ``contentSchema``). Each is an error at its key,
and the guard really does accept what the keyword promises to refuse; the ``pattern`` the hint offers
for an encoding accepts exactly the strings of that encoding. Golden case:
tests/cases/check/content-not-enforced. So is ``readOnly: true`` anywhere in an input schema (a value
the caller is told not to send, which the guard accepts); golden case tests/cases/check/read-only-input."""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from contractgen.diagnostics import Level
from contractgen.manifest.parse import ParsedFile
from contractgen.manifest.report import Reporter
from contractgen.manifest.schema_checks import check_embedded_schema
from contractgen.manifest.unkept_annotations import ENCODING_PATTERNS
from contractgen.runtime.patterns import pattern_matches
from contractgen.runtime.schema_check import SchemaCheck


def _errors(schema: dict[str, Any], key: str = "input") -> list[Any]:
    report = Reporter(ParsedFile("t/1.0.0.json"))
    check_embedded_schema(report, key, schema)
    return [d for d in report.diagnostics if d.level is Level.ERROR]


CONTENT_NODES = {
    "base64": ({"contentEncoding": "base64"}, "not base64 {"),
    "base64url": ({"contentEncoding": "base64url"}, "+/ is not url-safe"),
    "json": ({"contentMediaType": "application/json"}, "{not json"),
    "json schema": ({"contentMediaType": "application/json", "contentSchema": {"type": "object",
                                                                              "required": ["id"]}}, "[]"),
    "encoded json": ({"contentEncoding": "base64", "contentMediaType": "application/json",
                      "contentSchema": {"type": "integer"}}, base64.b64encode(b'"text"').decode()),
    "png": ({"contentEncoding": "base64", "contentMediaType": "image/png"}, "%%%"),
}


@pytest.mark.parametrize("key", ["input", "output"])
@pytest.mark.parametrize("case", sorted(CONTENT_NODES))
def test_a_content_keyword_is_an_error_at_its_key(case: str, key: str) -> None:
    """The guard accepts a string the content keywords say is wrong (no validator decodes it), so each
    content keyword is an error at its own key, with a hint."""
    node, broken = CONTENT_NODES[case]
    schema = {"type": "object", "properties": {"blob": {"type": "string", "description": "d", **node}}}
    assert SchemaCheck(schema).is_valid({"blob": broken})  # the promise is not kept by the guard
    found = {d.pointer: d for d in _errors(schema, key) if d.code == "content-not-enforced"}
    assert set(found) == {f"/{key}/properties/blob/{keyword}" for keyword in node}
    assert all(d.hint for d in found.values())


def test_a_content_keyword_anywhere_in_the_schema_is_found() -> None:
    schema = {"type": "object", "$defs": {"doc": {"type": "string", "contentMediaType": "text/html"}},
              "properties": {"items": {"type": "array", "items": {"$ref": "#/$defs/doc"}, "description": "d"}}}
    found = [d.pointer for d in _errors(schema) if d.code == "content-not-enforced"]
    assert found == ["/input/$defs/doc/contentMediaType"]


ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_=%"


def _decodes(encoding: str, text: str) -> bool:
    try:
        if encoding == "base64":
            # RFC 4648 4: whole groups of four, padding only at the end (b64decode ignores what follows
            # a complete group's padding, and a stray "=" after eight characters decoded)
            body = text.rstrip("=")
            if len(text) % 4 or len(text) - len(body) > 2 or "=" in body:
                return False
            base64.b64decode(text, validate=True)
        elif encoding == "base64url":
            if not re.fullmatch(r"[A-Za-z0-9_-]*=*", text):
                return False
            body = text.rstrip("=")
            if len(text) - len(body) not in (0, -len(body) % 4):
                return False
            base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
        else:
            base64.b16decode(text, casefold=True)
    except (binascii.Error, ValueError):
        return False
    return True


@settings(max_examples=300, deadline=None)
@given(encoding=st.sampled_from(sorted(ENCODING_PATTERNS)), raw=st.binary(max_size=12),
       noise=st.text(ALPHABET, max_size=10), padded=st.booleans())
@example(encoding="base64", raw=b"", noise="00000000=", padded=False)
def test_the_hinted_pattern_accepts_exactly_the_encoding(encoding: str, raw: bytes, noise: str,
                                                         padded: bool) -> None:
    """The guard's own pattern engine, on encoded bytes (with and without base64url's padding) and on
    arbitrary text of the alphabet: the pattern matches exactly the strings that decode."""
    pattern = ENCODING_PATTERNS[encoding]
    encoded = {"base64": base64.b64encode, "base64url": base64.urlsafe_b64encode,
               "base16": base64.b16encode}[encoding](raw).decode()
    if encoding == "base64url" and not padded:
        encoded = encoded.rstrip("=")
    assert pattern_matches(pattern, encoded) is True
    if encoding == "base16":
        noise = noise.upper()
    assert pattern_matches(pattern, noise) is _decodes(encoding, noise), noise


#: places of one readOnly mark in an input schema, with the pointer of its key and a call sending it
READ_ONLY_PLACES = {
    "a property": ({"properties": {"id": {"type": "string", "readOnly": True, "description": "d"}}},
                   "/properties/id/readOnly", {"id": "x"}),
    "a nested property": ({"properties": {"user": {"type": "object", "description": "d", "properties": {
        "created": {"type": "string", "readOnly": True}}}}}, "/properties/user/properties/created/readOnly",
        {"user": {"created": "2026-01-01"}}),
    "a definition": ({"$defs": {"stamp": {"type": "integer", "readOnly": True}},
                      "properties": {"at": {"$ref": "#/$defs/stamp", "description": "d"}}},
                     "/$defs/stamp/readOnly", {"at": 1}),
    "an allOf branch": ({"allOf": [{"properties": {"etag": {"type": "string", "readOnly": True}}}]},
                        "/allOf/0/properties/etag/readOnly", {"etag": "e"}),
    "the root": ({"readOnly": True}, "/readOnly", {}),
}


@pytest.mark.parametrize("place", sorted(READ_ONLY_PLACES))
def test_read_only_in_the_input_is_an_error_at_its_key(place: str) -> None:
    """The guard accepts a call sending the readOnly value, so the mark is an error wherever it sits
    in the input; in the output (where it belongs), and as ``readOnly: false``, it is not."""
    node, where, call = READ_ONLY_PLACES[place]
    schema = {"type": "object", **node}
    assert SchemaCheck(schema).is_valid(call)
    found = [d for d in _errors(schema) if d.code == "read-only-input"]
    assert [d.pointer for d in found] == [f"/input{where}"] and found[0].hint
    assert not [d for d in _errors(schema, "output") if d.code == "read-only-input"]
    text = json.dumps(schema).replace('"readOnly": true', '"readOnly": false')
    assert not [d for d in _errors(json.loads(text)) if d.code == "read-only-input"]
