"""Every place the runtime and the adapters log an exception goes through the call's scrub.

Two halves. The structural half walks the source of ``contractgen/runtime`` and
``contractgen/adapters``: an exception reaches a log line only as ``exc_info=loggable(...)`` (which
hides pydantic input values and scrubs the secrets it is given), never through
``logger.exception`` or ``exc_info=True``, which print the raw text. The behavioural half drives
each path that can hold argument text with a secret the call sent (a hook or telemetry exporter that
quotes the arguments it was given, a failure around the guard in an adapter, a progress listener
quoting the tool's message) and reads the envelope, the log and the MCP client's result.
"""

from __future__ import annotations

import ast
import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp_support import connected

from contractgen.adapters._guarded import call_guarded, call_guarded_sync
from contractgen.runtime import Contract, GuardedTool, Timeout, ToolError, guard
from contractgen.runtime.hooks import CallHooks
from contractgen.runtime.mcp_server import build_server
from contractgen.runtime.progress import progress_listener, report_progress

PACKAGE = Path(__file__).resolve().parent.parent / "contractgen"
SECRET = "hunter2-SECRET-7731"
SCHEMA = {"type": "object", "properties": {"pw": {"type": "string", "writeOnly": True},
                                           "note": {"type": "string"}}}


def _logging_calls() -> list[tuple[str, ast.Call]]:
    found = []
    for folder in ("runtime", "adapters"):
        for path in sorted((PACKAGE / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                        node.func.attr in {"debug", "info", "warning", "error", "critical", "exception", "log"} \
                        and isinstance(node.func.value, ast.Name) and node.func.value.id.endswith("logger"):
                    found.append((f"{path.relative_to(PACKAGE)}:{node.lineno}", node))
    return found


def test_every_logged_exception_goes_through_loggable() -> None:
    calls = _logging_calls()
    assert len(calls) > 20  # the walk did find the log lines
    raw = []
    for where, call in calls:
        if call.func.attr == "exception":  # type: ignore[attr-defined]
            raw.append(f"{where}: logger.exception prints the raw exception")
        for keyword in call.keywords:
            if keyword.arg == "exc_info" and not (
                    isinstance(keyword.value, ast.Call) and isinstance(keyword.value.func, ast.Name)
                    and keyword.value.func.id == "loggable") and not (
                    isinstance(keyword.value, ast.IfExp) and isinstance(keyword.value.body, ast.Call)):
                raw.append(f"{where}: exc_info={ast.unparse(keyword.value)} is not loggable(...)")
    assert raw == []


def test_no_log_line_formats_an_exception_or_an_argument_in() -> None:
    """What a log line formats in is the tool's name and version, refs, counts and the call's own
    scrubbed text: an exception's text goes only through ``exc_info=loggable(...)``. The one
    exception formatted in is ``StateUnavailable``, which the runtime's own stores raise about a
    store they cannot reach (it names no argument)."""
    formatted = sorted({ast.unparse(argument) for _, call in _logging_calls() for argument in call.args[1:]
                        if isinstance(argument, ast.Name) and argument.id in {"exc", "e", "err", "error", "failure",
                                                                              "arguments", "args", "message"}})
    assert formatted == ["exc"]
    for where, call in _logging_calls():
        if any(isinstance(a, ast.Name) and a.id == "exc" for a in call.args[1:]):
            assert "store unreachable" in ast.unparse(call.args[0]), where


def _contract() -> Contract:
    return Contract(name="login", version="1.0.0", summary="s", description="d", input_schema=SCHEMA,
                    output_schema={"type": "object"}, timeout=Timeout(None))


class _QuotingSpan:
    """A telemetry span whose exporter fails on the arguments it is given, quoting them."""

    start = 0.0

    def __enter__(self) -> _QuotingSpan:  # noqa: PYI034 - Self needs Python 3.11
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def done(self, envelope: Any, arguments: Any, breaker: Any, stages: Any) -> None:
        raise ValueError(f"cannot export attributes {arguments!r}")


class _QuotingTelemetry:
    def start(self, tool: Any, call_id: Any, caller: Any) -> _QuotingSpan:
        return _QuotingSpan()

    def transition(self, dependency: str, transition: str) -> None:
        return None


class _QuotingHooks:
    """Hooks that fail before the call, quoting its arguments."""

    def call(self, tool: Any, arguments: Any, *rest: Any) -> Any:
        raise RuntimeError(f"hook refused {json.dumps(arguments)}")

    async def acall(self, tool: Any, arguments: Any, *rest: Any) -> Any:
        raise RuntimeError(f"hook refused {json.dumps(arguments)}")


class _FailingAroundTheGuard(GuardedTool):  # type: ignore[type-arg]
    """A guarded tool whose call raises around the guard itself (what adapter_failure answers)."""

    def __call__(self, arguments: Any, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(f"wrapper failed on {arguments}")

    async def acall(self, arguments: Any, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(f"wrapper failed on {arguments}")


ARGUMENTS = {"pw": SECRET, "note": "hello"}


def _hooked(kind: str) -> GuardedTool[Any, Any]:
    hooks = CallHooks(telemetry=_QuotingTelemetry()) if kind == "telemetry" else _QuotingHooks()
    return guard(_contract(), lambda a: {}, hooks=hooks)


@pytest.mark.parametrize("kind", ["telemetry", "hooks"])
@pytest.mark.parametrize("how", ["sync", "async", "adapter", "adapter-sync"])
def test_a_hook_quoting_the_arguments_never_logs_or_raises_the_secret(
        kind: str, how: str, caplog: pytest.LogCaptureFixture) -> None:
    tool = _hooked(kind)
    with caplog.at_level(logging.DEBUG):
        if how == "sync":
            envelope = tool(dict(ARGUMENTS))
        elif how == "async":
            envelope = asyncio.run(tool.acall(dict(ARGUMENTS)))
        elif how == "adapter":
            envelope = asyncio.run(call_guarded(tool, dict(ARGUMENTS), session="s"))
        else:
            envelope = call_guarded_sync(tool, dict(ARGUMENTS), session="s")
    text = json.dumps(envelope) + caplog.text
    assert SECRET not in text
    if kind == "hooks":
        assert envelope["status"] == "error" and envelope["error"]["code"] == "INTERNAL"
        assert "hook refused" in caplog.text  # the failure is logged, scrubbed
    else:
        assert envelope["status"] == "ok"  # a failing exporter does not fail the call
        assert "cannot export attributes" in caplog.text
    assert "hello" in caplog.text  # what is no secret stays readable


@pytest.mark.parametrize("how", ["async", "sync"])
def test_an_adapter_failure_around_the_guard_never_logs_the_secret(
        how: str, caplog: pytest.LogCaptureFixture) -> None:
    tool = _FailingAroundTheGuard(_contract(), lambda a: {})
    with caplog.at_level(logging.DEBUG):
        if how == "async":
            envelope = asyncio.run(call_guarded(tool, dict(ARGUMENTS), session="s"))
        else:
            envelope = call_guarded_sync(tool, dict(ARGUMENTS), session="s")
    assert envelope["error"]["code"] == "INTERNAL"
    assert "adapter failure around login" in caplog.text and "wrapper failed on" in caplog.text
    assert SECRET not in caplog.text + json.dumps(envelope)


def test_a_failing_progress_listener_never_logs_the_message(caplog: pytest.LogCaptureFixture) -> None:
    def listener(progress: float, total: float | None, message: str | None) -> None:
        raise RuntimeError(f"cannot show {message!r}")

    def implementation(arguments: Any) -> dict[str, Any]:
        report_progress(1, 2, f"checking {arguments['pw']}")
        return {}

    tool = guard(_contract(), implementation)
    with caplog.at_level(logging.DEBUG), progress_listener(listener):
        assert tool(dict(ARGUMENTS))["status"] == "ok"
    assert "progress listener failed" in caplog.text
    assert SECRET not in caplog.text


@pytest.mark.parametrize("kind", ["telemetry", "hooks"])
def test_a_hook_quoting_the_arguments_never_reaches_an_mcp_client(kind: str, caplog: pytest.LogCaptureFixture) -> None:
    server = build_server([_hooked(kind)], name="hooks")

    async def main() -> str:
        async with connected(server) as session:
            result = await session.call_tool("login", dict(ARGUMENTS))
            return result.model_dump_json()

    with caplog.at_level(logging.DEBUG):
        text = anyio.run(main)
    assert SECRET not in text + caplog.text


@pytest.mark.parametrize("path", ["fast", "observed", "deadline", "async", "async-deadline"])
@pytest.mark.parametrize("padding", [0, 185])
def test_a_progress_listener_never_reads_a_secret(path: str, padding: int) -> None:
    """A host's listener is a hook too: the message reaches it without the call's secrets, however
    the guard runs the tool (a cap past the padding would cut the secret, leaving its start)."""
    heard: list[str | None] = []

    def report(arguments: Any) -> dict[str, Any]:
        report_progress(1, 2, "x" * padding + f" checking {arguments['pw']} now")
        return {}

    async def areport(arguments: Any) -> dict[str, Any]:
        return report(arguments)

    timeout = Timeout(5.0) if "deadline" in path else Timeout(None)
    contract = Contract(name="login", version="1.0.0", summary="s", description="d", input_schema=SCHEMA,
                        output_schema={"type": "object"}, timeout=timeout)
    tool = guard(contract, areport if path.startswith("async") else report,
                 on_call=(lambda record: None) if path == "observed" else None)
    with progress_listener(lambda done, total, message: heard.append(message)):
        envelope = asyncio.run(tool.acall(dict(ARGUMENTS))) if path.startswith("async") else tool(dict(ARGUMENTS))
    assert envelope["status"] == "ok"
    assert heard and all(SECRET[:4] not in (message or "") for message in heard)
    assert "checking [redacted]" in (heard[0] or "") or padding


def test_a_wrongly_typed_secret_in_a_result_model_is_never_quoted_by_a_warning() -> None:
    """pydantic warns on serialising a value its field does not type ('input_value=...'), on stderr
    or in the log (logging.captureWarnings): the guard dumps result models without that warning."""
    import warnings

    import pydantic

    class Out(pydantic.BaseModel):
        n: int
        msg: str

    class Partial(ToolError):
        code = "UNAVAILABLE"

    contract = Contract(name="login", version="1.0.0", summary="s", description="d", input_schema=SCHEMA,
                        output_schema={"type": "object", "properties": {"n": {"type": "integer"}}},
                        timeout=Timeout(None))

    def result(arguments: Any) -> Any:
        return Out.model_construct(n=arguments["pw"], msg="x")

    def partial(arguments: Any) -> Any:
        raise Partial("half done", partial_results=Out.model_construct(n=arguments["pw"], msg="x"))

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for implementation in (result, partial):
            envelope = guard(contract, implementation, output_model=Out, errors=[Partial])(dict(ARGUMENTS))
            assert envelope["status"] == "error" and SECRET not in json.dumps(envelope)
    assert not [w for w in caught if SECRET in str(w.message)]
