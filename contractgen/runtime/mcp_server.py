"""Serve guarded tools over MCP with the official SDK's low-level server (``mcp`` 2.x).

Clients see each contract's own ``inputSchema``, ``outputSchema``, description and annotations.
Every call goes through the tool's guard; what the client receives:

- success: ``isError: false``, ``structuredContent`` = the tool's output (it conforms to the
  advertised ``outputSchema``, which the SDK client checks), the full envelope as JSON text
  (the model-facing form, ``{"status": "ok", "output": ..., "empty": ...}``), and the envelope's
  metadata without the output under ``_meta["contractgen/envelope"]``;
- failure: ``isError: true`` with the error envelope as ``structuredContent`` and as JSON text
  (argument errors included, as MCP 2025-11-25 asks).

The failure budget is counted per MCP session: the HTTP ``Mcp-Session-Id`` when there is one, else
one key per client connection (a stdio process serves one). A client may name its own session in
the request's ``_meta["contractgen/session"]``, and declare the contract version it was written
against in ``_meta["contractgen/version"]``. When the request carries ``_meta.progressToken``, the
tool's ``report_progress`` calls become ``notifications/progress`` on that request.
"""

from __future__ import annotations

import asyncio
import json
import re
import secrets
import signal
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from .install_hint import install_hint

try:
    from mcp import types
    from mcp.server.lowlevel import Server
    from mcp.shared.exceptions import MCPError
except ImportError as exc:  # pragma: no cover - exercised only without the extra installed
    raise ImportError(f"contractgen.runtime.mcp_server needs the MCP SDK: {install_hint('mcp')}") from exc

from .envelope import SHORT_TEXT_CAP, cap_text
from .guard import GuardedTool
from .mcp import META_ENVELOPE, META_LONG_RUNNING, to_call_tool_result
from .mcp_tasks import connection_of, install_tasks, running_task
from .observe import loggable, logger
from .progress import progress_listener
from .scrub import NO_SECRETS, Scrubber, secrets_sent
from .visible import visible, visible_schema

__all__ = ["META_ENVELOPE", "META_SESSION", "META_VERSION", "AnsweringMalformed", "build_server", "call_result",
           "malformed_answer", "serve_stdio", "session_key", "tool_definition"]

#: ``_meta`` key a caller may use to declare the contract version it was written against.
META_VERSION = "contractgen/version"
#: ``_meta`` key a caller may use to name its own budget session (e.g. on stateless transports).
META_SESSION = "contractgen/session"
#: ``_meta`` key of a success result that carries the envelope without its output.
#: key in the SDK's per-connection ``state`` under which the connection's session id is kept
_CONNECTION_STATE_KEY = "contractgen/session"

SessionKey = Callable[[Any], str]


def build_server(tools: Iterable[GuardedTool[Any, Any]], *, name: str = "contractgen", version: str = "",
                 instructions: str | None = None, session: SessionKey | None = None,
                 caller: Callable[[Any], str | None] | None = None) -> Server[Any]:
    """An MCP low-level ``Server`` that lists ``tools`` and routes ``tools/call`` through their guards.

    One version per tool name: MCP advertises one ``outputSchema`` per name, and the SDK client
    rejects a result that does not match it. Serve the newest version; a caller of an older one
    (arguments shaped like it, or ``_meta["contractgen/version"]`` naming it) gets VERSION_MISMATCH
    with the migration steps from that guard. ``caller(ctx)`` names who made a request (an
    authenticated user or agent id, from headers or ``_meta``); tools with telemetry record it.
    """
    listed: dict[str, GuardedTool[Any, Any]] = {}
    for tool in tools:
        if tool.name in listed:
            raise ValueError(f"two versions of tool {tool.name!r} ({listed[tool.name].contract.version} and "
                             f"{tool.contract.version}): serve one version per name over MCP")
        listed[tool.name] = tool
    listed = dict(sorted(listed.items()))
    definitions = [tool_definition(tool) for tool in listed.values()]
    key_for = session or session_key

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=definitions)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        tool = listed.get(params.name)
        if tool is None:
            # an unknown tool is a protocol error in MCP 2025-11-25, not a tool-execution error
            # the name is the client's own text, of any size: echoed capped, on one line
            raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {cap_text(repr(params.name), SHORT_TEXT_CAP)}; "
                                                 f"this server has: {', '.join(listed) or 'no tools'}")
        meta = _request_meta(ctx, params)
        declared = meta.get(META_VERSION)
        declared = declared if isinstance(declared, str) and declared.strip() else None
        arguments = params.arguments if params.arguments is not None else {}
        token = meta.get("progressToken", meta.get("progress_token"))
        progress = _progress_sender(ctx, token, tool, arguments)
        with progress_listener(progress.report if progress is not None else None):
            envelope = await tool.acall(arguments, contract_version=declared, session=key_for(ctx),
                                        call_id=_call_id(ctx),
                                        caller=caller(ctx) if caller is not None else None)
        if progress is not None:
            await progress.flush()  # every notification goes out before the result
        return call_result(envelope)

    def input_schema(tool_name: str) -> Mapping[str, Any] | None:
        tool = listed.get(tool_name)
        return None if tool is None else _plain(tool.contract.input_schema)

    server = Server(name, version=version, instructions=instructions, on_list_tools=list_tools,
                    on_call_tool=call_tool, get_tool_input_schema=input_schema)
    long_running = {name for name, tool in listed.items() if tool.contract.timeout.long_running}
    if long_running:  # MCP Tasks: a long-running tool's call may run in the background
        install_tasks(server, long_running, key_for)
    return server


def tool_definition(tool: GuardedTool[Any, Any]) -> types.Tool:
    """The MCP ``Tool`` for a guarded tool: the contract's own schemas, description and hints."""
    contract = tool.contract
    hints = contract.annotations
    # its prose as a reader sees it: a hand-built contract's is not checked as a manifest's is
    title = None if contract.title is None else visible(contract.title)
    annotations = types.ToolAnnotations(
        title=title, read_only_hint=hints.read_only, destructive_hint=hints.destructive,
        idempotent_hint=hints.idempotent, open_world_hint=hints.open_world)
    meta: dict[str, Any] = {**(contract.meta or {}), META_VERSION: contract.version}
    if contract.timeout.long_running:
        meta[META_LONG_RUNNING] = True
    if contract.deprecation is not None:
        meta["contractgen/deprecated"] = {k: visible(v) if isinstance(v, str) else v
                                           for k, v in vars(contract.deprecation).items() if v not in (None, ())}
    icons = [types.Icon.model_validate(_plain(icon)) for icon in contract.icons] or None
    # a long-running tool may also be called as an MCP task (answered directly without ``task``)
    execution = types.ToolExecution(task_support="optional") if contract.timeout.long_running else None
    return types.Tool(name=contract.name, title=title, description=tool.description,
                      input_schema=visible_schema(_plain(contract.input_schema)),
                      output_schema=visible_schema(_plain(contract.output_schema)),
                      icons=icons, annotations=annotations, execution=execution, _meta=meta)


def call_result(envelope: Mapping[str, Any]) -> types.CallToolResult:
    """The ``CallToolResult`` for an envelope (see ``contractgen.runtime.mcp`` for the two shapes)."""
    result: types.CallToolResult = to_call_tool_result(envelope)
    return result


def session_key(ctx: Any) -> str:
    """The failure budget's session for a request: caller-named, HTTP session, or the connection."""
    meta = _request_meta(ctx, None)
    named = meta.get(META_SESSION)
    if isinstance(named, str) and named:
        return "client:" + named[:200]
    headers = getattr(getattr(ctx, "request", None), "headers", None)
    if headers is not None:
        http_session = headers.get("mcp-session-id")
        if http_session:
            return "http:" + str(http_session)[:200]
    # SDK 2.x builds a fresh ServerSession per request, so its id() is no session key; the
    # connection behind it lives as long as the client's connection and has per-connection state
    connection = connection_of(ctx)
    if connection is not None:
        if getattr(connection, "session_id", None):
            return "http:" + str(connection.session_id)[:200]
        state = getattr(connection, "state", None)
        if isinstance(state, dict):
            return "connection:" + str(state.setdefault(_CONNECTION_STATE_KEY, secrets.token_hex(8)))
    logger.warning("no MCP connection on the request context; the failure budget is process-wide")
    return "process"


#: Seconds work still running when the client disconnects gets to end after its cancellation.
SHUTDOWN_GRACE = 2.0


def serve_stdio(tools: Iterable[GuardedTool[Any, Any]], *, name: str = "contractgen", version: str = "",
                instructions: str | None = None) -> None:
    """Serve ``tools`` over stdin/stdout until the client disconnects (blocking).

    Then work still running is cancelled and given ``SHUTDOWN_GRACE`` seconds; work that ignores its
    cancellation (abandoned after its deadline) is left behind, and the server returns anyway.
    ``asyncio.run`` waits for every task, so such work kept the process alive after its client left.
    """
    server = build_server(tools, name=name, version=version, instructions=instructions)

    async def main() -> None:
        from mcp.server.stdio import stdio_server

        async with stdio_server() as (read_stream, write_stream):
            await server.run(AnsweringMalformed(read_stream, write_stream), write_stream,
                             server.create_initialization_options())

    _run_leaving_abandoned(main)


class _CtrlCCancels:
    """While the server runs in the main thread, Ctrl-C cancels its main task (a second one raises
    KeyboardInterrupt), as ``asyncio.run`` does. With Python's default SIGINT handler a
    ``KeyboardInterrupt`` a tool raised itself could not be told from the owner's Ctrl-C
    (``interrupts.owner_stop``), so it went through and stopped the server."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.task: asyncio.Task[Any] | None = None
        self.interrupts = 0
        self.installed = False

    def install(self) -> None:
        if threading.current_thread() is threading.main_thread() \
                and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            try:
                signal.signal(signal.SIGINT, self.on_sigint)
                self.installed = True
            except (ValueError, OSError):  # not allowed here (an embedded interpreter)
                pass

    def restore(self) -> None:
        if self.installed and signal.getsignal(signal.SIGINT) == self.on_sigint:
            signal.signal(signal.SIGINT, signal.default_int_handler)

    def on_sigint(self, signum: int, frame: Any) -> None:
        self.interrupts += 1
        if self.interrupts == 1 and self.task is not None and not self.task.done():
            self.task.cancel()
            self.loop.call_soon_threadsafe(lambda: None)  # wake the loop to run the cancellation
            return
        raise KeyboardInterrupt()


def _run_leaving_abandoned(main: Callable[[], Any], grace: float | None = None) -> None:
    """Run ``main()`` in a new event loop, then cancel what is still running and close the loop
    after ``grace`` seconds, whether or not all of it ended. Ctrl-C stops it (``_CtrlCCancels``)."""
    loop = asyncio.new_event_loop()
    try:
        ctrl_c = _CtrlCCancels(loop)
        ctrl_c.install()
        try:
            ctrl_c.task = loop.create_task(main())
            loop.run_until_complete(ctrl_c.task)
        except asyncio.CancelledError:
            if ctrl_c.interrupts:  # the owner's Ctrl-C: the server stops as it always did
                raise KeyboardInterrupt() from None
            raise
        finally:
            ctrl_c.restore()
    finally:
        try:
            pending = [task for task in asyncio.all_tasks(loop) if not task.done()]
            for task in pending:
                task.cancel()
            if pending:
                loop.run_until_complete(asyncio.wait(pending, timeout=SHUTDOWN_GRACE if grace is None else grace))
            left = [task for task in pending if not task.done()]
            if left:
                logger.warning("%d calls still ignore their cancellation; the server stops without "
                               "them", len(left))
                for task in left:  # given up for good: asyncio need not report each as destroyed
                    task._log_destroy_pending = False  # type: ignore[attr-defined]
            loop.run_until_complete(loop.shutdown_asyncgens())
        finally:
            loop.close()


def _progress_sender(ctx: Any, token: Any, tool: GuardedTool[Any, Any], arguments: Any) -> _ProgressSender | None:
    """Who hears a call's progress: the client when it sent a progress token, the task it runs as."""
    token = token if isinstance(token, (str, int)) else None
    return None if token is None and running_task() is None else _ProgressSender(ctx, token, tool, arguments)


class _ProgressSender:
    """Turns ``report_progress`` calls (from the loop or a worker thread) into MCP notifications.

    MCP requires progress to increase, so a report that does not is dropped. A message is the tool's
    own text, so the secrets the call sent are taken out of it first (``scrub.py``).
    """

    def __init__(self, ctx: Any, token: str | int | None, tool: GuardedTool[Any, Any], arguments: Any) -> None:
        self.ctx = ctx
        self.token = token  # None: no notifications (a task's status still hears the reports)
        self.task = running_task()
        self.tool = tool
        self.arguments = arguments
        self.scrub: Scrubber | None = None  # made at the first message: most reports have none
        self.loop = asyncio.get_running_loop()
        self.sent: list[Any] = []
        self.last: float | None = None
        self.lock = threading.Lock()

    def report(self, progress: float, total: float | None, message: str | None) -> None:
        with self.lock:
            if self.last is not None and progress <= self.last:
                return
            self.last = progress
            if message is not None:
                if self.scrub is None:
                    self.scrub = secrets_sent(self.arguments, self.tool.input_schema,
                                              getattr(self.tool, "_resources", None))
                message = self.scrub.text(message)
            if self.task is not None:
                self.task.progressed(progress, total, message)
            if self.token is None:
                return
            if self.task is None:
                coro = self.ctx.session.send_progress_notification(
                    self.token, progress, total, message, related_request_id=self.ctx.request_id)
            else:  # a task outlives its request, whose channel closed with the answer: the connection's
                coro = connection_of(self.ctx).notify("notifications/progress", {
                    "progressToken": self.token, "progress": progress,
                    **({"total": total} if total is not None else {}),
                    **({"message": message} if message is not None else {})})
            try:
                here = asyncio.get_running_loop() is self.loop
            except RuntimeError:
                here = False
            self.sent.append(self.loop.create_task(coro) if here
                             else asyncio.run_coroutine_threadsafe(coro, self.loop))

    async def flush(self) -> None:
        with self.lock:
            sent, self.sent = self.sent, []
        for item in sent:
            try:
                await (item if isinstance(item, asyncio.Future) else asyncio.wrap_future(item))
            except Exception as exc:  # noqa: BLE001 - a lost notification must not fail the call
                logger.warning("progress notification not sent", exc_info=loggable(exc, self.scrub or NO_SECRETS))


class AnsweringMalformed:
    """A transport's read stream whose malformed requests are answered, not dropped.

    A transport hands the server what it could not read as an exception, which the SDK logs at
    DEBUG and drops: a ``tools/call`` nested deeper than the JSON reader's limit, or whose
    ``params`` is a list, got no reply, and its client waited forever. Each such request gets its
    JSON-RPC error here (``malformed_answer``), written to ``write_stream``; anything else passes
    through. ``serve_stdio`` uses it; wrap another transport's streams the same way:
    ``server.run(AnsweringMalformed(read, write), write, options)``.
    """

    def __init__(self, read_stream: Any, write_stream: Any) -> None:
        self._read = read_stream
        self._write = write_stream

    def __getattr__(self, name: str) -> Any:  # last_context, close... are the transport's
        return getattr(self._read, name)

    def __aiter__(self) -> AnsweringMalformed:
        return self

    async def __anext__(self) -> Any:
        while True:
            item = await self._read.__anext__()
            if not await self._answered(item):
                return item

    async def receive(self) -> Any:
        while True:
            item = await self._read.receive()
            if not await self._answered(item):
                return item

    async def __aenter__(self) -> AnsweringMalformed:  # noqa: PYI034 - Self needs Python 3.11
        await self._read.__aenter__()
        return self

    async def __aexit__(self, *exc_info: object) -> Any:
        return await self._read.__aexit__(*exc_info)

    async def _answered(self, item: Any) -> bool:
        if not isinstance(item, Exception):
            return False
        answer = malformed_answer(item)
        if answer is None:
            return False
        from mcp.shared.message import SessionMessage

        logger.info("malformed MCP request (id %s) answered with JSON-RPC error %d", answer.id, answer.error.code)
        await self._write.send(SessionMessage(answer))
        return True


#: JSON-RPC 2.0's own codes (mcp_types names them too)
_PARSE_ERROR, _INVALID_REQUEST, _INVALID_PARAMS = -32700, -32600, -32602


def malformed_answer(exc: Exception) -> types.JSONRPCError | None:
    """The JSON-RPC error for a message the transport could not read (its ``ValidationError``), or
    None when no answer is due: a notification or a response (JSON-RPC answers requests only), or
    an exception that is no reading error. Text that is no JSON, or whose ``id`` cannot be found,
    is answered with ``id: null``, as JSON-RPC asks."""
    errors_of = getattr(exc, "errors", None)
    try:
        errors = errors_of(include_url=False, include_context=False) if callable(errors_of) else None
    except Exception:  # noqa: BLE001 - not pydantic's: nothing to read an id from
        errors = None
    if not errors:
        return None
    invalid_json = next((e for e in errors if e.get("type") == "json_invalid"), None)
    if invalid_json is not None:
        raw = invalid_json.get("input")
        request_id = _shallow_id(raw) if isinstance(raw, str) else None
        if "recursion limit" in str(invalid_json.get("msg")):
            return _error(request_id, _INVALID_REQUEST, "Invalid request: it nests deeper than this server "
                          "reads; send the arguments with less nesting")
        return _error(request_id, _PARSE_ERROR, "Parse error: the message is not valid JSON")
    message = next((e["input"] for e in errors if isinstance(e.get("input"), Mapping)
                    and "jsonrpc" in e["input"]), None)
    if message is None or "method" not in message or "id" not in message:
        return None  # a notification or a response: JSON-RPC sends nothing back
    request_id = message["id"] if type(message["id"]) in (int, str) else None
    params = message.get("params")
    if "params" in message and params is not None and not isinstance(params, Mapping):
        kind = {list: "a list", str: "a string", bool: "a boolean", int: "a number", float: "a number"}.get(
            type(params), type(params).__name__)
        return _error(request_id, _INVALID_PARAMS, f"Invalid params: MCP requests take params as a JSON "
                      f"object (got {kind})")
    first = errors[0]
    where = ".".join(str(part) for part in first.get("loc", ())[1:]) or "the message"
    return _error(request_id, _INVALID_REQUEST, cap_text(f"Invalid request: {where}: {first.get('msg')}",
                                                         SHORT_TEXT_CAP * 4))


def _error(request_id: int | str | None, code: int, message: str) -> types.JSONRPCError:
    return types.JSONRPCError(jsonrpc="2.0", id=request_id,
                              error=types.ErrorData(code=code, message=" ".join(message.split())))


_ID_VALUE = re.compile(r'\s*:\s*(-?\d+(?![\d.eE])|"(?:[^"\\\n]|\\.){0,200}")')


def _shallow_id(text: str) -> int | str | None:
    """The ``id`` member of the top-level object of a JSON text too deep (or too broken) to parse:
    one pass over it, skipping strings, looking at depth 1 only."""
    depth, at, end = 0, 0, len(text)
    while at < end:
        char = text[at]
        if char == '"':
            close = at + 1
            while close < end and text[close] != '"':
                close += 2 if text[close] == "\\" else 1
            if depth == 1 and close - at == 3 and text[at + 1:close] == "id":
                value = _ID_VALUE.match(text, close + 1)
                if value is not None:
                    found = json.loads(value.group(1))
                    return found if type(found) in (int, str) else None
            at = close + 1
            continue
        if char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
        at += 1
    return None


def _call_id(ctx: Any) -> str | None:
    request_id = getattr(ctx, "request_id", None)
    return None if request_id is None else str(request_id)


def _request_meta(ctx: Any, params: Any) -> Mapping[str, Any]:
    """The request's raw ``_meta`` (the SDK's typed view drops keys it does not know)."""
    raw = getattr(ctx, "params", None)
    found = raw.get("_meta") if isinstance(raw, Mapping) else None
    if isinstance(found, Mapping):
        return found
    typed = getattr(params, "meta", None) if params is not None else getattr(ctx, "meta", None)
    return typed if isinstance(typed, Mapping) else {}


def _plain(value: Any) -> Any:
    """A plain JSON copy of a (possibly read-only) contract schema."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value
