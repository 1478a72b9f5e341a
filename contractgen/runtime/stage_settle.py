"""The settle stage: what the implementation returned or raised, read once and bounded, checked
against the output schema (formats included), scrubbed of the call's secrets, into its envelope."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

from .calls import _CALL, _NEVER_SWALLOWED, _stage
from .codes import CODES
from .deadlines import (
    cancelled_here,
    settle_here,
)
from .envelope import cap_text, error_envelope, new_ref, ok_envelope
from .interrupts import owner_stop
from .jsonvalue import (
    CLEAN_BUDGET,
    INT_DIGITS_CAP,
    MISSING,
    TooDeep,
    clean_json,
    exact_json,
    iterator_in,
    json_problem,
    larger_than,
    members_up_to,
    oversized_int,
    stand_in,
)
from .observe import loggable, logger
from .pointer import cap_pointer, pointer
from .scrub import (
    SECRETS_CAP,
    SecretsWithheld,
)
from .stage_failures import FailuresStage, _jsonable
from .workers import POOL

#: Arguments or results with more members than this are checked on a worker thread under ``acall``.
BIG_VALUE = 2000
_T = TypeVar("_T")


async def _off_loop(fn: Callable[..., _T], *args: Any) -> _T:
    """``fn(*args)``, the guard's own bounded work, on a worker thread of the guard's pool. Not on
    asyncio's default executor: tools that park threads there (``asyncio.to_thread`` calls that
    never return) exhausted it, and healthy tools' big calls then waited forever."""
    return await asyncio.wrap_future(POOL.submit(fn, *args, reserved=True))


class SettleStage(FailuresStage):
    """The stage that turns what the implementation gave into the call's envelope."""

    def _settled(self, result: Any, raised: BaseException | None) -> dict[str, Any]:
        """The envelope for what an inline call gave: its exception, or its result (awaited here
        when a plain function returned an awaitable). Only the process owner's stop and a real
        cancellation of the caller propagate; a defect in the guard itself is INTERNAL."""
        try:
            if raised is not None:
                raise raised
            result = stand_in(result)  # a __class__ property runs once, here (isawaitable asks it)
            if type(result) is not dict and inspect.isawaitable(result):
                result = settle_here(result)  # e.g. a lambda returning a coroutine
        except asyncio.CancelledError as exc:
            return self._cancelled(exc)
        except (KeyboardInterrupt, SystemExit) as exc:
            return self._stopped(exc)
        except BaseException as exc:  # noqa: BLE001 - becomes its envelope
            return self._from_exception(exc)
        return self._complete(result)

    def _settled_outcome(self, result: Any, raised: BaseException | None) -> dict[str, Any]:
        """``_settled`` for an outcome whose awaitables were already awaited (a result that is
        one is an invalid result, never run here)."""
        if raised is not None:
            return self._settled(None, raised)
        return self._complete(result)

    def _tools_failure(self, exc: BaseException) -> dict[str, Any]:
        """The envelope for what the tool's code raised, a stop or a cancellation of its own too
        (only the process owner's stop and a real cancellation of the caller propagate)."""
        if isinstance(exc, asyncio.CancelledError):
            return self._cancelled(exc)
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            return self._stopped(exc)
        return self._from_exception(exc)

    async def _completed_here(self, result: Any) -> dict[str, Any]:
        """The envelope for a result read on the caller's loop (a big one not pinned to plain JSON
        is checked on a worker thread, the loop left free)."""
        envelope = self._completed_on_loop(result)
        return envelope if envelope is not None else await _off_loop(self._complete, result)

    def _completed_on_loop(self, result: Any) -> dict[str, Any] | None:
        """``_completed_here`` without a coroutine where the result is read on the loop (the common
        case); None for a big result, which ``_complete`` reads on a worker thread."""
        try:
            result = stand_in(result)
            # clean JSON of at most BIG_VALUE members is checked here: one pass in C says so
            big = clean_json(result, BIG_VALUE, False, MISSING) is MISSING and larger_than(result, BIG_VALUE)
        except BaseException as exc:  # noqa: BLE001 - reading it ran the tool's code (a __class__ property)
            return self._tools_failure(exc)
        return None if big else self._complete(result)

    def _complete(self, result: Any) -> dict[str, Any]:
        """The envelope for what the tool returned. Reading it runs the tool's own code (a mapping's
        ``items``, an instance's ``__class__`` property, which ``isinstance`` asks): what that
        raises is the tool's failure, a SystemExit too, as when the tool raises it (it escaped the
        guard from an async tool's result). A defect of the guard itself while answering is INTERNAL."""
        try:
            return self._completed(stand_in(result))
        except BaseException as exc:  # noqa: BLE001 - becomes its envelope (or is re-raised there)
            failed = exc
        try:
            return self._tools_failure(failed)
        except _NEVER_SWALLOWED:
            raise
        except BaseException as defect:  # noqa: BLE001 - a defect in the guard itself
            return self._internal(defect, "guard")

    def _completed(self, result: Any) -> dict[str, Any]:
        # clean JSON (one pass in C, bounded) is read right by the fast validator: its yes settles it
        if clean_json(result, CLEAN_BUDGET, False, MISSING) is not MISSING and self._output_is_valid(result):
            return self._accepted(result)
        output = result
        # asked of the class: an instance's own __getattr__ (or __class__) is the tool's code, which
        # may raise or hang, and a model's model_dump is its class's
        is_model = type(result) is not dict and hasattr(type(result), "model_dump") and not issubclass(type(result), type)
        if is_model:
            endless = iterator_in(result)  # a field typed Any may hold one: dumping runs it to its end
            if endless is not None:
                where = cap_pointer(pointer(endless)) or "/"
                return self._invalid_output([f"{where}: an iterator, which JSON cannot carry"], None)
            try:
                # warnings=False: pydantic's serializer warning quotes a wrongly typed value (the
                # call's secret, say) on stderr or in the log; the output check reports it instead
                output = result.model_dump(mode="json", by_alias=True, exclude_unset=True, warnings=False)
            except Exception as exc:  # noqa: BLE001 - a model that cannot dump is an invalid result
                return self._invalid_output(["the result model could not be serialised"], exc)
        # clean JSON (one pass in C, bounded) is read right by every check below; anything else is
        # read with care: bounded first (per path: a member shared by many containers is read each
        # time), then copied through base types
        clean = clean_json(output, CLEAN_BUDGET, False, MISSING) is not MISSING
        if not clean:
            try:
                if members_up_to(output, CLEAN_BUDGET) > CLEAN_BUDGET:
                    return self._invalid_output([f"/: more than {CLEAN_BUDGET} values in all (counted per path)"],
                                                None)
                # subclasses and tuples are copied here, read through their base types: every check
                # below, and whoever prints or encodes the envelope later, reads exact JSON types only
                output = exact_json(output)
            except TooDeep as deep:
                where = cap_pointer(pointer(deep.path)) or "/"
                return self._invalid_output([f"{where}: {deep}, which JSON cannot carry"], None)
            except Exception as exc:  # noqa: BLE001 - a mapping whose own items() raises
                return self._invalid_output(["the result could not be read"], exc)
            clean = clean_json(output, CLEAN_BUDGET, False, MISSING) is not MISSING
        problem = None if clean else json_problem(output)
        huge = None if clean else oversized_int(output)
        if huge is not None:
            where = cap_pointer(pointer(huge)) or "/"
            text = f"{where}: an integer of more than {INT_DIGITS_CAP} digits, which this runtime cannot check or send"
            return self._invalid_output([text], None)
        try:
            valid = problem is None and self._output_is_valid(output)
        except ValueError:
            valid = False
        if problem is not None and problem.kind != "type":  # NaN, a non-string key, a cycle
            where = cap_pointer(pointer(problem.path)) or "/"
            return self._invalid_output([f"{where}: {problem.text}, which JSON cannot carry"], None)
        if not valid and is_model:
            # what the implementation set explicitly did not conform: try the model with its
            # defaults (a required field with a default), then without its None defaults
            for options in ({}, {"exclude_none": True}):
                try:
                    candidate = exact_json(result.model_dump(mode="json", by_alias=True, warnings=False,
                                                             **options))
                    if self._output_is_valid(candidate):
                        output, valid = candidate, True
                        break
                except Exception:  # noqa: BLE001, S112 - the first dump's violations are reported
                    continue
        if not valid:
            check = self._compiled.output
            # JSON already when no problem was found (a value of another type, a datetime, is
            # converted): converting it again walked it whole, 1.8 s of a 3 MB invalid result
            plain = output if problem is None else _jsonable(output)
            if plain is MISSING or not check.is_valid(plain):
                problems = [f"{v.field or '/'} {v.constraint}: {v.message}"
                            for v in check.violations(output if plain is MISSING else plain)[:10]]
                return self._invalid_output(problems, None)
            output = plain
        return self._accepted(output)

    def _accepted(self, output: Any) -> dict[str, Any]:
        """The ok envelope for an output the schema accepted: its result rules, then the call's
        secrets taken out of it, then the empty rule."""
        broken = self._result_rules(output) if self._result_rules is not None else None
        if broken:  # judged as the tool wrote it: before the call's secrets are taken out
            return self._invalid_output(broken, None, broken[0])
        if self._output_scrub is not None:
            try:
                output = self._unechoed(output)
            except SecretsWithheld as withheld:
                return self._withheld_output(str(withheld))
        if self._empty_rule is None:
            return {"status": "ok", "tool": self.name, "version": self.version, "output": output,
                    "empty": False}
        return ok_envelope(self.contract, output)

    def _unechoed(self, output: Any) -> Any:
        """An accepted output without the secrets the call in progress sent (see scrub.output_scrub)."""
        arguments = _CALL.get((None, MISSING))[1]
        if arguments is MISSING or self._output_scrub is None:
            return output
        try:
            return self._output_scrub(arguments, output)
        except SecretsWithheld:
            raise  # the result is refused (_withheld_output)
        except Exception:  # noqa: BLE001 - arguments that raise when read: nothing found in them
            return output

    def _invalid_output(self, problems: list[str], exc: BaseException | None,
                        broken_rule: str | None = None) -> dict[str, Any]:
        _stage("output", "failed")
        ref = new_ref()
        scrub = self._secrets()
        logger.error("invalid result from %s %s ref=%s: %s", self.name, self.version, ref,
                     scrub.text("; ".join(problems)) or "unknown",
                     exc_info=loggable(exc, scrub) if exc is not None else None)
        code = self.invalid_output_code
        message, retryable, action = self._retry_policy(
            code, f"{self.name} produced an invalid result ("
            + (cap_text(broken_rule, 160) if broken_rule else "it does not match its output schema")
            + f"; reference {ref}); this is not caused by your arguments."
            + (" Do not retry; tell the user the tool failed." if CODES[code].action != "retry_later"
               else " Wait a moment and call again unchanged."), None, None)
        return error_envelope(self.contract, code, message, retryable=retryable, action=action, ref=ref)

    def _withheld_output(self, reason: str) -> dict[str, Any]:
        """The error for an ok result that cannot be shown: it may quote one of the call's secrets,
        and the call sent more than are looked for (``scrub.SecretsWithheld``)."""
        ref = new_ref()
        logger.error("result of %s %s withheld ref=%s: %s", self.name, self.version, ref, reason)
        message, retryable, action = self._retry_policy(
            self.invalid_output_code, f"{self.name} ran, but its result was withheld (reference {ref}): "
            f"{reason}. Do not retry; tell the user, and send at most {SECRETS_CAP} secret values in one "
            "call.", False, "stop_and_tell_user")
        return error_envelope(self.contract, self.invalid_output_code, message, retryable=retryable,
                              action=action, ref=ref)

    def _cancelled(self, exc: asyncio.CancelledError) -> dict[str, Any]:
        """A real cancellation of the caller propagates; one the tool raised itself is its failure."""
        if cancelled_here():
            raise exc
        return self._from_exception(exc)

    def _stopped(self, exc: KeyboardInterrupt | SystemExit) -> dict[str, Any]:
        """The process owner's stop propagates; a SystemExit or KeyboardInterrupt the tool raised
        itself (a wrapped CLI's ``sys.exit``) is its failure: a tool does not stop the process."""
        if owner_stop(exc):
            raise exc
        return self._from_exception(exc)
