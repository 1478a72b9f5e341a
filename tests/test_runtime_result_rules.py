"""Result rules (integrity, freshness) through the generated retrieve_chunks stub: every call path
(inline sync, deadline sync, async, a pydantic model result) returns an invalid result that names
the rule and the item, and a result that keeps the rules is an ok envelope."""

from __future__ import annotations

import asyncio
import hashlib
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contractgen.runtime import Contract, FreshnessRule, IntegrityRule, guard
from contractgen.runtime.result_rules import compile_result_rules, digest, hashed_bytes
from contractgen.testing import envelope_problems
from generated import retrieve_chunks_v1 as chunks_module

SECRET_TEXT = "the launch code is 0000"  # a chunk's text: never echoed in an envelope


def stamp(hours_ago: float) -> str:
    return (datetime.now(UTC) - timedelta(hours=hours_ago)).isoformat(timespec="seconds")


def chunk(
    content: str, *, hours_ago: float = 1.0, content_hash: str | None = None
) -> dict[str, Any]:
    return {
        "source_id": "doc-1",
        "content": content,
        "content_hash": content_hash or hashlib.sha256(content.encode("utf-8")).hexdigest(),
        "fetch_timestamp": stamp(hours_ago),
    }


def tool(result: Any, **options: Any) -> Any:
    return chunks_module.retrieve_chunks.implement(lambda args: result, **options)


def async_tool(result: Any) -> Any:
    async def run(args: Any) -> Any:
        return result

    return chunks_module.retrieve_chunks.implement(run)


CALL = {"question": "What is the travel allowance?"}


def call_every_way(result: Any) -> list[dict[str, Any]]:
    """The envelope of each call path: inline (no deadline), sync with the contract's deadline,
    async, and the sync tool called from a running event loop."""
    inline = guard(_no_deadline(), lambda args: result)
    envelopes = [
        dict(inline(CALL)),
        dict(tool(result)(CALL)),
        dict(asyncio.run(async_tool(result).acall(CALL))),
    ]
    envelopes.append(dict(asyncio.run(tool(result).acall(CALL))))
    return envelopes


def _no_deadline() -> Contract:
    import dataclasses

    from contractgen.runtime import Timeout

    return dataclasses.replace(chunks_module.CONTRACT, timeout=Timeout(seconds=None))


def test_a_result_that_keeps_the_rules_is_ok_on_every_path() -> None:
    result = {
        "chunks": [chunk("Paris: 120 EUR a day."), chunk("Lyon: 90 EUR a day.", hours_ago=23)]
    }
    for envelope in call_every_way(result):
        assert envelope["status"] == "ok", envelope
        assert envelope["output"] == result
        assert envelope_problems(envelope, chunks_module.CONTRACT) == []


def test_a_wrong_content_hash_is_an_invalid_result_naming_the_rule_and_the_item() -> None:
    wrong = hashlib.sha256(b"another text").hexdigest()
    result = {"chunks": [chunk("fine"), chunk(SECRET_TEXT, content_hash=wrong)]}
    for envelope in call_every_way(result):
        assert envelope["status"] == "error", envelope
        error = envelope["error"]
        assert error["code"] == "INTERNAL" and error["action"] == "stop_and_tell_user"
        assert (
            "/chunks/1/content_hash breaks the integrity rule /chunks/*/content_hash"
            in error["message"]
        )
        assert "sha256 of /chunks/1/content" in error["message"]
        assert SECRET_TEXT not in json.dumps(envelope) and wrong not in json.dumps(envelope)
        assert envelope_problems(envelope, chunks_module.CONTRACT) == []


def test_a_stale_chunk_and_a_chunk_from_the_future_break_the_freshness_rule() -> None:
    stale = {"chunks": [chunk("old news", hours_ago=25)]}
    for envelope in call_every_way(stale):
        assert (
            "/chunks/0/fetch_timestamp breaks the freshness rule /chunks/*/fetch_timestamp: it is older "
            "than 86400 s" in envelope["error"]["message"]
        ), envelope
    ahead = {"chunks": [chunk("fine"), chunk("from tomorrow", hours_ago=-1)]}
    envelope = tool(ahead)(CALL)
    assert "/chunks/1/fetch_timestamp breaks the freshness rule" in envelope["error"]["message"]
    assert "more than 300 s in the future" in envelope["error"]["message"]
    # within the skew (5 minutes in the contract) a clock a little ahead is fine
    assert tool({"chunks": [chunk("just now", hours_ago=-0.02)]})(CALL)["status"] == "ok"


def test_a_model_result_is_judged_in_its_json_form() -> None:
    good = chunks_module.RetrieveChunksV1Output.model_validate({"chunks": [chunk("Paris")]})
    assert tool(good)(CALL)["status"] == "ok"
    bad = chunks_module.RetrieveChunksV1Output.model_validate(
        {"chunks": [chunk("Paris", content_hash="0" * 64)]}
    )
    assert "integrity rule" in tool(bad)(CALL)["error"]["message"]


def test_an_empty_result_breaks_no_rule() -> None:
    envelope = tool({"chunks": []})(CALL)
    assert envelope["status"] == "ok" and envelope["empty"] is True


def test_only_a_tool_with_rules_has_the_result_rules_stage() -> None:
    rules = guard(_no_deadline(), lambda args: {"chunks": []})
    assert "result rules" in rules.plan
    plain = guard(
        __import__("dataclasses").replace(_no_deadline(), result_rules=(), empty_result=None),
        lambda args: {"chunks": []},
    )
    assert "result rules" not in plain.plan


def test_a_contract_without_rules_compiles_to_none() -> None:
    assert (
        compile_result_rules(
            Contract("t", "1.0.0", "s", "d", {"type": "object"}, {"type": "object"})
        )
        is None
    )


def _contract(*rules: Any) -> Contract:
    return Contract(
        "t", "1.0.0", "s", "d", {"type": "object"}, {"type": "object"}, result_rules=rules
    )


def test_hashed_bytes_are_utf8_for_strings_and_canonical_json_otherwise() -> None:
    assert hashed_bytes("café") == "café".encode()
    assert hashed_bytes({"b": 1, "a": ["é", None]}) == '{"a":["é",null],"b":1}'.encode()
    assert digest("sha256", "x") == hashlib.sha256(b"x").hexdigest()


def test_a_payload_hash_covers_the_result_without_itself() -> None:
    problems = compile_result_rules(_contract(IntegrityRule("/payload_hash", "", "sha512")))
    assert problems is not None
    body = {"items": [1, 2], "note": "n"}
    good = {**body, "payload_hash": hashlib.sha512(b'{"items":[1,2],"note":"n"}').hexdigest()}
    assert problems(good) == []
    assert problems({**good, "note": "changed"}) == [
        "/payload_hash breaks the integrity rule /payload_hash: it is not the sha512 of the whole result"
    ]
    # an item's hash over the item itself (without the hash), in nested arrays
    per_item = compile_result_rules(
        _contract(IntegrityRule("/pages/*/rows/*/hash", "/pages/*/rows/*", "md5"))
    )
    assert per_item is not None
    row = {"v": "a"}
    page = {
        "rows": [
            {**row, "hash": hashlib.md5(b'{"v":"a"}').hexdigest().upper()},
            {"v": "b", "hash": "x"},
        ]
    }
    assert per_item({"pages": [page]}) == [
        "/pages/0/rows/1/hash breaks the integrity rule /pages/*/rows/*/hash: it is not the md5 of /pages/0/rows/1"
    ]


def test_a_missing_hashed_value_and_an_unreadable_timestamp_are_named() -> None:
    problems = compile_result_rules(
        _contract(
            IntegrityRule("/c/*/h", "/c/*/text", "sha256"),
            FreshnessRule("/c/*/at", max_age=None, skew=0),
        )
    )
    assert problems is not None
    assert problems({"c": [{"h": "ab", "at": "2020-01-01T00:00:00"}, {"at": None}]}) == [
        "/c/0/h breaks the integrity rule /c/*/h: /c/0/text, the value it hashes, is missing",
        "/c/0/at breaks the freshness rule /c/*/at: it is not a date-time with a UTC offset",
    ]
    # no max_age: any age passes
    assert problems({"c": [{"at": "1999-01-01T00:00:00Z"}]}) == []


def test_problems_are_capped() -> None:
    problems = compile_result_rules(_contract(FreshnessRule("/c/*", max_age=1.0)))
    assert problems is not None
    assert len(problems({"c": ["1999-01-01T00:00:00Z"] * 50})) == 10


def test_an_unknown_algorithm_fails_when_the_contract_is_compiled() -> None:
    with pytest.raises(ValueError):
        compile_result_rules(_contract(IntegrityRule("/h", "/t", "sha-9000")))


def test_the_example_server_answers_retrieve_chunks_over_mcp() -> None:
    """The bundled implementation keeps its contract's rules: a real MCP client gets the chunks."""
    pytest.importorskip("mcp")
    from tests.test_integrations_mcp import envelope_of, run_against_example

    seen: dict[str, Any] = {}

    async def scenario(session: Any) -> None:
        seen["hit"] = envelope_of(
            await session.call_tool("retrieve_chunks", {"question": "What covers hotels?"})
        )

    run_against_example(scenario)
    envelope = seen["hit"]
    assert envelope["status"] == "ok", envelope
    first = envelope["output"]["chunks"][0]
    assert first["source_id"] == "doc-travel-2026"
    assert first["content_hash"] == hashlib.sha256(first["content"].encode()).hexdigest()


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.text(max_size=40), st.booleans()), max_size=12),
    st.sampled_from(["md5", "sha1", "sha256", "sha3_512", "blake2b"]),
)
def test_exactly_the_tampered_items_are_named(
    items: list[tuple[str, bool]], algorithm: str
) -> None:
    """Any texts (any Unicode), any subset tampered: the rule names those items and no others."""
    problems = compile_result_rules(_contract(IntegrityRule("/c/*/h", "/c/*/t", algorithm)))
    assert problems is not None
    output = {
        "c": [
            {
                "t": text,
                "h": hashlib.new(
                    algorithm, (text + "!" if tampered else text).encode()
                ).hexdigest(),
            }
            for text, tampered in items
        ]
    }
    named = [int(p.split("/")[2]) for p in problems(output)]
    assert named == [i for i, (_, tampered) in enumerate(items) if tampered][:10]
