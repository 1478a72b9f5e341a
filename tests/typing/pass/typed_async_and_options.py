"""An async implementation, one returning the JSON form, and ``implement(...)`` with options."""

from __future__ import annotations

from datetime import datetime
from typing import Any, assert_type
from zoneinfo import ZoneInfo

from contractgen.runtime import CallRecord, GuardedTool
from contractgen.runtime.envelope_types import Envelope
from generated.book_meeting_v2 import (
    BookMeetingV2Input,
    BookMeetingV2Output,
    BookMeetingV2OutputJson,
    book_meeting,
)
from generated.search_documents_v1 import (
    SearchDocumentsV1Input,
    SearchDocumentsV1Output,
    SearchDocumentsV1OutputJson,
    search_documents,
)


@book_meeting.implement
async def book(args: BookMeetingV2Input) -> BookMeetingV2Output:
    return BookMeetingV2Output(meeting_id="m-1", status="confirmed",
                              starts_at=datetime.fromisoformat(args.start_date).replace(tzinfo=ZoneInfo(args.time_zone)))


assert_type(book, GuardedTool[BookMeetingV2Input, BookMeetingV2Output, BookMeetingV2OutputJson])


async def call_it() -> Envelope:
    return await book.acall({"title": "Review"}, session="conversation-1")


records: list[CallRecord] = []


@search_documents.implement(state={}, on_call=records.append)
def search(args: SearchDocumentsV1Input) -> dict[str, Any]:
    return {"hits": [], "query": args.query}  # the JSON form: the guard checks it at run time


assert_type(search, GuardedTool[SearchDocumentsV1Input, SearchDocumentsV1Output, SearchDocumentsV1OutputJson])


@search_documents.implement(state={})
async def search_async(args: SearchDocumentsV1Input) -> SearchDocumentsV1Output:
    return SearchDocumentsV1Output.model_validate({"hits": []})


assert_type(search_async, GuardedTool[SearchDocumentsV1Input, SearchDocumentsV1Output, SearchDocumentsV1OutputJson])
again = search.with_implementation(lambda args: {"hits": []})
assert_type(again, GuardedTool[SearchDocumentsV1Input, SearchDocumentsV1Output, SearchDocumentsV1OutputJson])
