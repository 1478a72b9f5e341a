"""docs/integrations.md: a guarded tool served over MCP, called by the SDK's own client (connected in
memory here by `mcp.Client`; `serve_stdio` serves the same tools over stdin/stdout). Run by tests/test_docs_examples.py."""

from typing import cast

import anyio
from mcp import Client
from mcp.types import RequestParamsMeta

from contractgen.runtime import contract_from_definition, wrap_tool
from contractgen.runtime.mcp import call_mcp_tool
from contractgen.runtime.mcp_server import build_server
from generated import AGENT_INSTRUCTIONS
from generated import get_exchange_rate_v1 as rates


@rates.get_exchange_rate.implement
def get_exchange_rate(args: rates.GetExchangeRateV1Input) -> rates.GetExchangeRateV1Output:
    return rates.GetExchangeRateV1Output.model_validate(
        {"base": args.base.root, "quote": args.quote.root, "rate": 1.1, "date": "2026-11-27"}
    )


server = build_server([get_exchange_rate], name="rates", instructions=AGENT_INSTRUCTIONS)


async def main() -> None:
    async with Client(server) as client:  # the SDK's client, connected to the server in memory
        print([tool.name for tool in (await client.list_tools()).tools])
        ok = await client.call_tool("get_exchange_rate", {"base": "EUR", "quote": "USD"})
        print(ok.is_error, ok.structured_content)
        bad = await client.call_tool("get_exchange_rate", {"base": "euro", "quote": "USD"})
        print(bad.is_error, (bad.structured_content or {})["error"]["code"])
        # --8<-- [start:meta]
        # _meta is an open map (PEP 728 extra_items), which mypy does not read yet: hence the cast
        meta = cast(RequestParamsMeta, {"contractgen/version": "0.9.0"})
        arguments = {"base": "EUR", "quote": "USD"}
        old = await client.call_tool("get_exchange_rate", arguments, meta=meta)
        # --8<-- [end:meta]
        print(old.is_error, (old.structured_content or {})["error"]["code"])
        # --8<-- [start:wrap]
        # the same server seen as another team's: its tool, wrapped in a guard of our own
        session = client.session  # an SDK ClientSession
        definition = (await session.list_tools()).tools[0]
        theirs = wrap_tool(
            contract_from_definition(definition, version="1.0.0"),
            lambda args: call_mcp_tool(session, definition.name, args),
        )
        # --8<-- [end:wrap]
        relayed = await theirs.acall({"base": "EUR", "quote": "JPY"})
        print(relayed["status"], relayed.get("output"))


anyio.run(main)
# ['get_exchange_rate']
# False {'base': 'EUR', 'quote': 'USD', 'rate': 1.1, 'date': '2026-11-27'}
# True INVALID_ARGUMENT
# True VERSION_MISMATCH
# ok {'base': 'EUR', 'quote': 'JPY', 'rate': 1.1, 'date': '2026-11-27'}
