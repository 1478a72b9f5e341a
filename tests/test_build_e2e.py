"""End to end on the bundled contracts: the committed generated/ is a fresh build, imports, type-checks,
lints, and every tool implemented against it answers good, bad, old-version and failing calls with the
exact envelopes the contract promises."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
from typing import Any

import pytest
from conftest import ROOT, run_cli


def test_committed_generated_matches_a_fresh_build() -> None:
    result = run_cli("build", "--check", "--no-cache")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "up to date" in result.stderr


def test_generated_is_ruff_clean_and_formatted() -> None:
    # contractgen is a third-party package for every project that uses generated code; say so here,
    # where the repo itself would otherwise count it as first party.
    config = ["--config", "lint.isort.known-third-party = ['contractgen']"]
    lint = subprocess.run(check=False, args=[sys.executable, "-m", "ruff", "check", *config, "generated"], cwd=ROOT,
                          capture_output=True, text=True)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    fmt = subprocess.run(check=False, args=[sys.executable, "-m", "ruff", "format", "--check", "generated"], cwd=ROOT,
                         capture_output=True, text=True)
    assert fmt.returncode == 0, fmt.stdout + fmt.stderr


def test_generated_passes_mypy_strict() -> None:
    result = subprocess.run(check=False, args=[sys.executable, "-m", "mypy", "--strict", "--no-incremental", "generated"],
                            cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_registry_lists_every_tool_and_exports() -> None:
    import generated

    assert generated.MODULES == ("book_meeting_v1", "book_meeting_v2", "get_exchange_rate_v1",
                                 "refund_order_v1", "refund_payment_v1", "retrieve_chunks_v1", "search_documents_v1")
    assert generated.LATEST == {"book_meeting": "book_meeting_v2", "get_exchange_rate": "get_exchange_rate_v1",
                                "refund_order": "refund_order_v1", "refund_payment": "refund_payment_v1",
                                "retrieve_chunks": "retrieve_chunks_v1",
                                "search_documents": "search_documents_v1"}
    assert set(generated.STUBS) == set(generated.MODULES) == set(generated.CONTRACTS)
    assert [t["name"] for t in generated.MCP_TOOLS] == sorted(generated.LATEST)
    for module_name in generated.MODULES:
        module = getattr(generated, module_name)
        assert generated.CONTRACTS[module_name] is module.CONTRACT
        assert module.CONTRACT.version.split(".")[0] == module_name.rsplit("_v", 1)[1]
    for action in ("fix_arguments", "retry_later", "stop_and_tell_user", "escalate", "confirm_with_user"):
        assert f"- {action}: " in generated.AGENT_INSTRUCTIONS


def test_mcp_exports_are_valid_mcp_tools() -> None:
    from mcp import types

    import generated

    for module_name in generated.MODULES:
        module = getattr(generated, module_name)
        tool = types.Tool.model_validate(module.MCP_TOOL)
        assert tool.name == module.CONTRACT.name
        assert tool.output_schema == module.OUTPUT_SCHEMA and tool.input_schema == module.INPUT_SCHEMA
        dumped = tool.model_dump(by_alias=True, exclude_none=True)
        assert set(dumped["annotations"]) <= {"title", "readOnlyHint", "destructiveHint", "idempotentHint",
                                              "openWorldHint"}


def test_openai_and_anthropic_exports() -> None:
    import generated

    for module_name in generated.MODULES:
        module = getattr(generated, module_name)
        assert module.OPENAI_TOOL["type"] == "function"
        assert module.OPENAI_TOOL["function"]["parameters"] == module.INPUT_SCHEMA
        assert module.ANTHROPIC_TOOL["input_schema"] == module.INPUT_SCHEMA
        assert re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", module.OPENAI_TOOL["function"]["name"])
        # no bundled contract closes every object with all properties required, so none is strict
        assert module.OPENAI_STRICT_TOOL is None
        assert module.OPENAI_STRICT_UNAVAILABLE.startswith("#")


def test_descriptions_put_errors_last_and_stay_compact() -> None:
    """The author's text first, then contract facts: the declared errors the model can plan for and
    one timeout/retry line last. The exports carry the schemas, so no parameter listing by default."""
    import generated

    for module_name in generated.MODULES:
        module = getattr(generated, module_name)
        text = module.DESCRIPTION
        lines = text.splitlines()
        assert "Parameters:" not in text and "Returns:" not in text
        assert lines[0].startswith(module.CONTRACT.summary.rstrip("."))
        assert lines[-1].startswith(f"Timeout {module.CONTRACT.timeout.seconds:g} s")
        assert lines.index("Errors:") < len(lines) - 2  # every bundled tool has an error to plan for
        for spec in module.CONTRACT.errors:
            if spec.field:  # an error tied to an argument is always listed, with its own message
                assert f"- {spec.code} [{spec.field}]: {spec.message.strip()}" in text
        assert len(text) < 1200, f"{module_name}: {len(text)} characters"
    assert "DEPRECATED since 2.0.0, removed after 2027-06-30" in generated.book_meeting_v1.DESCRIPTION
    assert "Empty result (/results empty)" in generated.search_documents_v1.DESCRIPTION
    # the generic codes are described once, for every tool
    assert "- INTERNAL: a defect in the tool" in generated.AGENT_INSTRUCTIONS
    assert "- INTERNAL" not in generated.refund_payment_v1.DESCRIPTION


# -- calling every tool -------------------------------------------------------------------------

MEETING_V2 = {"title": "Quarterly review", "start_date": "2026-12-01T15:00:00", "time_zone": "Europe/Paris",
              "duration_minutes": 60, "attendees": [{"email": "ana@example.com"}]}
MEETING_V1 = {"title": "Quarterly review", "date": "2026-12-01T15:00:00+01:00", "duration_minutes": 60,
              "attendees": ["ana@example.com"]}
REFUND = {"payment_id": "pay_3KfT9aQx2L", "amount_cents": 2500, "currency": "EUR", "reason": "duplicate"}


def _ok(tool: str, version: str, output: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"status": "ok", "tool": tool, "version": version, "output": output, "empty": False, **extra}


def _error(tool: str, version: str, **error: Any) -> dict[str, Any]:
    return {"status": "error", "tool": tool, "version": version, "error": error}


def test_book_meeting_v2_envelopes() -> None:
    from generated import book_meeting_v2 as m

    @m.book_meeting.implement
    def book(arguments: m.BookMeetingV2Input) -> m.BookMeetingV2Output:
        assert isinstance(arguments, m.BookMeetingV2Input)
        if arguments.title == "taken":
            raise m.SlotTaken()
        if arguments.title == "crash":
            raise RuntimeError("database password is hunter2")
        assert isinstance(arguments.start_date, str)  # local time, no offset: text, read in time_zone
        return m.BookMeetingV2Output(meeting_id="m-1", starts_at=arguments.start_date + "+01:00", status="confirmed")

    assert book(MEETING_V2) == _ok("book_meeting", "2.0.0", {"meeting_id": "m-1",
                                                              "starts_at": "2026-12-01T15:00:00+01:00",
                                                              "status": "confirmed"})
    assert book({**MEETING_V2, "title": "taken"}) == _error(
        "book_meeting", "2.0.0", code="CONFLICT", category="business",
        message="The slot is already booked. Pick another start_date from the user's free time and call again.",
        action="fix_arguments", retryable=True, field="/start_date")
    bad = book({**MEETING_V2, "duration_minutes": 1})
    assert bad["error"]["code"] == "INVALID_ARGUMENT" and bad["error"]["field"] == "/duration_minutes"
    assert bad["error"]["constraint"] == "minimum" and bad["error"]["attempted"] == 1
    offset = book({**MEETING_V2, "start_date": "2026-12-01T15:00:00+01:00"})  # the zone goes in time_zone
    assert offset["error"]["code"] == "INVALID_ARGUMENT" and offset["error"]["field"] == "/start_date"
    assert offset["error"]["constraint"] == "pattern"
    bad_email = book({**MEETING_V2, "attendees": [{"email": "not-an-address"}]})
    assert bad_email["error"]["code"] == "INVALID_ARGUMENT" and bad_email["error"]["field"] == "/attendees/0/email"
    old = book(MEETING_V1)
    assert old["status"] == "error" and old["error"]["code"] == "VERSION_MISMATCH"
    assert old["error"]["expected_version"] == "2.0.0" and old["error"]["received_version"] == ">=1,<2"
    assert old["error"]["migration"][0] == "rename 'date' to 'start_date'"
    crash = book({**MEETING_V2, "title": "crash"})
    assert crash["error"]["code"] == "INTERNAL" and "hunter2" not in str(crash)
    assert re.fullmatch(r"[0-9a-f]{8}", crash["error"]["ref"])


def test_book_meeting_v1_and_v2_live_side_by_side() -> None:
    from generated import book_meeting_v1 as v1
    from generated import book_meeting_v2 as v2

    old = v1.book_meeting.implement(lambda a: {"meeting_id": "m-0", "starts_at": a.date.isoformat()})
    new = v2.book_meeting.implement(lambda a: {"meeting_id": "m-2", "starts_at": "2026-12-01T15:00:00+01:00",
                                               "status": "tentative"})
    first = old(MEETING_V1)
    # the deprecated version's first success in a session says what replaces it (once)
    assert first.pop("deprecation")["replacement"] == "book_meeting 2.0.0"  # type: ignore[misc]
    assert first == _ok("book_meeting", "1.2.0", {"meeting_id": "m-0", "starts_at": "2026-12-01T15:00:00+01:00"})
    assert old(MEETING_V1) == first
    assert new(MEETING_V2)["output"]["status"] == "tentative"
    # a date-time without its offset is no RFC 3339 date-time: a silent failure, never ok
    no_offset = v2.book_meeting.implement(lambda a: {"meeting_id": "m-2", "starts_at": "2026-12-01T15:00:00",
                                                     "status": "tentative"})
    assert no_offset(MEETING_V2)["error"]["code"] == "INTERNAL"
    assert new(MEETING_V2, contract_version="1.2.0")["error"]["code"] == "VERSION_MISMATCH"


def test_search_documents_envelopes_sync_and_async() -> None:
    from generated import search_documents_v1 as m

    @m.search_documents.implement
    async def search(arguments: m.SearchDocumentsV1Input) -> m.SearchDocumentsV1Output | dict[str, Any]:
        if arguments.query == "nothing here":
            return m.SearchDocumentsV1Output(results=[], complete=True)
        if arguments.query == "degraded":
            raise m.ArchiveDegraded(partial_results={"results": [{"document_id": "d1", "title": "T", "score": 0.5}]})
        return {"results": [{"document_id": "d1", "title": "Travel policy", "score": 0.9}], "complete": True}

    assert asyncio.run(search.acall({"query": "travel"})) == _ok(
        "search_documents", "1.0.0", {"results": [{"document_id": "d1", "title": "Travel policy", "score": 0.9}],
                                      "complete": True})
    assert search({"query": "nothing here"}) == _ok(
        "search_documents", "1.0.0", {"results": [], "complete": True}, empty=True,
        empty_meaning="No document matches the query. Tell the user nothing was found; do not repeat the same "
                      "search. Try broader keywords only if the user agrees.")
    assert search({"query": "degraded"}, session="s1") == _error(
        "search_documents", "1.0.0", code="UNAVAILABLE", category="transient",
        message=m.ArchiveDegraded.spec.message, action="retry_later", retryable=True,
        partial_results={"results": [{"document_id": "d1", "title": "T", "score": 0.5}]},
        budget={"consecutive_failures": 1, "limit": 2, "exhausted": False})
    assert search({"query": "x"})["error"]["constraint"] == "minLength"


def test_refund_payment_envelopes() -> None:
    from generated import refund_payment_v1 as m

    @m.refund_payment.implement
    def refund(arguments: m.RefundPaymentV1Input) -> dict[str, Any]:
        if arguments.amount_cents > 100_000 and arguments.approval_code is None:
            raise m.RefundOverLimit()
        return {"refund_id": "re_1", "status": "pending", "amount_cents": arguments.amount_cents,
                "currency": arguments.currency}

    assert refund(REFUND) == _ok("refund_payment", "1.0.0", {"refund_id": "re_1", "status": "pending",
                                                             "amount_cents": 2500, "currency": "EUR"})
    assert refund({**REFUND, "amount_cents": 200_000}) == _error(
        "refund_payment", "1.0.0", code="FAILED_PRECONDITION", category="business",
        message=m.RefundOverLimit.spec.message, action="escalate", retryable=False, field="/amount_cents")
    assert refund({**REFUND, "currency": "JPY"})["error"]["field"] == "/currency"
    assert refund(REFUND, contract_version="0.9.0")["error"]["code"] == "VERSION_MISMATCH"


def test_exchange_rate_budget_stops_retries() -> None:
    from generated import get_exchange_rate_v1 as m

    @m.get_exchange_rate.implement
    def rate(arguments: m.GetExchangeRateV1Input) -> dict[str, Any]:
        raise m.ProviderRateLimited(retry_after=3)

    first = rate({"base": "EUR", "quote": "USD"}, session="budget")
    assert first == _error("get_exchange_rate", "1.0.0", code="RATE_LIMITED", category="transient",
                           message=m.ProviderRateLimited.spec.message, action="retry_later", retryable=True,
                           retry_after=3, budget={"consecutive_failures": 1, "limit": 2, "exhausted": False})
    second = rate({"base": "EUR", "quote": "USD"}, session="budget")
    assert second["error"]["action"] == "stop_and_tell_user" and second["error"]["budget"]["exhausted"] is True
    assert rate({"base": "eur", "quote": "USD"})["error"]["field"] == "/base"


@pytest.mark.parametrize("module_name", ["book_meeting_v1", "book_meeting_v2", "get_exchange_rate_v1",
                                         "refund_payment_v1", "retrieve_chunks_v1", "search_documents_v1"])
def test_every_contract_example_passes_the_guard(module_name: str) -> None:
    import generated

    module = getattr(generated, module_name)
    tool = generated.STUBS[module_name]
    seen: list[Any] = []

    def record(arguments: Any) -> None:
        seen.append(arguments)
        raise module.VersionMismatch("not called for real")

    guarded = tool.implement(record)
    assert module.CONTRACT.examples
    for example in module.CONTRACT.examples:
        envelope = guarded(dict(example.arguments))
        # the guard validated the example and handed the typed model to the implementation
        assert envelope["error"]["code"] == "VERSION_MISMATCH", envelope
        assert isinstance(seen[-1], tool.input_model)


def test_contractgen_testing_proves_every_generated_stub() -> None:
    import generated
    from contractgen.testing import check_contract

    for module_name, stub in generated.STUBS.items():
        report = check_contract(stub, raise_on_failure=False)
        assert report.ok, (module_name, report.failures)
        assert len(report.checks) >= len(stub.contract.errors) + 2
