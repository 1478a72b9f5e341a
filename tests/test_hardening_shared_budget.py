"""A failure budget in one shared mapping is exact across every guarded tool that counts in it:
two tools of one contract (their own stores, the same dict) counting 1,000 concurrent failures of
one session give the counts 1..1,000, each once, and the 1,000th call is the one told to stop."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from contractgen.runtime import Contract, RetryPolicy, ToolError, guard
from contractgen.runtime.budget import budget_key

CALLS = 1000


@pytest.fixture
def busy_switching() -> Iterator[None]:
    """Threads switch every microsecond: a read-modify-write that is not atomic shows at once."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(before)


def contract() -> Contract:
    return Contract(
        name="flaky",
        version="1.0.0",
        summary="s",
        description="d",
        input_schema={"type": "object"},
        output_schema={"type": "object"},
        retry=RetryPolicy(failure_budget=CALLS),
    )


def fails(_: Any) -> Any:
    raise ToolError("the upstream is down", code="UNAVAILABLE")


@pytest.mark.parametrize(
    "mapping", [dict, lambda: __import__("collections").OrderedDict()], ids=["dict", "OrderedDict"]
)
def test_two_tools_counting_in_one_mapping_count_exactly(
    busy_switching: None, mapping: Any
) -> None:
    shared = mapping()
    tools = [guard(contract(), fails, state=shared), guard(contract(), fails, state=shared)]
    for session in (
        "a",
        "b",
        "c",
    ):  # three rounds: a lost update is a race, three chances to show it
        start = threading.Barrier(16)

        def call(
            n: int, session: str = session, start: threading.Barrier = start
        ) -> dict[str, Any]:
            if n < 16:
                start.wait()
            return tools[n % 2]({}, session=session)  # type: ignore[no-any-return]

        with ThreadPoolExecutor(16) as pool:
            envelopes = list(pool.map(call, range(CALLS)))
        counts = sorted(e["error"]["budget"]["consecutive_failures"] for e in envelopes)
        assert counts == list(range(1, CALLS + 1)), session
        assert shared[budget_key("flaky", session)] == CALLS
        stopped = [e for e in envelopes if e["error"]["action"] == "stop_and_tell_user"]
        assert len(stopped) == 1 and stopped[0]["error"]["budget"]["consecutive_failures"] == CALLS


def test_a_success_of_one_tool_resets_the_count_the_other_sees() -> None:
    shared: dict[str, Any] = {}
    failing, succeeding = (
        guard(contract(), fails, state=shared),
        guard(contract(), lambda _: {}, state=shared),
    )
    assert [
        failing({}, session="s")["error"]["budget"]["consecutive_failures"] for _ in range(3)
    ] == [1, 2, 3]
    assert succeeding({}, session="s")["status"] == "ok"
    assert failing({}, session="s")["error"]["budget"]["consecutive_failures"] == 1
