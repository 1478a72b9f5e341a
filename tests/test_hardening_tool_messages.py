"""A tool's own message never carries internals to the model: connection strings, credentials,
private addresses, file paths, stack-trace lines and exception class names a ToolError (or a mapper's) writes are replaced
at run time, the envelope names a reference, and the log keeps the original under it with its
credentials cut. A message without internals reaches the model as written."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from contractgen.runtime import Contract, ToolError, guard
from contractgen.testing import assert_valid_envelope

CONTRACT = Contract(
    name="charge",
    version="1.0.0",
    summary="s",
    description="d",
    input_schema={"type": "object"},
    output_schema={"type": "object"},
)

#: (what the tool wrote, what must not reach the model, what the log keeps, what it never keeps)
LEAKS = [
    (
        "could not reach postgres://app:pw-9f2k@db.internal:5432/prod from 10.2.3.4",
        ["postgres://", "pw-9f2k", "db.internal", "10.2.3.4"],
        ["db.internal", "10.2.3.4"],
        ["pw-9f2k"],
    ),
    (
        'charge failed: File "/srv/app/charge.py", line 42, in charge',
        ['File "/srv/app/charge.py"', "/srv/app"],
        ["/srv/app/charge.py"],
        [],
    ),
    (
        "cannot open /var/lib/app/keys.json for reading",
        ["/var/lib/app"],
        ["/var/lib/app/keys.json"],
        [],
    ),
    (
        "the bank answered 401 to https://api.bank.example/v1/charge?api_key=sk_live_51Hx9&amount=3",
        ["sk_live_51Hx9"],
        ["api.bank.example"],
        ["sk_live_51Hx9"],
    ),
    (
        "libpq: host=db.internal user=app password=hunter2-x dbname=prod",
        ["hunter2-x", "db.internal"],
        ["dbname=prod"],
        ["hunter2-x"],
    ),
    (
        "redis at redis://127.0.0.1:6379/0?password=hunter2-y timed out",
        ["redis://", "hunter2-y", "127.0.0.1"],
        ["timed out"],
        ["hunter2-y"],
    ),
    (
        "jdbc:mysql://payments-db:3306/ledger refused the connection",
        ["jdbc:", "payments-db"],
        ["ledger"],
        [],
    ),
    (
        "the gateway at 192.168.14.20:8443 and fd12:3456:789a::1 and 172.20.1.5 all failed",
        ["192.168.14.20", "fd12:3456:789a::1", "172.20.1.5"],
        ["192.168.14.20"],
        [],
    ),
    (
        "upstream sent Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.abc back",
        ["eyJhbGciOiJIUzI1NiJ9"],
        ["Bearer"],
        ["eyJhbGciOiJIUzI1NiJ9"],
    ),
    (
        "Traceback (most recent call last):\n  at com.bank.Charge.run(Charge.java:88)",
        ["Traceback", "Charge.java:88"],
        ["Charge.java:88"],
        [],
    ),
    (  # keys of a well-known format, whatever the words around them
        ("the bank rejected sk_live_51HxAbCdEfGhIjKlMnOpQr and GitHub revoked "
        "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"),
        ["51HxAbCdEfGhIjKlMnOpQr", "aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"],
        ["sk_live_***", "ghp_***"],
        ["51HxAbCdEfGhIjKlMnOpQr", "aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"],
    ),
    (
        ("AWS key AKIAIOSFODNN7EXAMPLE, Slack xoxb-123456789012-AbCdEfGhIjKl, OpenAI "
        "sk-proj-AbCdEfGhIjKlMnOpQrSt0123456789 all refused"),
        ["IOSFODNN7EXAMPLE", "123456789012-AbCdEfGhIjKl", "AbCdEfGhIjKlMnOpQrSt0123456789"],
        ["AKIA***", "xoxb-***"],
        ["IOSFODNN7EXAMPLE", "AbCdEfGhIjKlMnOpQrSt0123456789"],
    ),
    (
        ("session eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w expired; "
        'config {"api_key": "abc123secret"}; auth: bearer abcdefghijklmnop'),
        ["eyJzdWIiOiIxMjM0NTY3ODkwIn0", "abc123secret", "abcdefghijklmnop"],
        ["expired"],
        ["eyJzdWIiOiIxMjM0NTY3ODkwIn0", "abc123secret", "abcdefghijklmnop"],
    ),
    (  # an author quoting the exception it caught (``f"lookup failed: {exc!r}"``)
        "lookup failed: KeyError('customer_id') in the cache layer",
        ["KeyError"],
        ["KeyError('customer_id')"],
        [],
    ),
    (
        "the bank client raised ConnectTimeoutError, then psycopg.OperationalError and AError",
        ["ConnectTimeoutError", "OperationalError", "AError"],
        ["psycopg.OperationalError"],
        [],
    ),
    (
        "worker stopped by KeyboardInterrupt while charging",
        ["KeyboardInterrupt"],
        ["KeyboardInterrupt"],
        [],
    ),
    (
        "mongodb+srv://svc:s3cr3t-z@cluster0.mongodb.net/db is down",
        ["s3cr3t-z", "mongodb+srv://"],
        ["cluster0.mongodb.net"],
        ["s3cr3t-z"],
    ),
]


def envelopes_for(message: str, caplog: pytest.LogCaptureFixture) -> list[dict[str, Any]]:
    def tool(_: Any) -> Any:
        raise ToolError(message, code="UNAVAILABLE")

    async def atool(_: Any) -> Any:
        raise ToolError(message, code="UNAVAILABLE")

    class Refused(Exception):
        pass

    def mapped(_: Any) -> Any:
        raise Refused

    with caplog.at_level(logging.INFO, logger="contractgen.runtime"):
        return [
            guard(CONTRACT, tool)({}),
            asyncio.run(guard(CONTRACT, atool).acall({})),
            guard(CONTRACT, mapped, mapper=lambda e: ToolError(message, code="UNAVAILABLE"))({}),
        ]


@pytest.mark.parametrize(
    ("message", "hidden", "kept", "never"), LEAKS, ids=[leak[1][0] for leak in LEAKS]
)
def test_internals_in_a_tools_message_are_withheld_and_logged_under_a_reference(
    message: str,
    hidden: list[str],
    kept: list[str],
    never: list[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    for envelope in envelopes_for(message, caplog):
        error = envelope["error"]
        for text in hidden:
            assert text not in error["message"], error["message"]
        assert error["code"] == "UNAVAILABLE" and error["action"] == "retry_later"
        ref = error["ref"]
        assert ref in error["message"]  # the model can give the user the reference
        assert_valid_envelope(envelope, CONTRACT)  # the test helper finds no internals either
        logged = [
            r.getMessage()
            for r in caplog.records
            if r.name == "contractgen.runtime" and ref in r.getMessage()
        ]
        assert len(logged) == 1, [r.getMessage() for r in caplog.records]
        for text in kept:
            assert text in logged[0], logged[0]
        for text in never:
            assert text not in logged[0], logged[0]


@pytest.mark.parametrize(
    "message",
    [
        "The card was declined; ask the user for another card.",
        "Amount must be at most 10000.00 EUR (got 12000.50); ask for a smaller amount.",
        "The service https://status.bank.example says it is under maintenance until 14:30 UTC.",
        "Version 1.2.3.4 of the ledger is read-only; try again in 5 minutes.",
        "Use the path /charges/{id} of the API only through this tool.",
        "Error: the amount is negative. Errors like this need a new amount, not a retry.",
        "Export with sk-learn-compatible-estimators only; the bearer of this card must sign.",
    ],
)
def test_a_message_without_internals_reaches_the_model_as_written(
    message: str, caplog: pytest.LogCaptureFixture
) -> None:
    for envelope in envelopes_for(message, caplog):
        assert envelope["error"]["message"] == message
        assert "ref" not in envelope["error"]


@pytest.mark.parametrize(
    "message",
    [
        "\n" * 100_000 + "could not reach postgres://app:pw-1@db.internal/prod",
        " " * 400 + "token at https://api.bank.example/v1?api_key=sk_live_51Hx9",
        "1." * 500_000,
        "a." * 500_000 + "internal",
        "at " * 300_000,
        "a://b?c" * 100_000,
    ],
    ids=["newlines-then-url", "spaces-then-key", "dots", "labels", "ats", "urls"],
)
def test_a_long_message_is_read_as_far_as_the_envelope_shows_it(
    message: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Only what the envelope can show is read (one line, four times its cap): what lies past it is
    dropped, never shown unread. Each pattern's work is linear in what is read (a run of 20,000
    characters of "1.1.1..." took 22 s with unbounded repeats)."""
    for envelope in envelopes_for(message, caplog):
        error = envelope["error"]
        assert error["code"] == "UNAVAILABLE"
        for secret in ("pw-1", "sk_live_51Hx9", "postgres://"):
            assert secret not in error["message"]
        assert len(error["message"]) <= 300


def test_migration_steps_a_tool_writes_are_withheld_as_its_message_is(caplog: pytest.LogCaptureFixture) -> None:
    """A VersionMismatchError raised by the tool carries its author's migration steps to the model:
    each is judged as the message is (a path or a DSN withheld and logged under the envelope's ref)."""
    from contractgen.runtime import VersionMismatchError

    def tool(_: Any) -> Any:
        raise VersionMismatchError("Send the fields of version 2.", expected_version="2.0.0", migration=[
            "rename 'customer' to 'customer_id'",
            "the mapping is in /srv/app/migrations/v2.py",
            "v1 data lives in postgres://app:pw-31x@db.internal/ledger until May"])

    with caplog.at_level(logging.INFO, logger="contractgen.runtime"):
        error = guard(CONTRACT, tool)({})["error"]
    assert error["code"] == "VERSION_MISMATCH" and error["expected_version"] == "2.0.0"
    steps = error["migration"]
    assert steps[0] == "rename 'customer' to 'customer_id'"
    for leak in ("/srv/app", "postgres://", "pw-31x", "db.internal"):
        assert all(leak not in step for step in steps), steps
    assert "withheld" in steps[1] and "withheld" in steps[2]
    assert error["ref"] in steps[1]
    assert_valid_envelope({"status": "error", "tool": "charge", "version": "1.0.0", "error": error}, CONTRACT)
    logged = " ".join(r.getMessage() for r in caplog.records)
    assert "/srv/app/migrations/v2.py" in logged and "pw-31x" not in logged
