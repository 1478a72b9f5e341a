"""The account stage: the failure budget of the call's session (counted, reset, exhausted), the
store that cannot be reached, and the CallRecord for observers."""

from __future__ import annotations

import time
from typing import Any, cast

from .budget import (
    COUNT_HERE,
    budget_key,
    count_async,
    note_unreachable,
)
from .envelope_types import (
    Envelope,
)
from .observe import CallRecord, emit
from .stage_arguments import ArgumentsStage


class AccountStage(ArgumentsStage):
    """The last stage of a call: its envelope counted against the session's budget, then observed."""

    async def afinish(self, envelope: dict[str, Any], session: str, start: float,
                      observed: bool) -> Envelope:
        """``_finish``, counting with the store's asyncio client when it has one."""
        if not self._counts_async:  # in-memory stores: nothing to await
            return self._finish(envelope, session, start, observed)
        key = self._keys.get(session) or self._key(session)
        counted = await count_async(self.budget, key, envelope, self._limit)
        return self._finish(envelope, session, start, observed, counted)

    def _key(self, session: str) -> str:
        if len(self._keys) > 4096:  # many sessions: keep the memo bounded
            self._keys.clear()
        key = self._keys[session] = budget_key(self.name, session)
        return key

    def _finish(self, envelope: dict[str, Any], session: str, start: float,
                observed: bool = True, counted: Any = COUNT_HERE) -> Envelope:
        if self._deprecation_notice is not None:  # every call's envelope passes here, with its session
            self._deprecation_notice(envelope, session)
        limit = self._limit
        failures: int | None = None
        exhausted = False
        ref = None
        try:
            key = self._keys.get(session) or self._key(session)
            if isinstance(counted, BaseException):
                raise counted
            if envelope["status"] == "ok":
                if counted is COUNT_HERE:
                    self.budget.reset(key)
                code = "OK"
            else:
                error = envelope["error"]
                code, ref = error["code"], error.get("ref")
                if limit is not None and error["action"] == "retry_later":
                    failures = self.budget.record_failure(key) if counted is COUNT_HERE else counted
                    exhausted = failures >= limit
                    error["budget"] = {"consecutive_failures": failures, "limit": limit,
                                       "exhausted": exhausted}
                    if exhausted:
                        error["retryable"] = False
                        error["action"] = "stop_and_tell_user"
                        error.pop("retry_after", None)
                        error["message"] = (
                            f"{self.name} has failed {failures} times in a row ({code}). Do not "
                            "call it again for this request; tell the user it is not working "
                            "right now.")
        except Exception as exc:  # noqa: BLE001 - a broken store must not turn into an exception for the model
            note_unreachable(envelope, self.name, limit, self.contract.state_unreachable, exc)
            code = envelope.get("error", {}).get("code", "OK")
        # the record is built only when someone can observe it (a hook or an enabled logger)
        if observed:
            record = CallRecord(self.name, self.version, code, time.perf_counter() - start, session,
                                ref, failures, limit, exhausted)
            emit(record, self._on_call)
        return cast("Envelope", envelope)  # every envelope above is built to the Envelope shape
