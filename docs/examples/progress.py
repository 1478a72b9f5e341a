"""docs/deploy.md: a long-running tool reports progress; an MCP client that asked for it receives each
step before the result (connected in memory here). Run by tests/test_docs_examples.py."""

import anyio
from mcp import ClientSession
from mcp.shared.memory import create_client_server_memory_streams

from contractgen.runtime.mcp_server import build_server

# --8<-- [start:report]
from contractgen.runtime.progress import report_progress
from generated import search_documents_v1 as docs

SHARDS = ["archive", "drive", "mail"]


def scan(shard: str) -> None:
    """Stands in for the slow part."""


@docs.search_documents.implement
def search(args: docs.SearchDocumentsV1Input) -> docs.SearchDocumentsV1Output:
    for done, shard in enumerate(SHARDS, 1):
        scan(shard)
        report_progress(done, len(SHARDS), f"scanned {shard}")
    return docs.SearchDocumentsV1Output.model_validate({"results": [], "complete": True})


# --8<-- [end:report]


server = build_server([search], name="documents")


async def main() -> None:
    seen: list[str] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append(f"{progress:g}/{total:g} {message}")

    async with (
        create_client_server_memory_streams() as (client, served),
        anyio.create_task_group() as group,
    ):
        group.start_soon(
            lambda: server.run(served[0], served[1], server.create_initialization_options())
        )
        async with ClientSession(*client) as session:
            await session.initialize()
            result = await session.call_tool(
                "search_documents", {"query": "invoices"}, progress_callback=on_progress
            )
            print(*seen, sep="\n")
            print(result.is_error, result.structured_content)
        group.cancel_scope.cancel()


anyio.run(main)
# 1/3 scanned archive
# 2/3 scanned drive
# 3/3 scanned mail
# False {'results': [], 'complete': True}
