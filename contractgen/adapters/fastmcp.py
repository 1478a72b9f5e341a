"""FastMCP 4.x: guarded tools registered on a ``FastMCP`` server.

Name, title, description, input and output schema and annotations come from the contract (the same
definition ``contractgen.runtime.mcp_server`` serves); results are the runtime's MCP form (``isError``
plus the envelope, the bare output as ``structuredContent`` on success). Each tool is registered as
its contract version, so several versions of one tool are served side by side and FastMCP routes a
pinned call (``call_tool(..., version=)``) to its version; a pin no version answers gets
VERSION_MISMATCH with the migration steps. ``report_progress`` reaches the client as FastMCP progress.
A long-running tool may also be called as an MCP task (specification 2025-11-25, on connections
that speak it: ``contractgen.runtime.mcp_tasks``).

The failure budget's session, first that applies: the client's ``_meta["contractgen/session"]`` or
``contractgen-session`` HTTP header; else FastMCP's own scope for data that follows one client (the
MCP session on a legacy connection, the authenticated principal, the process on stdio and in memory).
An unauthenticated stateless HTTP request has none: its budget lasts one request, and the server
warns once, when its HTTP app is built (at start-up, before the first request). Outside a request
(``server.call_tool`` in a script) the session is ``local``.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
import logging
import threading
import weakref
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ..runtime.install_hint import install_hint

try:
    from fastmcp import FastMCP
    from fastmcp.exceptions import FastMCPError
    from fastmcp.server.dependencies import get_access_token, get_context
    from fastmcp.server.middleware import Middleware, MiddlewareContext
    from fastmcp.tools import Tool, ToolResult
    from mcp.server.auth.provider import principal_components
    from pydantic import Field
except ImportError as exc:  # pragma: no cover - exercised only without the extra installed
    raise ImportError("contractgen.adapters.fastmcp needs FastMCP: "
                      f"{install_hint('fastmcp')}") from exc

from packaging.version import Version

from contractgen.runtime import GuardedTool, error_envelope
from contractgen.runtime.mcp_server import (
    META_SESSION,
    META_VERSION,
    _progress_sender,
    call_result,
    session_key,
    tool_definition,
)
from contractgen.runtime.mcp_tasks import install_tasks
from contractgen.runtime.observe import loggable
from contractgen.runtime.progress import progress_listener
from contractgen.runtime.versions import VersionCheck

from ._confirm import asks, call_answered, gate_of
from ._escalation import Escalated, Escalation, escalated, escalation_of
from ._guarded import caller_label, session_from, tool_failure

__all__ = ["HEADER_SESSION", "ContractBackstop", "GuardedFastMCPTool", "add_guarded_tools",
           "envelope_schema", "fastmcp_tool"]

#: HTTP header a client may send to name its budget session (a stock client sets headers, not _meta)
HEADER_SESSION = "contractgen-session"

logger = logging.getLogger("contractgen.adapters")


class GuardedFastMCPTool(Tool):
    """A FastMCP tool whose every call goes through a contractgen guard."""

    guarded: Any = Field(default=None, exclude=True)
    #: ``structuredContent`` of a success is the whole envelope (the output schema says so)
    structured_envelope: bool = Field(default=False, exclude=True)
    #: the output schema of this version alone (``output_schema`` may declare other versions' too)
    version_output_schema: dict[str, Any] | None = Field(default=None, exclude=True)
    #: which escalate errors tell a human (MCP has no escalation of its own to trigger)
    escalation: Any = Field(default=None, exclude=True)
    #: the contract's confirmation rule (runtime/confirmation.py), None without one
    gate: Any = Field(default=None, exclude=True)

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        tool: GuardedTool[Any, Any] = self.guarded
        call = _this_request(tool)
        approved = await _elicited(call.context, self.gate.summary(arguments)) \
            if asks(self.gate, arguments) else None
        # the MCP server's sender: FastMCP's context offers the same session and request id
        sender = _progress_sender(call.context, call.progress, tool, arguments)
        with progress_listener(sender.report if sender is not None else None):
            envelope = await call_answered(tool, arguments, approved, session=call.session,
                                           contract_version=call.version, call_id=call.call_id,
                                           caller=call.caller)
        if sender is not None:
            await sender.flush()  # every notification goes out before the result
        raised = escalated(self.escalation, tool, envelope, call.session)
        return _tool_result(envelope if raised is None else raised, whole=self.structured_envelope)


#: what a success's ``structuredContent`` holds: the bare ``output`` (the contract's MCP export) or
#: the whole ``envelope``, for hosts that hand the model only ``structuredContent``
Structured = Literal["output", "envelope"]


def fastmcp_tool(tool: GuardedTool[Any, Any], *, structured: Structured = "output",
                 escalate: bool | Iterable[str] | Escalation | None = None,
                 on_escalate: Callable[[Escalated], Any] | None = None) -> GuardedFastMCPTool:
    """The FastMCP tool for a guarded tool, declared exactly as the contract's MCP export (with
    ``structured="envelope"``, its output schema is the envelope's, holding the contract's).
    ``escalate`` (True, or the codes) with ``on_escalate``: an error whose action is escalate tells a
    human (MCP has no escalation to trigger)."""
    definition = tool_definition(tool)
    whole = structured == "envelope"
    output_schema = envelope_schema(definition.output_schema) if whole else definition.output_schema
    return GuardedFastMCPTool(name=definition.name, version=tool.version, title=definition.title,
                              description=definition.description, parameters=definition.input_schema,
                              output_schema=output_schema, annotations=definition.annotations,
                              execution=definition.execution, meta=definition.meta, guarded=tool,
                              structured_envelope=whole, version_output_schema=output_schema,
                              escalation=escalation_of(escalate, on_escalate), gate=gate_of(tool))



async def _elicited(ctx: Any, summary: str) -> bool | None:
    """The user's answer through MCP elicitation: accepted with yes is True, declined (or accepted
    with no) is False. None, so the call answers CONFIRMATION_REQUIRED, where nobody can be asked:
    no request context, a client that declared no elicitation capability, a stateless connection
    (no server-to-client requests), or a user who cancelled the form."""
    try:
        capabilities = ctx.session.client_capabilities if ctx is not None else None
        if capabilities is None or capabilities.elicitation is None:
            return None
        answer = await ctx.elicit(f"Confirm: {summary}?", response_type=bool, response_title="Confirm")
    except Exception as exc:  # noqa: BLE001 - the call is held, not failed
        logger.info("elicitation unavailable for a confirmation (%s); the call is held", type(exc).__name__)
        return None
    if answer.action == "accept":
        return answer.data is True
    return False if answer.action == "decline" else None


def envelope_schema(output_schema: Mapping[str, Any] | None) -> dict[str, Any]:
    """The JSON schema of a successful envelope whose ``output`` is ``output_schema`` (its ``$defs``
    move to the root, where its ``#/$defs/...`` references point)."""
    output = dict(output_schema or {})
    defs = output.pop("$defs", None)
    dialect = output.pop("$schema", None)
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"status": {"const": "ok"}, "tool": {"type": "string"}, "version": {"type": "string"},
                       "output": output, "empty": {"type": "boolean"}, "empty_meaning": {"type": "string"},
                       "attempted": {},
                       "notices": {"type": "array", "items": {"type": "object"}},
                       "deprecation": {"type": "object"}},
        "required": ["status", "output"],
    }
    if dialect is not None:
        schema["$schema"] = dialect
    if defs is not None:
        schema["$defs"] = defs
    return schema


def add_guarded_tools(server: FastMCP, tools: GuardedTool[Any, Any] | Iterable[GuardedTool[Any, Any]],
                      *, structured: Structured = "output",
                      escalate: bool | Iterable[str] | Escalation | None = None,
                      on_escalate: Callable[[Escalated], Any] | None = None) -> list[GuardedFastMCPTool]:
    """Register guarded tools (one, or every generated tool you implemented) on ``server``; versions
    of one tool are served side by side (an unpinned call gets the newest, as FastMCP decides; the
    newest declares every served version's output, which clients check a pinned call's result by).
    ``structured="envelope"``: a success's ``structuredContent`` is the whole envelope (``empty``,
    ``empty_meaning``, ``notices`` beside ``output``), for hosts that read nothing else.
    ``escalate``/``on_escalate``: as ``fastmcp_tool``, for each tool."""
    batch = [tools] if isinstance(tools, GuardedTool) else list(tools)
    pins = _pins_of(server)
    served = [(t.name, t.version) for t in batch]
    for name, version in served:
        if served.count((name, version)) > 1 or version in pins.served.get(name, {}):
            raise ValueError(f"{name} {version} is registered twice: serve each version of a tool once")
    registered = [fastmcp_tool(t, structured=structured, escalate=escalate, on_escalate=on_escalate)
                  for t in batch]
    _warn_at_start_up(server)
    for item in registered:
        server.add_tool(item)
        pins.served.setdefault(item.name, {})[item.guarded.version] = item.guarded
        pins.registered.setdefault(item.name, {})[item.guarded.version] = item
    for name in {item.name for item in registered}:
        _declare_every_served_output(list(pins.registered[name].values()))
    long_running = {t.name for t in batch if t.contract.timeout.long_running}
    if long_running:
        _tasks_of(server).update(long_running)
    return registered


def _declare_every_served_output(versions: list[GuardedFastMCPTool]) -> None:
    """FastMCP lists one version of a tool, the newest, and MCP clients check every successful
    result against the output schema listed under the tool's name: a pinned call to an older
    version whose output differs would be refused by the client. So the newest version declares
    the output of every served version (``anyOf``, newest first, each with its references inlined).
    One version, or versions with one output schema, keep the contract's; so do versions whose
    outputs cannot be put side by side (one has none, a recursive one keeps ``$defs``, or FastMCP
    wraps a non-object one)."""
    from fastmcp.utilities.json_schema import dereference_refs

    ordered = sorted(versions, key=lambda t: Version(t.guarded.version), reverse=True)
    own = [t.version_output_schema for t in ordered]
    newest = ordered[0]
    newest.output_schema = own[0]
    if all(schema == own[0] for schema in own):
        return
    inlined = [dereference_refs(copy.deepcopy(schema)) if schema is not None else None for schema in own]
    if any(schema is None or "$defs" in schema or "x-fastmcp-wrap-result" in schema for schema in inlined):
        return
    newest.output_schema = {"type": "object", "anyOf": [
        {key: value for key, value in schema.items() if key != "$schema"} for schema in inlined if schema]}


def _tool_result(envelope: Mapping[str, Any], *, whole: bool = False) -> ToolResult:
    result = call_result(envelope)
    if whole and not result.is_error:  # the envelope itself, which the output schema declares
        return ToolResult(content=result.content, structured_content=dict(envelope), is_error=False)
    return ToolResult(content=result.content, structured_content=result.structured_content,
                      meta=result.meta, is_error=result.is_error)


@dataclass(frozen=True)
class _Request:
    """What one call knows of its request: budget session, declared version, request id, caller."""

    session: str
    version: str | None = None
    call_id: str | None = None
    caller: str | None = None
    progress: str | int | None = None  # the client's progress token
    context: Any = None


def _this_request(tool: GuardedTool[Any, Any]) -> _Request:
    """The current request as the guard needs it; never raises (a failure here is the framework's
    state, not the call's: the call goes on under the ``local`` session, and the log says why)."""
    try:
        return _read_request()
    except Exception as exc:  # the adapter never raises into FastMCP
        logger.warning("FastMCP request context unreadable for %s; budget session 'local'", tool.name,
                       exc_info=loggable(exc))
        return _Request("local")


def _read_request() -> _Request:
    try:
        ctx = get_context()
    except RuntimeError:  # no FastMCP context at all (a direct ``run()`` in a test or script)
        return _Request("local")
    request = ctx.request_context
    if request is None:  # ``server.call_tool`` outside a request: a context with no session
        return _Request("local")
    meta = _plain_meta(request.meta)
    headers = request.request.headers if request.request is not None else {}
    named = session_from(meta, META_SESSION) or session_from(headers, HEADER_SESSION)
    access = get_access_token()
    user = (access.subject or access.client_id) if access is not None else None
    call_id = None if request.request_id is None else str(request.request_id)
    if named is not None:
        # under authentication a named session is the principal's own: another user naming the
        # same id neither spends nor resets it
        session = ("" if access is None else _principal_key(access) + "/") + "client:" + named
    else:
        # FastMCP's rule for data that follows one client across requests (what its UserSession and
        # session state key on): the legacy MCP session, the principal, or the stdio process
        scope = ctx._session_scope_key()
        if scope is None:  # served by an HTTP app not built by this server's http_app (a mount)
            _warn_unkept(getattr(ctx, "fastmcp", None))
            session = "request:" + str(call_id or ctx.session_id)[:200]
        else:
            session = "mcp:" + str(scope)[:200]
    token = meta.get("progressToken", meta.get("progress_token"))
    progress = token if isinstance(token, (str, int)) else None
    # the host application as it names itself (clientInfo): the agent side of the caller
    client = getattr(getattr(request.session, "client_params", None), "client_info", None)
    caller = caller_label(user=user, agent=getattr(client, "name", None), session=named)
    return _Request(session, session_from(meta, META_VERSION), call_id, caller, progress, ctx)


def _principal_key(access: Any) -> str:
    """A short, delimiter-free key for the token's principal (client, issuer, subject)."""
    principal = json.dumps(principal_components(access), separators=(",", ":"))
    return "user:" + hashlib.sha256(principal.encode("utf-8")).hexdigest()[:32]


def _plain_meta(meta: Any) -> dict[str, Any]:
    if isinstance(meta, Mapping):
        return dict(meta)
    dump = getattr(meta, "model_dump", None)
    return dump(by_alias=True) if dump is not None else {}


#: servers already warned that a stateless request could not be given a budget session
_WARNED: weakref.WeakSet[Any] = weakref.WeakSet()
#: servers whose ``http_app`` checks the configuration it serves
_WATCHED: weakref.WeakSet[Any] = weakref.WeakSet()
_WARN_LOCK = threading.Lock()


def _warn_at_start_up(server: FastMCP) -> None:
    """Warn when the server's HTTP app is built (FastMCP builds every HTTP app it serves with
    ``server.http_app``, ``run(transport="http")`` and ``fastmcp run`` too): a streamable-HTTP app
    without ``auth`` serves stateless clients with nothing to name their session. FastMCP's lifespan
    cannot tell an HTTP start from an in-memory client's, and its settings do not say which
    transport a server will be run on; the app it built does."""
    with _WARN_LOCK:
        if server in _WATCHED:
            return
        _WATCHED.add(server)
    build = server.http_app

    @functools.wraps(build)
    def http_app(*args: Any, **kwargs: Any) -> Any:
        app = build(*args, **kwargs)
        state = getattr(app, "state", None)
        streamable = getattr(state, "transport_type", None) == "streamable-http"  # SSE keeps sessions
        if streamable and getattr(state, "fastmcp_auth", None) is None:
            _warn_unkept(server)
        return app

    server.http_app = http_app  # type: ignore[method-assign]


def _warn_unkept(server: Any) -> None:
    with _WARN_LOCK:
        if server is None or server in _WARNED:
            return
        _WARNED.add(server)
    logger.warning(
        "FastMCP server %r is served over HTTP without authentication: a request on MCP's stateless "
        "protocol (the default of current clients) that names no session has a failure budget that "
        "lasts one request, so a model that retries is never told to stop. hint: serve with auth= (the "
        "budget follows the authenticated client), or have clients send the %r header or _meta[%r]",
        getattr(server, "name", "?"), HEADER_SESSION, META_SESSION)


class _VersionPins(Middleware):
    """Answers a call pinned to a version of a guarded tool that no registered version is:
    VERSION_MISMATCH with the migration steps, where FastMCP would say "Unknown tool"."""

    def __init__(self) -> None:
        self.served: dict[str, dict[str, GuardedTool[Any, Any]]] = {}
        self.registered: dict[str, dict[str, GuardedFastMCPTool]] = {}

    async def on_call_tool(self, context: MiddlewareContext[Any], call_next: Any) -> Any:
        message = context.message
        versions = self.served.get(getattr(message, "name", None) or "")
        pin = _pinned_version(getattr(message, "meta", None))
        if versions is None or pin is None or pin in versions:
            return await call_next(context)
        return _tool_result(unserved_pin(list(versions.values()), pin))


def unserved_pin(served: list[GuardedTool[Any, Any]], pin: str) -> dict[str, Any]:
    """VERSION_MISMATCH for a call pinned to ``pin``, which none of ``served`` (one tool's versions)
    is: the steps from the served version of the pin's major (else the newest) when there are some."""
    def major(version: str) -> str:
        return version.split(".", 1)[0]

    same_major = [t for t in served if major(t.version) == major(pin)]
    target = max(same_major or served, key=lambda t: Version(t.version))
    mismatch = VersionCheck(target.contract).check({}, pin)
    versions = ", ".join(sorted(t.version for t in served))
    if mismatch is None:  # compatible by semver, but a pin is exact: never another version's result
        message = (f"This call is pinned to {target.name} {pin[:40]}, which is not served here "
                   f"(served: {versions}). Call again pinned to one of those, or without a pin.")
        return error_envelope(target.contract, "VERSION_MISMATCH", message,
                              expected_version=target.version, received_version=pin[:40])
    return error_envelope(target.contract, "VERSION_MISMATCH",
                          f"{mismatch.message} Served versions: {versions}.",
                          expected_version=mismatch.expected_version,
                          received_version=mismatch.received_version,
                          migration=list(mismatch.migration) or None, field=mismatch.field)


#: the long-running tools of each server the adapter serves MCP Tasks on
_TASKS: weakref.WeakKeyDictionary[Any, set[str]] = weakref.WeakKeyDictionary()


def _tasks_of(server: FastMCP) -> set[str]:
    """The names of ``server``'s tools that may run as MCP tasks; the first call serves Tasks on
    the SDK server inside FastMCP (FastMCP's own ``task=True`` needs the fastmcp-tasks engine)."""
    names = _TASKS.get(server)
    if names is None:
        names = _TASKS[server] = set()
        install_tasks(server._mcp_server, names, session_key)
    return names


def _pinned_version(meta: Any) -> str | None:
    fastmcp_meta = _plain_meta(meta).get("fastmcp")
    version = fastmcp_meta.get("version") if isinstance(fastmcp_meta, Mapping) else None
    return version if isinstance(version, str) and version else None


#: the pin middleware of each server the adapter registered tools on
_PINS: weakref.WeakKeyDictionary[Any, _VersionPins] = weakref.WeakKeyDictionary()


def _pins_of(server: FastMCP) -> _VersionPins:
    pins = _PINS.get(server)
    if pins is None:
        pins = _PINS[server] = _VersionPins()
        server.add_middleware(pins)
    return pins


class ContractBackstop(Middleware):
    """``server.add_middleware(ContractBackstop())``: a tool nobody wrapped that raises answers an
    INTERNAL envelope with a reference (the traceback in the ``contractgen.adapters`` log under it)
    instead of FastMCP's "Error calling tool 'x': <the exception's text>". What FastMCP raises on
    purpose (an unknown tool, invalid arguments, a ``ToolError`` the tool raised itself) passes."""

    async def on_call_tool(self, context: MiddlewareContext[Any], call_next: Any) -> Any:
        try:
            return await call_next(context)
        except FastMCPError as exc:
            crash = exc.__cause__
            if crash is None or isinstance(crash, FastMCPError) or not isinstance(crash, Exception):
                raise
            message = context.message
            return _tool_result(tool_failure(getattr(message, "name", None) or "tool", None,
                                             getattr(message, "arguments", None), crash))
