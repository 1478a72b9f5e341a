"""docs/tour.md and docs/build.md: what mypy says about two mistakes (tests/test_docs_examples.py
type-checks this file and expects exactly the errors named in the comments; it is not run)."""

from typing import Any

from generated import book_meeting_v2 as bm


@bm.book_meeting.implement  # error: Argument 1 to "implement" of "ToolStub" has incompatible type
def wrong(args: int) -> str:
    return str(args)


def read(envelope: Any) -> None:
    if envelope["status"] == "ok":
        typed: bm.BookMeetingV2OutputJson = envelope["output"]
        print(typed["start"])  # error: TypedDict "BookMeetingV2OutputJson" has no key "start"
