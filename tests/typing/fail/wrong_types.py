"""Implementations that break the contract's types, and calls that misuse the tool or its envelope."""

from __future__ import annotations

from generated.get_exchange_rate_v1 import (
    GetExchangeRateV1Input,
    GetExchangeRateV1Output,
    get_exchange_rate,
)


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
    envelope["error"]  # E: TypedDict "OkEnvelope[dict[str, Any]]" has no key "error"
else:
    envelope["error"]["reason"]  # E: TypedDict "ErrorBody" has no key "reason"
    retry: int = envelope["error"]["retryable"] and envelope["error"]["code"]  # E: Incompatible types in assignment
