"""docs/runtime.md: the runtime without the generated stub (what generated code does for you), typed
errors, a tool you do not own, and contractgen.testing. Run by tests/test_docs_examples.py."""

# --8<-- [start:stub]
import asyncio
from typing import Any

from contractgen.runtime import (
    ErrorSpec,
    ToolError,
    ToolStub,
    contract_from_definition,
    guard,
    wrap_tool,
)
from contractgen.runtime.envelope_types import Envelope
from contractgen.testing import assert_valid_envelope, check_contract
from generated.book_meeting_v2 import CONTRACT, BookMeetingV2Input, BookMeetingV2Output

SlotTaken = ToolError.for_spec(CONTRACT.errors[0])  # generated code writes these out as classes
stub = ToolStub(
    CONTRACT, input_model=BookMeetingV2Input, output_model=BookMeetingV2Output, errors=[SlotTaken]
)
TAKEN = {"2026-12-01T09:00:00"}


@stub.implement  # you write this; sync or async
def book_meeting(args: BookMeetingV2Input) -> BookMeetingV2Output:
    if args.start_date in TAKEN:
        raise SlotTaken()  # -> exactly its declared envelope
    if args.title == "Quota":
        raise ToolError(
            "Quota used up for today.", code="FAILED_PRECONDITION"
        )  # ad hoc, closed-set code
    return BookMeetingV2Output.model_validate(
        {"meeting_id": "m-1", "starts_at": args.start_date + "+01:00", "status": "confirmed"}
    )


def outcome(envelope: Envelope[Any]) -> str:
    """What a model reads first: ok, or the error's code and next-step action."""
    if envelope["status"] == "ok":
        return "ok"
    return f"{envelope['error']['code']} {envelope['error']['action']}"


call = {
    "title": "Review",
    "start_date": "2026-12-01T15:00:00",
    "time_zone": "Europe/Paris",
    "duration_minutes": 60,
}
print(outcome(book_meeting(call)))  # JSON in, envelope out; never raises
taken = book_meeting.acall({**call, "start_date": "2026-12-01T09:00:00"}, session="c-1")
print(outcome(asyncio.run(taken)))  # async: the same guard, awaited
print(outcome(book_meeting({**call, "title": "Quota"})))
# --8<-- [end:stub]


# --8<-- [start:errors]
class SlotTakenWritten(ToolError):  # what generated code writes for the manifest's errors: entry
    spec = ErrorSpec("SlotTaken", "CONFLICT", CONTRACT.errors[0].message, field="/start_date")


def failing(args: BookMeetingV2Input) -> BookMeetingV2Output:
    if args.title == "declared":
        raise SlotTakenWritten()  # declared message, code, field, action
    if args.title == "ad hoc":
        raise ToolError("Quota used up for today.", code="FAILED_PRECONDITION")  # closed-set code
    raise ToolError(
        "Mail server refused.", code="UNAVAILABLE", retry_after=30, upstream="550 mailbox full"
    )


strict = guard(
    CONTRACT,
    failing,
    input_model=BookMeetingV2Input,
    output_model=BookMeetingV2Output,
    errors=[SlotTakenWritten],
)  # the same as a stub's implement, without the stub
for title in ("declared", "ad hoc", "upstream"):
    print(outcome(strict({**call, "title": title})))
# --8<-- [end:errors]

# --8<-- [start:wrap]
# a tool you do not own: an OpenAI function definition and a vendor call that times out


def call_vendor_sdk(args: dict[str, Any]) -> dict[str, Any]:
    raise TimeoutError("vendor took too long")  # the default mapper reads transport errors


weather = wrap_tool(
    contract_from_definition(
        {
            "name": "get_weather",
            "description": "Weather for a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
        version="1.0.0",
        timeout=10,
    ),
    call_vendor_sdk,
)
print(outcome(weather({"city": "Paris"})))

# --8<-- [end:wrap]
# --8<-- [start:testing]
# contractgen.testing, as your own tests would use it
check_contract(book_meeting)  # every example, declared error and schema through the real guard
assert_valid_envelope(book_meeting(call), book_meeting.contract)
print("contract checks passed")
# --8<-- [end:testing]
# ok
# CONFLICT fix_arguments
# FAILED_PRECONDITION escalate
# CONFLICT fix_arguments
# FAILED_PRECONDITION escalate
# UNAVAILABLE retry_later
# TIMEOUT retry_later
# contract checks passed
