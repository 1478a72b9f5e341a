"""How long the prover may think: a time budget per proof, and one shared by every proof of a run (a
diff, or ``check``'s confirmation conditions: ``proofs_within``).

Past either, the proof step is interrupted and answers "could not prove" (the finding is WARN, never a
wrong ERR or INFO). The interruption is SIGALRM raising ``OverBudget`` inside the step, so it reaches
pure-Python work such as building regex automata (greenery), which has no size bound of its own; off the
main thread, or where SIGALRM does not exist, only the whole diff's budget is checked between steps.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

#: seconds one proof (one schema pair) may take
STEP_SECONDS = 2.0
#: seconds all proofs of one diff may take, unless the user sets it (--proof-budget, proof_budget)
TOTAL_SECONDS = 120.0


class OverBudget(BaseException):
    """A proof ran past its budget; ``reason`` says which one. A BaseException, like KeyboardInterrupt,
    so the ``except Exception`` of a checker or a validator inside the proof cannot swallow it."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


#: how a run's budget is named in the reason a proof gives up with
DIFF_BUDGET = "the diff's proof budget ({seconds:g} s, --proof-budget)"

_deadline: float | None = None
_total: float = TOTAL_SECONDS
_name = DIFF_BUDGET
_active = False
_run = 0  # counts runs begun and ended: what a run gave up on is not given up on in the next


def start_diff(seconds: float = TOTAL_SECONDS, name: str = DIFF_BUDGET) -> None:
    """Begin one run's budget (``name`` says whose, with ``{seconds}``): every proof from now on
    shares ``seconds``."""
    global _deadline, _total, _name, _run
    _total, _name = seconds, name
    _deadline = time.monotonic() + seconds
    _run += 1


def end_diff() -> None:
    """End the run's budget: proofs outside a run (a ``check`` later in the same process, a test)
    are bounded per step only, not by what an earlier run spent."""
    global _deadline, _run
    _deadline = None
    _run += 1


def current_run() -> int:
    """Which run (or stretch between runs) proofs belong to now."""
    return _run


@contextmanager
def proofs_within(seconds: float, name: str = DIFF_BUDGET) -> Iterator[None]:
    """Every proof inside shares ``seconds`` (a diff run, a check's conditions); the budget ends with it."""
    start_diff(seconds, name)
    try:
        yield
    finally:
        end_diff()


def _whole_diff_reason() -> str:
    return f"{_name.format(seconds=_total)} was spent before this proof"


@contextmanager
def proof_step(seconds: float = STEP_SECONDS) -> Iterator[None]:
    """Run one proof within ``seconds`` and what is left of the diff's budget; raises ``OverBudget``."""
    global _active
    left = None if _deadline is None else _deadline - time.monotonic()
    if left is not None and left <= 0:
        raise OverBudget(_whole_diff_reason())
    nested = _active
    timed = not nested and hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if not timed:
        yield
        return
    limit = seconds if left is None else min(seconds, left)
    reason = (f"the proof took longer than its budget ({seconds:g} s)" if limit == seconds
              else _whole_diff_reason().replace("was spent before", "ran out during"))

    def interrupt(signum: int, frame: object) -> None:
        if _active:
            raise OverBudget(reason)

    previous = signal.signal(signal.SIGALRM, interrupt)
    _active = True
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        yield
    finally:
        _active = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
