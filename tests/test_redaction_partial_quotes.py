"""A tool quoting only part of a secret it was sent: the start or end of it never comes back.

The scrubber took out every spelling of a whole secret, so a tool writing ``key[:20]`` or the last 12
characters of a 40-character key sent that much of it to the model. Any start or end of a secret of
``scrub.piece_length`` characters or more (8, and a quarter of it) is now taken out, as far as the
text goes on quoting it; a shorter piece (a 4-letter word a secret starts with) stays.
"""

from __future__ import annotations

import hashlib
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from contractgen.runtime import Contract, Timeout, ToolError, guard
from contractgen.runtime.scrub import MIN_PIECE, Scrubber, piece_length

SCHEMA = {"type": "object", "properties": {"api_key": {"type": "string", "writeOnly": True}},
          "required": ["api_key"]}
KEY_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in _strings(k) + _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _called(quoting: Any, echo: str) -> Any:
    """The guarded tool: one call of a tool that writes ``quoting(key)`` where ``echo`` says."""
    def implementation(args: Any) -> Any:
        text = quoting(args["api_key"])
        if echo == "tool-error":
            raise ToolError(text, code="PERMISSION_DENIED")
        if echo == "partial":
            raise ToolError("partly done", code="UNAVAILABLE", partial_results={"note": text})
        return {"note": text}
    tool = guard(Contract(name="connect", version="1.0.0", summary="s", description="d", input_schema=SCHEMA,
                          output_schema={"type": "object"}, timeout=Timeout(None)), implementation)
    return tool


def _quoted(secret: str, cut: int, end: str) -> str:
    return secret[:cut] if end == "start" else secret[-cut:]


@settings(max_examples=60, deadline=None)
@given(secret=st.text(KEY_CHARS, min_size=MIN_PIECE + 1, max_size=80), data=st.data(),
       end=st.sampled_from(["start", "end"]), echo=st.sampled_from(["tool-error", "output", "partial"]),
       upper=st.booleans())
@example(secret="sk-" + "x7Q" * 12 + "z", data=None, end="start", echo="tool-error", upper=False)
def test_a_start_or_end_of_a_secret_a_tool_quotes_never_comes_back(
        secret: str, data: Any, end: str, echo: str, upper: bool) -> None:
    """A tool raising ``ToolError(f"key {key[:20]}... rejected")`` or returning ``{"note": "ending in "
    + key[-12:]}`` sent that much of the key to the model; the quote is now ``[redacted]``, in any case."""
    length = piece_length(len(secret))
    cut = min(20, len(secret) - 1) if data is None else data.draw(st.integers(length, len(secret) - 1), "cut")
    quoted = _quoted(secret, cut, end)
    shown = quoted.upper() if upper else quoted
    envelope = _called(lambda key: f"key {shown}... rejected", echo)({"api_key": secret})
    texts = _strings(envelope)
    assert not any(quoted.lower() in text.lower() for text in texts), (quoted, envelope)
    assert any("[redacted]" in text for text in texts), envelope
    assert envelope["status"] == ("ok" if echo == "output" else "error"), envelope


@settings(max_examples=40, deadline=None)
@given(secret=st.text(KEY_CHARS + "/\"' é+%", min_size=MIN_PIECE + 1, max_size=60), data=st.data(),
       end=st.sampled_from(["start", "end"]))
def test_a_quoted_start_or_end_is_taken_out_in_every_escaped_spelling(secret: str, data: Any, end: str) -> None:
    """The quote is looked for as each whole secret is: escaped as JSON, HTML or a URL, or hex."""
    import html
    import json
    from urllib.parse import quote
    quoted = _quoted(secret, data.draw(st.integers(piece_length(len(secret)), len(secret) - 1), "cut"), end)
    scrubber = Scrubber([secret])
    for spelt in (quoted, json.dumps(quoted)[1:-1], html.escape(quoted), quote(quoted, safe=""),
                  quoted.encode().hex()):
        out = scrubber.text(f"refused: {spelt} (twice: {spelt})")
        assert spelt not in out, (spelt, out)


@given(secret=st.text(KEY_CHARS, min_size=MIN_PIECE + 1, max_size=80), word=st.integers(1, MIN_PIECE - 1))
@settings(max_examples=30, deadline=None)
def test_a_short_word_a_secret_starts_or_ends_with_stays(secret: str, word: int) -> None:
    """Fewer than MIN_PIECE characters are ordinary text (``pass``, ``sk-A``): not taken out."""
    scrubber = Scrubber([secret])
    for text in (f"see {secret[:word]} docs", f"see {secret[-word:]} docs"):
        assert scrubber.text(text) == text


def test_a_quote_of_a_ten_thousand_character_secret_is_taken_out_whole() -> None:
    """A long secret costs its length once per quote, not per character (the quote is widened by
    hand, not by a pattern per cut point)."""
    secret = "".join(hashlib.sha256(str(i).encode()).hexdigest() for i in range(157))[:10_000]
    scrubber = Scrubber([secret])
    text = " ".join([secret[:9_000], secret[-3_000:], secret[:2_499]])
    assert scrubber.text(text) == "[redacted] [redacted] " + secret[:2_499]


def test_past_the_secrets_cap_a_quoted_start_is_withheld() -> None:
    """Past SECRETS_CAP the texts that may hold a secret are withheld, and a text as short as a quoted
    start (a quarter of the key, shorter than the half a whole spelling takes) counts among them."""
    from contractgen.runtime.scrub import SECRETS_CAP, WITHHELD
    keys = [hashlib.sha256(str(i).encode()).hexdigest()[:40] for i in range(SECRETS_CAP + 10)]
    schema = {"type": "object", "properties": {"keys": {"type": "array", "items": {"type": "string", "writeOnly": True}}}}

    def implementation(args: Any) -> Any:
        raise ToolError(args["keys"][0][:12], code="PERMISSION_DENIED")
    tool = guard(Contract(name="connect", version="1.0.0", summary="s", description="d", input_schema=schema,
                          output_schema={"type": "object"}, timeout=Timeout(None)), implementation)
    envelope = tool({"keys": keys})
    assert not any(keys[0][:12] in text for text in _strings(envelope)), envelope
    assert WITHHELD in _strings(envelope), envelope
