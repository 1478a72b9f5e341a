"""A sync implementation that matches its contract: the stub, the tool and the envelope are typed."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any, assert_type

from contractgen.runtime import GuardedTool, ToolStub
from contractgen.runtime.envelope_types import Action, Code, ErrorEnvelope, OkEnvelope
from generated.get_exchange_rate_v1 import (
    GetExchangeRateV1Input,
    GetExchangeRateV1Output,
    GetExchangeRateV1OutputJson,
    get_exchange_rate,
)

assert_type(get_exchange_rate,
            ToolStub[GetExchangeRateV1Input, GetExchangeRateV1Output, GetExchangeRateV1OutputJson])


@get_exchange_rate.implement
def lookup(args: GetExchangeRateV1Input) -> GetExchangeRateV1Output:
    return GetExchangeRateV1Output(base=args.base.root, quote=args.quote.root, rate=1.1,
                                   date=args.date or dt.date(2026, 11, 27))


assert_type(lookup, GuardedTool[GetExchangeRateV1Input, GetExchangeRateV1Output, GetExchangeRateV1OutputJson])

envelope = lookup({"base": "EUR", "quote": "USD"})
from_example = lookup(get_exchange_rate.contract.examples[0].arguments)  # any JSON object (a Mapping)
if envelope["status"] == "ok":
    assert_type(envelope, OkEnvelope[GetExchangeRateV1OutputJson])
    assert_type(envelope["output"]["rate"], int | float)
    assert_type(envelope["output"]["date"], str)  # the wire form: a date is a string
    assert_type(envelope["output"].get("provider"), str | None)  # not required by the schema
    wire: Mapping[str, Any] = envelope["output"]
    empty: bool = envelope["empty"]
    model = lookup.parse_output(envelope)
    assert_type(model, GetExchangeRateV1Output)
    rate: float = model.rate
else:
    assert_type(envelope, ErrorEnvelope)
    code: Code = envelope["error"]["code"]
    action: Action = envelope["error"]["action"]
    retry_after: float | None = envelope["error"].get("retry_after")
