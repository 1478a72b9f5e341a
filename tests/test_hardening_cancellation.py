"""A deadline that relies on no cooperation, through to the end of the event loop.

An async implementation that swallows every ``CancelledError`` used to be answered TIMEOUT at its
deadline by ``acall``, and then ``asyncio.run(...)`` never returned: at shutdown asyncio cancels
every task left and waits for them, and the abandoned work swallowed that cancellation too. Abandoned
work now goes on running (its side effects still happen) until someone cancels it again; a second
swallowed cancellation closes it. (Work that also swallows the ``GeneratorExit`` of that close, and
every other exception, still ends its task; what it does when the interpreter finally collects it
is its own code.)
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from contractgen.runtime import Contract, Timeout, guard

ROOT = Path(__file__).resolve().parent.parent


def _stubborn_contract() -> Contract:
    return Contract(name="stubborn", version="1.0.0", summary="s", description="d",
                    input_schema={"type": "object"}, output_schema={"type": "object"}, timeout=Timeout(0.3))


def test_asyncio_run_of_acall_returns_when_the_work_swallows_every_cancellation() -> None:
    code = textwrap.dedent("""
        import asyncio, json, time
        from contractgen.runtime import Contract, Timeout, guard
        contract = Contract(name="stubborn", version="1.0.0", summary="s", description="d",
                            input_schema={"type": "object"}, output_schema={"type": "object"},
                            timeout=Timeout(0.3))
        async def stubborn(_):
            while True:
                try:
                    await asyncio.sleep(10)
                except asyncio.CancelledError:
                    continue
        began = time.monotonic()
        async def main():
            return await guard(contract, stubborn).acall({})
        envelope = asyncio.run(main())
        print(json.dumps([envelope["error"]["code"], time.monotonic() - began]))
    """)
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                            timeout=60, check=False)  # the attack's bound: before, this hung here
    assert result.returncode == 0, result.stderr
    code_seen, seconds = json.loads(result.stdout)
    assert code_seen == "TIMEOUT" and seconds < 30


def test_abandoned_work_runs_on_until_it_is_cancelled_again() -> None:
    ticks: list[int] = []

    async def stubborn(_: Any) -> Any:
        while True:
            try:
                await asyncio.sleep(0.01)
                ticks.append(1)
            except asyncio.CancelledError:
                continue

    async def main() -> tuple[dict[str, Any], int, bool]:
        envelope = await guard(_stubborn_contract(), stubborn).acall({})
        before = len(ticks)
        await asyncio.sleep(0.1)
        still_running = len(ticks) > before  # the deadline abandons work; it does not kill it
        left = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in left:
            task.cancel()
        await asyncio.wait(left, timeout=5)
        return envelope, sum(not t.done() for t in left), still_running

    envelope, not_done, still_running = asyncio.run(main())
    assert envelope["error"]["code"] == "TIMEOUT"
    assert still_running and not_done == 0
