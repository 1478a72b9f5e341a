"""docs/build.md: a call's envelope, narrowed on its status (run by tests/test_docs_examples.py)."""

from datetime import datetime, timedelta, timezone

from generated import book_meeting_v2 as bm


@bm.book_meeting.implement
def book_meeting(arguments: bm.BookMeetingV2Input) -> bm.BookMeetingV2Output:
    paris = timezone(timedelta(hours=1))  # a real calendar would look up arguments.time_zone
    start = datetime.fromisoformat(arguments.start_date).replace(tzinfo=paris)
    return bm.BookMeetingV2Output(meeting_id="m-1", starts_at=start, status="confirmed")


envelope = book_meeting(
    {
        "title": "Review",
        "start_date": "2026-12-01T15:00:00",
        "time_zone": "Europe/Paris",
        "duration_minutes": 60,
    }
)
if envelope["status"] == "ok":
    output = envelope["output"]  # BookMeetingV2OutputJson
    print(output["meeting_id"], output["starts_at"])  # str, str (the wire form of a date-time)
    booked = book_meeting.parse_output(envelope)  # BookMeetingV2Output
    print(booked.starts_at.year)  # datetime
else:
    print(
        envelope["error"]["code"], envelope["error"]["action"]
    )  # Literal["CONFLICT", ...], Literal[...]
# m-1 2026-12-01T15:00:00+01:00
# 2026
