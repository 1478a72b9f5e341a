"""docs/deploy.md: a long-running tool called as an MCP task (specification 2025-11-25): the call
answers a task at once, the client follows it and reads the final envelope (connected in memory
here). Run by tests/test_docs_examples.py."""

import anyio
from mcp import ClientSession, types
from mcp.shared.memory import create_client_server_memory_streams

from contractgen.runtime.mcp_server import build_server
from generated import search_documents_v1 as docs


@docs.search_documents.implement
def search(args: docs.SearchDocumentsV1Input) -> docs.SearchDocumentsV1Output:
    return docs.SearchDocumentsV1Output.model_validate({"results": [], "complete": True})


server = build_server([search], name="documents")


# --8<-- [start:client]
async def follow(session: ClientSession) -> None:
    call = types.CallToolRequestParams(
        name="search_documents",
        arguments={"query": "invoices"},
        task=types.TaskMetadata(ttl=600_000),  # keep it 10 minutes from its creation
    )
    created = await session.send_request(types.CallToolRequest(params=call), types.CreateTaskResult)
    task_id = created.task.task_id
    print(created.task.status, created.task.ttl, created.task.poll_interval)
    result = await session.send_request(  # waits until the task ends
        types.GetTaskPayloadRequest(params=types.GetTaskPayloadRequestParams(task_id=task_id)),
        types.CallToolResult,
    )
    ended = await session.send_request(
        types.GetTaskRequest(params=types.GetTaskRequestParams(task_id=task_id)),
        types.GetTaskResult,
    )
    print(ended.status, result.is_error, result.structured_content)


# --8<-- [end:client]


async def main() -> None:
    async with (
        create_client_server_memory_streams() as (client, served),
        anyio.create_task_group() as group,
    ):
        group.start_soon(
            lambda: server.run(served[0], served[1], server.create_initialization_options())
        )
        async with ClientSession(*client) as session:
            await session.initialize()
            tools = (await session.list_tools()).tools
            print([(t.name, t.execution.task_support if t.execution else None) for t in tools])
            await follow(session)
        group.cancel_scope.cancel()


anyio.run(main)
# [('search_documents', 'optional')]
# working 600000 500
# completed False {'results': [], 'complete': True}
