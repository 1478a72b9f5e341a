"""docs/tour.md: implement book_meeting 2.0.0 and call it as a model would (run by
tests/test_docs_examples.py; tests/test_docs_examples.py also type-checks it with mypy)."""

import json
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from generated import book_meeting_v2 as bm


@dataclass
class Meeting:
    id: str
    start: datetime


class Calendar:
    """A stand-in for a real calendar: one taken slot, meeting ids m-1, m-2, ..."""

    def __init__(self) -> None:
        self.taken = {"2026-12-01T09:00:00"}
        self.meetings: list[Meeting] = []

    def is_taken(self, start: str) -> bool:
        return start in self.taken

    def book(self, title: str, start: str, time_zone: str) -> Meeting:
        paris = timezone(timedelta(hours=1))  # a real calendar would look the zone up
        meeting = Meeting(
            f"m-{len(self.meetings) + 1}", datetime.fromisoformat(start).replace(tzinfo=paris)
        )
        self.meetings.append(meeting)
        return meeting


calendar = Calendar()


@bm.book_meeting.implement
def book_meeting(args: bm.BookMeetingV2Input) -> bm.BookMeetingV2Output:
    if calendar.is_taken(args.start_date):
        raise bm.SlotTaken()  # -> exactly its declared CONFLICT envelope
    meeting = calendar.book(args.title, args.start_date, args.time_zone)
    return bm.BookMeetingV2Output(
        meeting_id=meeting.id, starts_at=meeting.start, status="confirmed"
    )


call = {
    "title": "Review",
    "start_date": "2026-12-01T15:00:00",
    "time_zone": "Europe/Paris",
    "duration_minutes": 60,
}
envelope = book_meeting(call)
if envelope["status"] == "ok":
    print(json.dumps(envelope["output"]))  # BookMeetingV2OutputJson: starts_at is a str on the wire
    print(repr(book_meeting.parse_output(envelope).starts_at))  # BookMeetingV2Output: a datetime

wrong_type = book_meeting({**call, "duration_minutes": "60"})
if wrong_type["status"] == "error":
    error = wrong_type["error"]
    print(error["code"], error["action"], error.get("field"), error.get("constraint"))
    print(error["message"])

taken = book_meeting({**call, "start_date": "2026-12-01T09:00:00"})
if taken["status"] == "error":
    print(taken["error"]["code"], taken["error"]["action"])

old_shape = book_meeting(
    {"title": "Review", "date": "2026-12-01T15:00:00+01:00", "duration_minutes": 60}
)
if old_shape["status"] == "error":
    print(old_shape["error"]["code"], old_shape["error"].get("received_version"))
    print(old_shape["error"].get("migration", [])[0])
# {"meeting_id": "m-1", "starts_at": "2026-12-01T15:00:00+01:00", "status": "confirmed"}
# datetime.datetime(2026, 12, 1, 15, 0, tzinfo=TzInfo(3600))
# INVALID_ARGUMENT fix_arguments /duration_minutes type
# Invalid arguments: 'duration_minutes' must be of type integer (got string). Fix the arguments and call again.
# CONFLICT fix_arguments
# VERSION_MISMATCH >=1,<2
# rename 'date' to 'start_date'
