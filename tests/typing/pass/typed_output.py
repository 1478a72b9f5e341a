"""Reading ``envelope["output"]``: the output's JSON form is a TypedDict, nested fields typed; the model
is one ``parse_output`` away; code written against ``GuardedTool[In, Out]`` and ``Envelope`` still works."""

from __future__ import annotations

from typing import Any, Literal, assert_type

from contractgen.runtime import GuardedTool
from contractgen.runtime.envelope_types import Envelope
from generated.book_meeting_v2 import BookMeetingV2OutputJson, book_meeting
from generated.get_exchange_rate_v1 import (
    GetExchangeRateV1Input,
    GetExchangeRateV1Output,
    GetExchangeRateV1OutputJson,
    get_exchange_rate,
)
from generated.search_documents_v1 import (
    SearchDocumentsV1Input,
    SearchDocumentsV1Output,
    SearchDocumentsV1OutputHitJson,
    SearchDocumentsV1OutputJson,
    search_documents,
)


@search_documents.implement
def search(args: SearchDocumentsV1Input) -> SearchDocumentsV1Output:
    return SearchDocumentsV1Output.model_validate({"results": [], "complete": True})


envelope = search({"query": "travel policy"})
if envelope["status"] == "ok":
    output = envelope["output"]
    assert_type(output, SearchDocumentsV1OutputJson)
    assert_type(output["results"], list[SearchDocumentsV1OutputHitJson])
    assert_type(output["results"][0]["score"], int | float)
    assert_type(output["complete"], bool)
    assert_type(output.get("next_cursor"), str | None)
    for hit in output["results"]:
        title: str = hit["title"]
    assert_type(search.parse_output(envelope), SearchDocumentsV1Output)  # the model, as before


@get_exchange_rate.implement
async def wire_form(args: GetExchangeRateV1Input) -> GetExchangeRateV1OutputJson:
    # returning the JSON form typed: mypy checks its keys and value types
    return {"base": args.base.root, "quote": args.quote.root, "rate": 1.08, "date": "2026-11-27"}


async def rate_of(base: str, quote: str) -> float | None:
    answer = await wire_form.acall({"base": base, "quote": quote})
    assert_type(answer, Envelope[GetExchangeRateV1OutputJson])
    return answer["output"]["rate"] if answer["status"] == "ok" else None


@book_meeting.implement
def book(args: Any) -> dict[str, Any]:
    return {"meeting_id": "m-1", "starts_at": "2026-12-01T15:00:00", "status": "confirmed"}


booked = book({"title": "Review"})
if booked["status"] == "ok":
    assert_type(booked["output"], BookMeetingV2OutputJson)
    assert_type(booked["output"]["status"], Literal["confirmed", "tentative"])


# code that names the two-parameter form or the bare Envelope keeps type-checking: the output's
# type parameter defaults to Any there
def call_any(tool: GuardedTool[Any, Any], arguments: dict[str, Any]) -> Envelope:
    return tool(arguments)


legacy: GuardedTool[GetExchangeRateV1Input, GetExchangeRateV1Output] = wire_form
tools: list[GuardedTool[Any, Any]] = [search, wire_form, book]
answered: Envelope = call_any(search, {"query": "q"})
if answered["status"] == "ok":
    untyped: dict[str, Any] = answered["output"]
