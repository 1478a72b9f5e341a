"""An MCP server for the bundled contracts, with small in-memory implementations.

    python examples/mcp_server.py          # serves over stdio; point an MCP client at this command

It serves the generated tools from ``generated/`` (run ``contractgen build`` first after changing
``contracts/``): book_meeting 2.0.0, search_documents, retrieve_chunks, refund_payment, refund_order
and get_exchange_rate. A refund_order above 500 answers CONFIRMATION_REQUIRED: this server asks nobody.
A call shaped like book_meeting 1.x (``date`` instead of ``start_date``), or one that declares
``_meta["contractgen/version"] = "1.2.0"``, gets VERSION_MISMATCH with the migration steps. Nothing leaves the process: calendars, documents, payments and rates are dicts.

get_exchange_rate stands for a remote API. Make its provider fail to watch the failure budget stop
the model (UNAVAILABLE, retry_later; after 2 consecutive failures in one session: stop_and_tell_user):

- set ``EXAMPLE_RATES_PROVIDER=down`` in the server's environment: every call fails; or
- call it with ``base: "XXX"`` (ISO 4217's "no currency" code): that call fails.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import sys
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

# the generated package lives at the repository root, next to contracts/
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from contractgen.runtime import GuardedTool
from contractgen.runtime.mcp_server import serve_stdio
from generated import (
    AGENT_INSTRUCTIONS,
    book_meeting_v2,
    get_exchange_rate_v1,
    refund_order_v1,
    refund_payment_v1,
    retrieve_chunks_v1,
    search_documents_v1,
)

# --- in-memory state ------------------------------------------------------------------------------

BOOKED: dict[str, str] = {}  # start time (ISO, UTC) -> meeting id

DOCUMENTS = (
    {"document_id": "doc-travel-2026", "title": "Travel policy 2026",
     "text": "The travel policy covers trains, flights and hotels for business trips."},
    {"document_id": "doc-q3-review", "title": "Quarterly review Q3",
     "text": "Quarterly review of revenue, hiring and the product roadmap."},
    {"document_id": "doc-onboarding", "title": "Onboarding checklist",
     "text": "Laptop, accounts and a buddy for every new team member."},
)

PAYMENTS = {"pay_3KfT9aQx2L": ("EUR", 2500), "pay_8WmZ41RtQe": ("USD", 200000)}
REFUNDED: dict[str, int] = {}
AGENT_LIMIT_CENTS = 50000

RATES = {("EUR", "USD"): 1.08, ("USD", "EUR"): 0.93, ("GBP", "JPY"): 191.4, ("EUR", "GBP"): 0.86}


def _meeting_id(start: dt.datetime) -> str:
    return "mtg_" + hashlib.sha256(start.isoformat().encode()).hexdigest()[:10]


# --- book_meeting ---------------------------------------------------------------------------------

def _local_time(text: str, zone: ZoneInfo) -> dt.datetime:
    """The instant ``text`` names on the clocks of ``zone``; the contract's pattern admits 30 February
    and times a clock change skips, which name none."""
    try:
        start = dt.datetime.fromisoformat(text).replace(tzinfo=zone)
    except ValueError:
        raise book_meeting_v2.NoSuchLocalTime() from None
    if start.astimezone(dt.timezone.utc).astimezone(zone).replace(tzinfo=None) != start.replace(tzinfo=None):
        raise book_meeting_v2.NoSuchLocalTime()
    return start


@book_meeting_v2.book_meeting.implement
def book_meeting(args: book_meeting_v2.BookMeetingV2Input) -> book_meeting_v2.BookMeetingV2Output:
    try:
        zone = ZoneInfo(args.time_zone)
    except (ZoneInfoNotFoundError, ValueError):
        raise book_meeting_v2.UnknownTimeZone() from None
    start = _local_time(args.start_date, zone)
    key = start.astimezone(dt.timezone.utc).isoformat()
    if key in BOOKED:
        raise book_meeting_v2.SlotTaken()
    BOOKED[key] = _meeting_id(start)
    optional = any(a.optional for a in args.attendees or ())
    return book_meeting_v2.BookMeetingV2Output(meeting_id=BOOKED[key], starts_at=start,
                                               status="tentative" if optional else "confirmed")


# --- search_documents -----------------------------------------------------------------------------

STOP_WORDS = {"the", "a", "an", "of", "and", "or", "to"}


@search_documents_v1.search_documents.implement
def search_documents(args: search_documents_v1.SearchDocumentsV1Input) -> dict[str, Any]:
    words = [w.strip('"').lower() for w in args.query.split() if w.strip('"')]
    if words and all(w in STOP_WORDS for w in words):
        raise search_documents_v1.QueryTooBroad()
    hits: list[dict[str, Any]] = []
    for doc in DOCUMENTS:
        text = (doc["title"] + " " + doc["text"]).lower()
        matched = sum(1 for w in words if w in text)
        if matched:
            hits.append({"document_id": doc["document_id"], "title": doc["title"],
                         "snippet": doc["text"][:120], "score": round(matched / len(words), 3)})
    hits.sort(key=lambda h: (-h["score"], h["document_id"]))
    return {"results": hits[: args.limit or 10], "complete": True, "next_cursor": None}


# --- retrieve_chunks: each passage carries its hash and fetch time (the contract's result rules) ---

@retrieve_chunks_v1.retrieve_chunks.implement
def retrieve_chunks(args: retrieve_chunks_v1.RetrieveChunksV1Input) -> dict[str, Any]:
    words = {w.lower().strip("?.,") for w in args.question.split()} - STOP_WORDS
    fetched = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    chunks = [{"source_id": doc["document_id"], "content": doc["text"],
               "content_hash": hashlib.sha256(doc["text"].encode("utf-8")).hexdigest(),
               "fetch_timestamp": fetched,
               "score": round(sum(1 for w in words if w in doc["text"].lower()) / max(len(words), 1), 3)}
              for doc in DOCUMENTS]
    chunks = sorted((c for c in chunks if c["score"] > 0), key=lambda c: (-c["score"], c["source_id"]))
    return {"chunks": chunks[: args.top_k or 5]}


# --- refund_payment -------------------------------------------------------------------------------

@refund_payment_v1.refund_payment.implement
def refund_payment(args: refund_payment_v1.RefundPaymentV1Input) -> dict[str, Any]:
    payment = PAYMENTS.get(args.payment_id)
    if payment is None:
        raise refund_payment_v1.PaymentNotFound()
    currency, paid = payment
    if args.amount_cents > AGENT_LIMIT_CENTS and not args.approval_code:
        raise refund_payment_v1.RefundOverLimit()
    if REFUNDED.get(args.payment_id, 0) + args.amount_cents > paid:
        raise refund_payment_v1.RefundExceedsPayment()
    REFUNDED[args.payment_id] = REFUNDED.get(args.payment_id, 0) + args.amount_cents
    refund_id = "re_" + hashlib.sha256(f"{args.payment_id}:{REFUNDED[args.payment_id]}".encode()).hexdigest()[:10]
    return {"refund_id": refund_id, "status": "pending", "amount_cents": args.amount_cents,
            "currency": currency}


# --- refund_order: held for the user's confirmation above 500 (contracts/refund_order) ---------------

ORDERS = {"ord_7QpX2m": ("USD", 120.0), "ord_Lk93aZ": ("USD", 1500.0)}
ORDER_REFUNDS: dict[str, float] = {}


@refund_order_v1.refund_order.implement
def refund_order(args: refund_order_v1.RefundOrderV1Input) -> dict[str, Any]:
    order = ORDERS.get(args.order_id)
    if order is None:
        raise refund_order_v1.OrderNotFound()
    if ORDER_REFUNDS.get(args.order_id, 0.0) + args.amount > order[1]:
        raise refund_order_v1.RefundExceedsOrder()
    ORDER_REFUNDS[args.order_id] = ORDER_REFUNDS.get(args.order_id, 0.0) + args.amount
    return {"refund_id": f"re_{args.order_id[4:]}_{len(ORDER_REFUNDS)}", "amount": args.amount,
            "currency": args.currency}


# --- get_exchange_rate: the remote dependency ------------------------------------------------------

class ProviderDown(ConnectionError):
    """What a real HTTP client would raise when the rates provider does not answer."""


def fetch_rate(base: str, quote: str) -> float:
    """Stands in for the HTTP call to the rates provider."""
    if os.environ.get("EXAMPLE_RATES_PROVIDER") == "down" or base == "XXX":
        raise ProviderDown("connect to rates.example.com:443 refused")
    if (base, quote) not in RATES:
        raise KeyError(base)
    return RATES[(base, quote)]


@get_exchange_rate_v1.get_exchange_rate.implement
async def get_exchange_rate(args: get_exchange_rate_v1.GetExchangeRateV1Input) -> dict[str, Any]:
    base, quote = args.base.root, args.quote.root
    day = args.date or dt.date(2026, 11, 27)
    if day.weekday() >= 5:
        raise get_exchange_rate_v1.RateNotPublished()
    try:
        rate = fetch_rate(base, quote)
    except ProviderDown as exc:
        # the typed error carries the contract's message; the transport's words stay in the log
        raise get_exchange_rate_v1.ProviderUnavailable() from exc
    except KeyError:
        raise get_exchange_rate_v1.UnknownCurrency() from None
    return {"base": base, "quote": quote, "rate": rate, "date": day.isoformat(), "provider": "example"}


TOOLS: tuple[GuardedTool[Any, Any], ...] = (book_meeting, search_documents, retrieve_chunks, refund_payment,
                                             refund_order, get_exchange_rate)


def main() -> None:
    serve_stdio(TOOLS, name="contractgen-example", version="0.1.0", instructions=AGENT_INSTRUCTIONS)


if __name__ == "__main__":
    main()
