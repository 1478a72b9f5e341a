"""The run stage: the implementation called inline, on a worker thread under its deadline, or awaited
on the caller's event loop; abandoned work held, logged and bounded by the tool's capacity."""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout  # builtin TimeoutError from 3.11
from typing import Any

from .budget import deadline_left
from .capacity import Slot
from .deadlines import (
    DEADLINE_PASSED,
    NOT_STARTED,
    cancelled_here,
    loop_running,
    run_here,
    with_deadline,
    within_deadline,
)
from .envelope import error_envelope, new_ref
from .interrupts import owner_stop
from .jsonvalue import (
    MISSING,
    clean_json,
    stand_in,
)
from .observe import logger
from .settle_safety import reads_plainly
from .stage_settle import BIG_VALUE, SettleStage, _off_loop
from .workers import POOL, PoolBusy, Raised, boxed

#: Seconds an async implementation may hold the event loop in one step (between two awaits) before
#: its calls move to worker threads (asyncio's debug mode already calls 0.1 s slow).
BLOCKING_STEP = 1.0


class _Settled:
    """An envelope a worker thread settled a call's outcome into (a tool's dict result may look
    like an envelope, so the two are told apart by type)."""

    __slots__ = ("envelope",)

    def __init__(self, envelope: dict[str, Any]) -> None:
        self.envelope = envelope


def _is_async(fn: Any) -> bool:
    # a callable object with ``async def __call__`` is async too
    call = None if inspect.isroutine(fn) else next(
        (k.__dict__["__call__"] for k in type(fn).__mro__ if "__call__" in k.__dict__), None)
    return inspect.iscoroutinefunction(fn) or (call is not None and inspect.iscoroutinefunction(call))


class RunStage(SettleStage):
    """The stage that runs the implementation on the checked input: inline, on a worker thread, or
    awaited, within the deadline."""

    def _run_sync(self, value: Any) -> dict[str, Any]:
        """The envelope of an async implementation called on ``value`` (its checked input) by a sync
        caller: on an event loop of its own, here when it has no deadline and no loop runs in this
        thread, else on a worker thread (``_handed``). A sync implementation's plan runs it inline,
        or hands it off itself (``plan.py``)."""
        if self._timeout is not None or loop_running():
            result = self._handed(value)
            return self._from_worker(result) or self._complete(result)
        try:
            result = run_here(self.implementation(value))
        except asyncio.CancelledError as exc:
            return self._cancelled(exc)
        except (KeyboardInterrupt, SystemExit) as exc:
            return self._stopped(exc)
        except BaseException as exc:  # noqa: BLE001
            return self._from_exception(exc)
        return self._complete(result)

    def _handed(self, value: Any) -> Any:
        """The implementation run on ``value`` on a worker thread holding one of this tool's slots,
        waited for in this thread within what is left of the deadline: the small plain dict it
        returned (the caller settles it), or anything else as the worker left it (``_worked``), the
        refusal or the TIMEOUT included (``_Settled``); ``_from_worker`` reads those."""
        timeout = deadline_left(self._timeout)
        slot = self.capacity.acquire()
        if slot is None:
            return _Settled(self._busy_envelope(own=True))
        try:
            handoff = POOL.hand_off(self._worked, self._run_in_worker, value, slot, reserved=slot.first)
        except PoolBusy:
            slot.release()
            return _Settled(self._busy_envelope(own=False))
        except BaseException:  # no thread could start: the guard's own failure (its plan answers)
            slot.release()
            raise
        try:
            return handoff.result(timeout)
        except FutureTimeout:
            if handoff.done():  # it ended as the wait did: its answer stands
                return handoff.result()
            return _Settled(self._timed_out(handoff, slot))

    def _from_worker(self, result: Any) -> dict[str, Any] | None:
        """The envelope a worker thread's outcome already decides (``_worked``), or None for a result
        to settle here."""
        if type(result) is _Settled:
            return result.envelope
        if type(result) is Raised:  # raised on the worker: the tool's, whatever it is
            return self._from_exception(result.exc)
        if result is DEADLINE_PASSED:  # the worker's own loop cancelled the coroutine first
            return self._timeout_envelope()
        return None

    def _run_in_worker(self, value: Any) -> Any:
        awaitable = self.implementation(value)
        if type(awaitable) is dict and not self._is_async:  # the common answer: nothing to await
            return awaitable
        awaitable = stand_in(awaitable)
        if not self._is_async and not inspect.isawaitable(awaitable):
            return awaitable

        async def bounded() -> Any:  # in the worker, cancel the coroutine at the deadline too
            if self._timeout is None:
                return await awaitable
            result, expired = await with_deadline(awaitable, self._timeout)
            return DEADLINE_PASSED if expired else result

        return asyncio.run(bounded())

    async def _run_async(self, value: Any) -> dict[str, Any]:
        """The envelope of the implementation called on ``value`` by an async caller: awaited on its
        loop (a coroutine that never waits needs no timer), or on a worker thread for sync code and
        for async code that held the loop."""
        deadline = deadline_left(self._timeout)
        began = time.monotonic() if deadline is not None else 0.0  # (read only under a deadline)
        try:
            if self._is_async and not self.blocks_event_loop:
                if deadline is None:
                    result = await self.implementation(value)
                else:
                    started = time.monotonic()
                    coro = self.implementation(value)
                    # run to the first suspension: a coroutine that never waits needs no timer.
                    # Only where asyncio.timeout exists: the rest must then run in this same task
                    # (anyio cancel scopes, as in the MCP SDK, insist on it)
                    if self.capacity.held >= self.capacity.limit:
                        if inspect.iscoroutine(coro):
                            coro.close()
                        return self._busy_envelope(own=True)
                    started_here = inspect.iscoroutine(coro)
                    try:
                        first = coro.send(None) if started_here else NOT_STARTED
                    except StopIteration as done:
                        result = done.value
                        held = time.monotonic() - started
                        if held >= min(deadline, BLOCKING_STEP):
                            self._held_the_loop(held)
                            if held >= deadline:  # its result came after the deadline
                                return self._timeout_envelope()
                    else:
                        step = time.monotonic() - started
                        result, expired, left, longest = await within_deadline(
                            coro, first, max(deadline - step, 0.0), self._left_by_cancel)
                        if max(step, longest) >= min(deadline, BLOCKING_STEP):
                            self._held_the_loop(max(step, longest))
                        if expired:
                            return self._timed_out(left, self._hold(left))
            else:
                # sync code never blocks the event loop: it runs on a worker thread, and so does
                # async code that did (with an event loop of its own there)
                submitted = self._submit(self._run_in_worker if self._is_async or self.blocks_event_loop
                                         else self.implementation, value)
                if isinstance(submitted, dict):
                    return submitted
                thread_future, slot = submitted
                future = asyncio.wrap_future(thread_future)
                started = time.monotonic()
                if deadline is None:
                    result = await future
                else:
                    result, expired = await with_deadline(future, deadline)
                    if expired:
                        return self._timed_out(thread_future, slot)
                decided = self._from_worker(result)
                if decided is not None:
                    return decided
                if type(result) is dict:  # the worker found it small plain JSON (``_worked``)
                    return self._complete(result)
                if inspect.isawaitable(result):
                    # a plain function that returned a coroutine (a lambda around an async call)
                    if deadline is None:
                        result = await result
                    else:
                        remaining = max(deadline - (time.monotonic() - started), 0.0)
                        result, expired, left, longest = await within_deadline(result, NOT_STARTED, remaining,
                                                                               self._left_by_cancel)
                        if longest >= min(deadline, BLOCKING_STEP):
                            self._held_the_loop(longest)
                        if expired:
                            return self._timed_out(left, self._hold(left))
        except BaseException as exc:  # noqa: BLE001 - the tool's outcome: its envelope (or re-raised there)
            if deadline is not None:
                return await self._settled_off_loop(MISSING, exc, deadline - (time.monotonic() - began))
            return self._tools_failure(exc)
        if deadline is not None:
            return await self._settled_off_loop(result, None, deadline - (time.monotonic() - began))
        envelope = self._completed_on_loop(result)
        return envelope if envelope is not None else await _off_loop(self._complete, result)

    def _submit(self, fn: Callable[..., Any], value: Any) -> tuple[Future[Any], Slot] | dict[str, Any]:
        """``fn(value)`` on a worker thread holding one of this tool's slots, settled there into its
        envelope (see ``_worked``), for a caller on an event loop; or the refusal."""
        slot = self.capacity.acquire()
        if slot is None:
            return self._busy_envelope(own=True)
        try:
            return POOL.submit(self._worked, fn, value, slot, reserved=slot.first), slot
        except PoolBusy:
            slot.release()
            return self._busy_envelope(own=False)
        except BaseException:  # no thread could start: the guard's own failure
            slot.release()
            raise

    def _worked(self, run: Callable[[Any], Any], value: Any, slot: Slot) -> Any:
        """On the worker: ``run(value)``, and what it returned or raised turned into its envelope
        there (``_Settled``). Reading what a tool gave (an exception's text, a model's serializer, a
        mapping's ``items``, a string's ``__str__``) runs the tool's code, which may hang: here the
        caller's deadline covers it. Left as it came: a small dict of plain JSON (settling it runs
        only the guard's code, bounded by ``BIG_VALUE``, on the caller's warm thread, as ``acall``
        settles it on its loop), an awaitable a plain function returned (the caller's event loop
        awaits it), the worker loop's DEADLINE_PASSED, and the outcome of a call whose caller already
        has its TIMEOUT (only how it ended is logged). Never raises; the slot is given back here, when
        the work has really ended."""
        try:
            try:
                result = run(value)
            except BaseException as exc:  # noqa: BLE001 - settled here, or handed back as it came
                return Raised(exc) if slot.abandoned else _Settled(self._settled(None, exc))
            if type(result) is dict and not slot.abandoned:  # the common answer: nothing to await
                if clean_json(result, BIG_VALUE, False, MISSING) is not MISSING:
                    return result  # small plain JSON: reading it runs no code of the tool, the caller settles it
                return _Settled(self._complete(result))
            result = stand_in(result)
            if slot.abandoned or result is DEADLINE_PASSED \
                    or (type(result) is not dict and inspect.isawaitable(result)):
                return result
            return _Settled(self._settled(result, None))
        except BaseException as exc:  # noqa: BLE001 - settling failed: handed back as a value (``Raised``)
            return Raised(exc)
        finally:
            slot.release()  # before the caller wakes: it may call again at once

    async def _settled_off_loop(self, result: Any, raised: BaseException | None,
                                remaining: float) -> dict[str, Any]:
        """The envelope for what an async call gave, within what is left of its deadline: an
        exception, or a result that may run its author's code when read (``settle_safety``), is read
        on a worker thread (that code may hang, and would hold the event loop). Which stop or
        cancellation is real is decided here, in the caller's task and thread; ``_settled`` decides
        the rest."""
        if raised is not None:
            if isinstance(raised, asyncio.CancelledError) and cancelled_here():
                raise raised
            if isinstance(raised, (KeyboardInterrupt, SystemExit)) and owner_stop(raised):
                raise raised
        elif reads_plainly(result):
            return await self._completed_here(result)
        slot = self.capacity.hold()
        thread_future = POOL.submit(boxed, self._settled_outcome, result, raised, reserved=True)
        thread_future.add_done_callback(slot.release)
        settled, expired = await with_deadline(asyncio.wrap_future(thread_future), max(remaining, 0.0))
        if expired:
            return self._timed_out(thread_future, slot)
        if type(settled) is Raised:  # the guard's own defect (the tool's outcome is settled)
            return self._internal(settled.exc, "guard")
        return settled  # type: ignore[no-any-return]

    def _timed_out(self, work: Any, slot: Slot | None) -> dict[str, Any]:
        """TIMEOUT for the caller; work still running is left behind, logged under the ref."""
        envelope = self._timeout_envelope()
        if work is None or work.done():
            return envelope
        ref = new_ref()
        envelope["error"]["ref"] = ref
        if slot is not None:
            slot.abandon()
        logger.warning("%s %s passed its %gs deadline; the call goes on running, abandoned, "
                       "ref=%s", self.name, self.version, self._timeout or 0, ref)

        self._log_when_ended(work, ref, "after its deadline")
        return envelope

    def _log_when_ended(self, work: Any, ref: str, when: str) -> None:
        """One INFO line under ``ref`` when abandoned work ends, naming only how it ended. Its
        outcome is read here, so asyncio does not log the exception again ("Task exception was never
        retrieved", with its message, under no ref)."""
        def ended(done: Any) -> None:
            how = ""
            try:
                raised = None if done.cancelled() else done.exception()
                if raised is None and not done.cancelled() and type(done.result()) is Raised:
                    raised = done.result().exc
                how = " (cancelled)" if done.cancelled() else (
                    f" (raised {type(raised).__qualname__})" if raised is not None else "")
            except BaseException:  # noqa: BLE001, S110 - only the log line is at stake
                pass
            logger.info("abandoned call of %s ended %s%s, ref=%s", self.name, when, how, ref)

        work.add_done_callback(ended)

    def _hold(self, task: Any) -> Slot | None:
        """A slot held by an abandoned task until it ends."""
        if task is None:
            return None
        slot = self.capacity.hold()
        task.add_done_callback(slot.release)
        return slot

    def _left_by_cancel(self, task: Any) -> None:
        """The caller was cancelled (an MCP client cancelled its request) but the work swallowed
        the cancellation and runs on: it holds one of the tool's slots until it ends."""
        slot = self._hold(task)
        if slot is not None:
            slot.abandon()
        ref = new_ref()
        logger.warning("%s %s: a cancelled call's work ignored its cancellation; it goes on running, "
                       "abandoned, ref=%s", self.name, self.version, ref)
        self._log_when_ended(task, ref, "after its caller cancelled it")

    def _held_the_loop(self, seconds: float) -> None:
        """The tool held the caller's event loop for ``seconds`` in one step, so no other call and
        no timer ran meanwhile: from now on its calls run on worker threads, each with an event
        loop of its own, where its deadline holds and it stalls nobody."""
        if not self.blocks_event_loop:
            self.blocks_event_loop = True
            logger.error("%s %s held the event loop for %.3fs in one step (deadline %gs): its calls "
                         "now run on worker threads with their own event loops; await instead of "
                         "blocking (asyncio.to_thread for sync work)", self.name, self.version,
                         seconds, self._timeout or 0)

    def _busy_envelope(self, own: bool) -> dict[str, Any]:
        if own:  # this tool's own share is used up: it is the stuck one
            capacity = self.capacity
            logger.warning("%s %s is stuck: %d of its calls still running (%d past their deadline, "
                           "limit %d); refusing a call", self.name, self.version, capacity.held,
                           capacity.abandoned, capacity.limit)
            text = (f"{self.name} is not responding: {capacity.held} earlier calls of it are still "
                    "running. Wait a while, then call again unchanged.")
        else:
            logger.warning("worker pool full (%d threads); refusing a call of %s", POOL.live, self.name)
            text = (f"{self.name} is overloaded: too many earlier calls are still running. Wait a "
                    "while, then call again unchanged.")
        message, retryable, action = self._retry_policy("UNAVAILABLE", text, None, None)
        return error_envelope(self.contract, "UNAVAILABLE", message, retryable=retryable,
                              action=action)

    def _timeout_envelope(self) -> dict[str, Any]:
        seconds = self._timeout or 0
        message, retryable, action = self._retry_policy(
            "TIMEOUT", f"{self.name} did not finish within its {seconds:g} second deadline. Wait a "
            "moment, then call again unchanged.", None, None)
        return error_envelope(self.contract, "TIMEOUT", message, retryable=retryable, action=action,
                              retry_after=self.contract.retry.backoff.initial if retryable is None else None)
