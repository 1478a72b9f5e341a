"""Implementations that break the contract's types, and calls that misuse the tool or its envelope."""

from __future__ import annotations

import datetime as dt

from contractgen.runtime.envelope_types import Envelope
from generated.get_exchange_rate_v1 import (
    GetExchangeRateV1Input,
    GetExchangeRateV1Output,
    GetExchangeRateV1OutputJson,
    get_exchange_rate,
)
from generated.search_documents_v1 import SearchDocumentsV1OutputJson


@get_exchange_rate.implement  # E: Argument 1 to "implement" of "ToolStub" has incompatible type
def wrong_parameter(args: int) -> GetExchangeRateV1Output:
    raise NotImplementedError


@get_exchange_rate.implement  # E: Argument 1 to "implement" of "ToolStub" has incompatible type
def wrong_return(args: GetExchangeRateV1Input) -> str:
    return "1.1"


@get_exchange_rate.implement  # E: Argument 1 to "implement" of "ToolStub" has incompatible type
async def wrong_async_return(args: GetExchangeRateV1Input) -> int:
    return 1


@get_exchange_rate.implement(state={})  # E: Argument 1 to "__call__" of "Implementer" has incompatible type
def wrong_with_options(args: str) -> GetExchangeRateV1Output:
    raise NotImplementedError


@get_exchange_rate.implement
def right(args: GetExchangeRateV1Input) -> GetExchangeRateV1Output:
    raise NotImplementedError


result: int = right({"base": "EUR"})  # E: Incompatible types in assignment
right({"base": "EUR"}, bogus=True)  # E: Unexpected keyword argument "bogus"
right("not a dict")  # E: Argument 1 to "__call__" of "GuardedTool" has incompatible type "str"
right(["EUR", "USD"])  # E: Argument 1 to "__call__" of "GuardedTool" has incompatible type "list[str]"

envelope = right({"base": "EUR", "quote": "USD"})
unchecked = envelope["output"]  # E: TypedDict "ErrorEnvelope" has no key "output"
if envelope["status"] == "ok":
    rate: str = right.parse_output(envelope).rate  # E: Incompatible types in assignment
    envelope["error"]  # E: TypedDict "OkEnvelope[GetExchangeRateV1OutputJson]" has no key "error"
else:
    envelope["error"]["reason"]  # E: TypedDict "ErrorBody" has no key "reason"
    retry: int = envelope["error"]["retryable"] and envelope["error"]["code"]  # E: Incompatible types in assignment

# envelope["output"] is the output's JSON form (a TypedDict): unknown keys and wrong types are errors
if envelope["status"] == "ok":
    envelope["output"]["rates"]  # E: TypedDict "GetExchangeRateV1OutputJson" has no key "rates"
    text: str = envelope["output"]["rate"]  # E: Incompatible types in assignment (expression has type "int | float", variable has type "str")
    day: dt.date = envelope["output"]["date"]  # E: Incompatible types in assignment (expression has type "str", variable has type "date")
    envelope["output"]["rate"] = "1.1"  # E: Value of "rate" has incompatible type "str"; expected "int | float"
    model_from_wire: GetExchangeRateV1Output = envelope["output"]  # E: Incompatible types in assignment


@get_exchange_rate.implement
def wire_missing_key(args: GetExchangeRateV1Input) -> GetExchangeRateV1OutputJson:
    return {"base": "EUR", "quote": "USD", "rate": 1.1}  # E: Missing key "date" for TypedDict "GetExchangeRateV1OutputJson"


def nested(envelope: Envelope[SearchDocumentsV1OutputJson]) -> None:
    if envelope["status"] == "ok":
        envelope["output"]["results"][0]["scor"]  # E: TypedDict "SearchDocumentsV1OutputHitJson" has no key "scor"
        _count: int = envelope["output"]["results"][0]["score"]  # E: Incompatible types in assignment (expression has type "int | float", variable has type "int")
