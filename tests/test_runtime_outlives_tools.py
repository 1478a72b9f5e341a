"""The caller outlives its tools: whatever an implementation raises (SystemExit, KeyboardInterrupt,
GeneratorExit, StopIteration, exceptions whose text, repr or traceback raise, cyclic chains, groups)
comes back as its INTERNAL envelope on every path (inline, worker thread, event loop), over MCP too,
while the process owner's own stop (a signal handler's exception) still goes through."""

from __future__ import annotations

import asyncio
import builtins
import itertools
import json
import logging
import os
import signal
import sys
import threading
import types
from collections.abc import Callable
from typing import Any

import anyio
import pydantic
import pytest
from mcp_support import connected

from contractgen.runtime import Contract, RetryPolicy, Timeout, ToolError, guard
from contractgen.runtime.mcp_server import build_server


def contract(name: str, seconds: float | None) -> Contract:
    return Contract(name=name, version="1.0.0", summary="s", description="d",
                    input_schema={"type": "object"}, output_schema={"type": "object"},
                    timeout=Timeout(seconds), retry=RetryPolicy(failure_budget=None))


class TextRaises(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no text")

    def __repr__(self) -> str:
        raise RuntimeError("no repr")


class TracebackRaises(Exception):
    @property  # type: ignore[override]
    def __traceback__(self) -> Any:
        raise RuntimeError("no traceback")


class LinksRaise(Exception):
    @property  # type: ignore[override]
    def __cause__(self) -> Any:
        raise RuntimeError("no cause")


def cyclic() -> BaseException:
    first, second = RuntimeError("first"), ValueError("second")
    first.__cause__, second.__cause__ = second, first
    first.__context__, second.__context__ = second, first
    return first


GROUP: Any = getattr(builtins, "BaseExceptionGroup", None)  # Python 3.11+


def group(*members: BaseException) -> BaseException:
    return GROUP("g", list(members)) if GROUP is not None else RuntimeError("no groups before 3.11")


#: what a tool may raise that is not an ordinary Exception, or an Exception that fights being read
HOSTILE: dict[str, Callable[[], BaseException]] = {
    "SystemExit": lambda: SystemExit(3),
    "GeneratorExit": GeneratorExit,
    "StopIteration": lambda: StopIteration("done"),
    "StopAsyncIteration": StopAsyncIteration,
    "CancelledError": asyncio.CancelledError,
    "text_raises": TextRaises,
    "traceback_raises": TracebackRaises,
    "links_raise": LinksRaise,
    "cyclic_chain": cyclic,
    "group_with_interrupt": lambda: group(KeyboardInterrupt(), ValueError("v")),
    "group_with_exit": lambda: group(SystemExit(1), GeneratorExit()),
    "group_of_cancellations": lambda: group(asyncio.CancelledError()),
    "huge_message": lambda: RuntimeError("x" * 2_000_000),
}

#: sync inline, sync on a worker (deadline), async, async awaiting first, async on a deadline
SHAPES = ["sync", "sync_deadline", "async", "async_awaits", "async_deadline"]


def raising(shape: str, make: Callable[[], BaseException]) -> Any:
    if shape.startswith("sync"):
        def tool(_: Any) -> Any:
            raise make()
        return tool

    async def atool(_: Any) -> Any:
        if shape != "async":
            await asyncio.sleep(0)
        raise make()
    return atool


def tool_for(shape: str, make: Callable[[], BaseException]) -> Any:
    seconds = 30.0 if shape.endswith("deadline") else None
    return guard(contract("hostile", seconds), raising(shape, make))


def assert_internal(envelope: Any) -> None:
    assert envelope["status"] == "error"
    assert envelope["error"]["code"] == "INTERNAL" and len(envelope["error"]["ref"]) == 8
    json.dumps(envelope, allow_nan=False)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_whatever_a_tool_raises_is_its_internal_error(kind: str, shape: str,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    tool = tool_for(shape, HOSTILE[kind])
    with caplog.at_level(logging.ERROR, logger="contractgen.runtime"):
        called = tool({})
        awaited = asyncio.run(asyncio.wait_for(tool.acall({}), 60))
    for envelope in (called, awaited):
        assert_internal(envelope)
        assert [r for r in caplog.records if envelope["error"]["ref"] in r.getMessage()]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # nothing left behind


def test_a_tool_whose_exception_cannot_be_read_does_not_break_later_event_loops() -> None:
    """asyncio.run reads its main task's repr when it puts SIGINT's handler back: an async tool
    run from a sync call whose exception (or result) refused its repr left asyncio's handler
    installed, and every later asyncio.run of the process failed, healthy tools' calls included."""

    class ReprRaises:
        def __repr__(self) -> str:
            raise RuntimeError("no repr")

    async def returns_it(_: Any) -> Any:
        return ReprRaises()

    healthy = guard(contract("healthy", None), lambda a: {"ok": True})
    for implementation in (raising("async", TextRaises), returns_it):
        assert guard(contract("hostile", None), implementation)({})["status"] == "error"
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        assert asyncio.run(healthy.acall({}))["output"] == {"ok": True}


@pytest.mark.parametrize("shape", ["sync_deadline", "async", "async_awaits", "async_deadline"])
def test_a_keyboard_interrupt_the_tool_raises_itself_is_its_failure(shape: str) -> None:
    """No signal raised it: on a worker thread (signals reach the main thread only) or inside an
    event loop run by asyncio (whose Ctrl-C cancels the main task instead), also the one a sync
    call runs an async tool in (LangChain's invoke of an async tool let it through)."""
    tool = tool_for(shape, KeyboardInterrupt)
    assert_internal(asyncio.run(tool.acall({})))
    assert_internal(tool({}))


def test_keyboard_interrupt_in_the_main_thread_with_the_default_handler_goes_through() -> None:
    """Python's default SIGINT handler raises KeyboardInterrupt wherever the main thread is: the
    guard cannot tell Ctrl-C from the tool's own, so it lets it through (the owner's stop wins)."""
    with pytest.raises(KeyboardInterrupt):
        tool_for("sync", KeyboardInterrupt)({})


def test_inline_calls_on_another_thread_contain_every_stop() -> None:
    found: list[Any] = []

    def run() -> None:
        for make in (KeyboardInterrupt, lambda: SystemExit(2)):
            found.append(tool_for("sync", make)({}))
    thread = threading.Thread(target=run)
    thread.start()
    thread.join(60)
    assert len(found) == 2
    for envelope in found:
        assert_internal(envelope)


@pytest.mark.skipif(not hasattr(signal, "SIGUSR1"), reason="needs POSIX signals")
@pytest.mark.parametrize("shape", ["sync", "async"])
def test_the_owners_signal_handler_still_stops_the_call(shape: str) -> None:
    """An exception raised by an installed signal handler is the process owner's: it propagates,
    even while a tool is running (sys.exit on SIGTERM is the usual shape)."""
    arrived = threading.Event()

    def owner(signum: int, frame: Any) -> None:
        arrived.set()
        sys.exit(0)

    def tool(_: Any) -> Any:
        os.kill(os.getpid(), signal.SIGUSR1)
        arrived.wait(30)  # the handler runs in this thread at the next bytecode
        return {}

    async def atool(_: Any) -> Any:
        await asyncio.sleep(0)
        return tool(_)

    previous = signal.signal(signal.SIGUSR1, owner)
    try:
        guarded = guard(contract("interrupted", None), tool if shape == "sync" else atool)
        with pytest.raises(SystemExit):
            if shape == "sync":
                guarded({})
            else:
                asyncio.run(guarded.acall({}))
    finally:
        signal.signal(signal.SIGUSR1, previous)


def test_the_mcp_server_outlives_every_hostile_tool() -> None:
    """Each hostile tool over a real MCP session, sync and async, beside a healthy tool: every call
    is answered (INTERNAL) and the healthy tool keeps answering correctly."""
    kinds = sorted(HOSTILE) + ["KeyboardInterrupt"]
    makers = {**HOSTILE, "KeyboardInterrupt": KeyboardInterrupt}
    tools = [guard(contract(f"{kind}_{shape}", 30.0 if shape.endswith("deadline") else None),
                   raising(shape, makers[kind]))
             for kind in kinds for shape in SHAPES]
    tools.append(guard(contract("healthy", None), lambda a: {"x": a.get("x", 0) + 1}))
    server = build_server(tools)
    answers: dict[str, Any] = {}

    async def main() -> None:
        async with connected(server) as session:
            for tool in tools[:-1]:
                with anyio.fail_after(60):
                    answers[tool.name] = await session.call_tool(tool.name, {})
                    healthy = await session.call_tool("healthy", {"x": len(answers)})
                assert healthy.structured_content == {"x": len(answers) + 1}

    anyio.run(main)
    assert len(answers) == len(tools) - 1
    for name, result in answers.items():
        assert result.is_error is True, name
        assert json.loads(result.content[0].text)["error"]["code"] == "INTERNAL", name


# -- results that never end: a JSON conversion would run an iterator forever ------------------------

class Rows(pydantic.BaseModel):
    rows: Any  # what a generated model makes of an untyped schema ({})


class Page(pydantic.BaseModel):
    page: Rows


def _endless() -> Any:
    return itertools.count()


async def _agen() -> Any:
    while True:
        yield 1

ENDLESS: dict[str, Callable[[], Any]] = {
    "generator": lambda: (i for i in itertools.count()),
    "in_object": lambda: {"items": (i for i in itertools.count())},
    "in_list": lambda: {"items": [1, map(str, itertools.count())]},
    "in_tuple": lambda: {"items": (1, _endless())},
    "iterator": lambda: {"items": iter(range(10))},
    "async_generator": lambda: {"items": _agen()},
    "in_attribute": lambda: {"items": types.SimpleNamespace(rows=_endless())},
    "model_field": lambda: Rows(rows=_endless()),
    "nested_model_field": lambda: Page(page=Rows(rows=_endless())),
}


def answered_within(call: Callable[[], Any], seconds: float = 60) -> Any:
    """The call's answer, run on a daemon thread so that a call that never ends fails the test."""
    found: list[Any] = []
    worker = threading.Thread(target=lambda: found.append(call()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert found, "the call never answered"
    return found[0]


@pytest.mark.parametrize("shape", ["sync", "sync_deadline", "async", "async_deadline"])
@pytest.mark.parametrize("kind", sorted(ENDLESS))
def test_a_result_holding_an_endless_iterator_is_an_invalid_result(kind: str, shape: str) -> None:
    def sync(_: Any) -> Any:
        return ENDLESS[kind]()

    async def asynchronous(_: Any) -> Any:
        await asyncio.sleep(0)
        return ENDLESS[kind]()
    seconds = 30.0 if shape.endswith("deadline") else None
    tool = guard(contract("endless", seconds), sync if shape.startswith("sync") else asynchronous)
    for envelope in (answered_within(lambda: tool({})), answered_within(lambda: asyncio.run(tool.acall({})))):
        assert_internal(envelope)


def test_partial_results_holding_an_endless_iterator_are_left_out() -> None:
    def fails(_: Any) -> Any:
        raise ToolError("Quota used up.", code="FAILED_PRECONDITION", partial_results=_endless())
    envelope = answered_within(lambda: guard(contract("partial", None), fails)({}))
    assert envelope["error"]["code"] == "FAILED_PRECONDITION" and "partial_results" not in envelope["error"]


# -- typed errors that fight being read ------------------------------------------------------------

class TextRaisesValue:
    def __str__(self) -> str:
        raise RuntimeError("no text")


HOSTILE_ERRORS: dict[str, Callable[[], BaseException]] = {
    "message_text_raises": lambda: ToolError(TextRaisesValue(), code="UNAVAILABLE"),  # type: ignore[arg-type]
    "field_text_raises": lambda: ToolError("m", code="NOT_FOUND", field=TextRaisesValue()),  # type: ignore[arg-type]
    "retry_after_past_any_float": lambda: ToolError("m", code="UNAVAILABLE", retry_after=10 ** 400),
    "retry_after_nan": lambda: ToolError("m", code="UNAVAILABLE", retry_after=float("nan")),
    "code_not_text": lambda: ToolError("m", code=TextRaisesValue()),  # type: ignore[arg-type]
    "upstream_text_raises": lambda: ToolError("m", code="UNAVAILABLE", upstream=TextRaisesValue()),
    "huge_message": lambda: ToolError("y" * 1_000_000, code="UNAVAILABLE"),
}


#: the code each answers with: a text of the author's that cannot be read is dropped and the tool's
#: own code kept (a81f587); a code that is no text cannot be kept (the rest are UNAVAILABLE)
HOSTILE_ERROR_CODES = {"code_not_text": "INTERNAL", "field_text_raises": "NOT_FOUND"}


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("kind", sorted(HOSTILE_ERRORS))
def test_a_typed_error_that_cannot_be_read_still_gives_an_envelope(kind: str, shape: str) -> None:
    """Building the envelope of such a ToolError raised out of a sync call's fast path."""
    tool = tool_for(shape, HOSTILE_ERRORS[kind])
    for envelope in (tool({}), asyncio.run(tool.acall({}))):
        assert envelope["status"] == "error"
        assert envelope["error"]["code"] == HOSTILE_ERROR_CODES.get(kind, "UNAVAILABLE"), envelope
        assert kind != "field_text_raises" or "field" not in envelope["error"], envelope
        json.dumps(envelope, allow_nan=False)
