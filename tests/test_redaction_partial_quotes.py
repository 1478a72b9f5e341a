"""A tool quoting only part of a secret it was sent: no start, end or run of it comes back.

The scrubber took out every spelling of a whole secret, so a tool writing ``key[:20]`` or the last 12
characters of a 40-character key sent that much of it to the model. Any start or end of a secret of
``scrub.piece_length`` characters or more (8, and a quarter of it) is now taken out, as far as the
text goes on quoting it; a shorter piece (a 4-letter word a secret starts with) stays. And any run
of ``quotes.MIN_QUOTE`` (16) characters from anywhere in it (``key[5:30]``, the first 20 of a
200-character secret), as is or encoded, goes with all the text shares with the secret.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from contractgen.runtime import Contract, Timeout, ToolError, guard
from contractgen.runtime.quotes import MIN_QUOTE
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
        if echo == "exception":
            raise RuntimeError(text)
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
    text = " ".join([secret[:9_000], secret[-3_000:], secret[4_000:6_499], secret[100:100 + MIN_QUOTE - 1]])
    assert scrubber.text(text) == "[redacted] [redacted] [redacted] " + secret[100:100 + MIN_QUOTE - 1]


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


def _spelt(quote: str, spelling: str) -> tuple[str, str]:
    """(the text a tool writes holding ``quote`` in ``spelling``, the part of it that tells the quote)."""
    if spelling == "upper":
        return quote.upper(), quote.upper()
    if spelling == "hex":
        return quote.encode().hex(), quote.encode().hex()
    prefix = {"base64": "", "base64 inside": "user:", "urlsafe inside": "xy"}[spelling]
    encode = base64.urlsafe_b64encode if spelling.startswith("urlsafe") else base64.b64encode
    encoded = encode((prefix + quote).encode()).decode()
    # the groups only the quote's bytes decide: from the first whole group after the prefix
    first = -(-len(prefix) // 3) * 4
    return encoded, encoded[first:first + (len(quote) - 2) // 3 * 4 - 4]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(secret=st.text(KEY_CHARS, min_size=MIN_QUOTE + 1, max_size=200), data=st.data(),
       echo=st.sampled_from(["tool-error", "output", "partial", "exception"]),
       spelling=st.sampled_from(["as is", "upper", "hex", "base64", "base64 inside", "urlsafe inside"]))
@example(secret="sk-" + "x7Q" * 12 + "z", data=None, echo="tool-error", spelling="as is")
@example(secret="XPERMISSION_DENIED", data=None, echo="tool-error", spelling="as is")  # the code's own name
@example(secret="".join(hashlib.sha256(str(i).encode()).hexdigest() for i in range(4))[:200], data=None,
         echo="output", spelling="as is")
def test_a_run_from_anywhere_in_a_secret_never_comes_back(
        secret: str, data: Any, echo: str, spelling: str, caplog: Any) -> None:
    """``key[5:30]`` of a 40-character key, or the first 20 characters of a 200-character secret
    (shorter than the quarter a start needs), came back whole in a ToolError, partial results, the
    ok output or an exception's logged text; and so did base64 or hex of it. Any run of MIN_QUOTE
    characters from anywhere in the secret is now taken out, in any of those spellings."""
    if data is None:  # the examples: key[5:30], and the first 20 characters of 200
        start, length = (5, 25) if len(secret) < 200 else (0, 20)
    else:
        start = data.draw(st.integers(0, len(secret) - MIN_QUOTE), "start")
        length = data.draw(st.integers(MIN_QUOTE, len(secret) - start), "length")
    quote = secret[start:start + length]
    written, telling = _spelt(quote, spelling) if spelling != "as is" else (quote, quote)

    def shown_by(tool_text: str) -> tuple[Any, list[str], str]:
        caplog.clear()
        with caplog.at_level(logging.DEBUG, logger="contractgen"):
            envelope = _called(lambda key: tool_text, echo)({"api_key": secret})
        texts = _strings(envelope) + [record.getMessage() + str(record.exc_text or "") for record in caplog.records]
        if echo == "exception":
            import traceback
            texts += ["".join(traceback.format_exception(*record.exc_info))
                      for record in caplog.records if record.exc_info]
        return envelope, texts, json.dumps(texts).lower()

    envelope, texts, shown = shown_by(f"refused ({written}) for this call")
    # the guard's own words (a code, an action, the log line) may hold a run of a random secret
    # (PERMISSION_DENIE0 against permission_denied): only what the quote adds is a leak
    _, _, unquoted = shown_by("refused () for this call")
    assert shown.count(quote.lower()) <= unquoted.count(quote.lower()), (quote, texts)
    if len(telling) >= MIN_QUOTE:
        assert shown.count(telling.lower()) <= unquoted.count(telling.lower()), (telling, texts)
    assert envelope["status"] == ("ok" if echo == "output" else "error"), envelope


@settings(max_examples=30, deadline=None)
@given(secret=st.text(KEY_CHARS, min_size=MIN_QUOTE + 1, max_size=120), data=st.data())
def test_a_run_shorter_than_min_quote_from_the_middle_stays(secret: str, data: Any) -> None:
    """Ordinary text a secret holds (``password``, ``https://``) stays where the tool writes it of
    its own: a run of fewer than MIN_QUOTE characters from the middle is no quote of it."""
    length = data.draw(st.integers(1, MIN_QUOTE - 1), "length")
    start = data.draw(st.integers(1, len(secret) - length - 1), "start")
    run = secret[start:start + length]
    text = f"see\x01{run}\x01docs"  # the characters around it are none of the secret's
    assert Scrubber([secret]).text(text) == text or run.lower() in (secret[:start].lower(), secret[-length:].lower()) \
        or length >= piece_length(len(secret)), text


def test_a_run_echoed_in_an_argument_error_is_taken_out() -> None:
    """A field holding a run of the key beside it (``"x" + key[4:28] + "y"``) was echoed whole in
    the violation's "attempted": the secrets were looked for only when a shown text was held twice."""
    key = "sk-" + hashlib.sha256(b"run").hexdigest()[:37]
    schema = {"type": "object", "properties": {"api_key": {"type": "string", "writeOnly": True},
                                               "note": {"type": "string", "maxLength": 5}}}
    tool = guard(Contract(name="connect", version="1.0.0", summary="s", description="d", input_schema=schema,
                          output_schema={"type": "object"}, timeout=Timeout(None)), lambda a: {})
    envelope = tool({"api_key": key, "note": "x" + key[4:28] + "y"})
    assert envelope["error"]["code"] == "INVALID_ARGUMENT", envelope
    assert key[4:28] not in json.dumps(envelope) and "[redacted]" in json.dumps(envelope), envelope


def test_finding_runs_of_long_and_many_secrets_is_bounded() -> None:
    """The pieces kept of ten 10,000-character secrets and 256 keys stay within their budget (each
    a dict entry), a run of the longest secret is still found, and a text of 100,000 places sharing
    a piece with a secret is taken out whole rather than widened place by place."""
    from contractgen.runtime import quotes

    long = ["".join(hashlib.sha256(f"{k}-{i}".encode()).hexdigest() for i in range(157))[:10_000] for k in range(10)]
    keys = [hashlib.sha256(str(i).encode()).hexdigest()[:40] for i in range(256)]
    scrubber = Scrubber(long + keys)
    index = scrubber._quotes
    assert index is not None and len(index._pieces) <= quotes._PIECES_KEPT + 1_000
    assert index.guaranteed_run <= 60
    quoted = long[7][3_000:3_000 + index.guaranteed_run]
    assert quoted not in scrubber.text(f"said {quoted} here")
    assert keys[9][3:3 + MIN_QUOTE] not in scrubber.text(f"said {keys[9][3:3 + MIN_QUOTE]} here")
    widened = []
    real = quotes._shared_after

    def counting(*args: Any) -> int:
        widened.append(1)
        return real(*args)
    text = (keys[0][:quotes.GRAM] + "-") * 100_000  # its piece at every 9th place
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(quotes, "_shared_after", counting)
        assert scrubber.text(text) == "[redacted]"
    assert len(widened) == 0
