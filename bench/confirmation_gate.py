"""Per-call cost of preconditions and confirmation, against the same tool without them, in one run.

Run: .venv/bin/python bench/confirmation_gate.py  (add --quick for a fast smoke run)
Prints microseconds per call (best of interleaved rounds) for refund_order's contract with its
rules and the same contract without them (so on the guard's fast path), for a call that runs (50)
and one the host confirmed (900), and the ratios against the rule-free baseline.
"""

from __future__ import annotations

import dataclasses
import sys
import timeit
from typing import Any

from contractgen.runtime import guard
from contractgen.runtime.confirmation import confirmed
from generated import refund_order_v1 as refunds

SMALL = {"order_id": "ord_7QpX2m", "amount": 50, "currency": "USD"}
BIG = {"order_id": "ord_Lk93aZ", "amount": 900, "currency": "USD"}


def refund(args: Any) -> dict[str, Any]:
    return {"refund_id": "re_1", "amount": args["amount"], "currency": args["currency"]}


def main(quick: bool) -> None:
    ruled = refunds.CONTRACT
    plain = dataclasses.replace(ruled, preconditions=(), confirmation=None)
    with_rules, without = guard(ruled, refund, state={}), guard(plain, refund, state={})
    number, rounds = (200, 3) if quick else (5000, 7)

    def confirmed_call() -> Any:
        with confirmed(with_rules, BIG):
            return with_rules(BIG)

    cases = {
        "no rules, 50 (baseline)": lambda: without(SMALL),
        "rules, 50 runs": lambda: with_rules(SMALL),
        "rules, 900 held": lambda: with_rules(BIG),
        "rules, 900 confirmed": confirmed_call,
    }
    assert without(SMALL)["status"] == with_rules(SMALL)["status"] == confirmed_call()["status"] == "ok"
    best = {name: float("inf") for name in cases}
    for _ in range(rounds):  # interleaved, so a slow moment hits every case alike
        for name, run in cases.items():
            best[name] = min(best[name], timeit.timeit(run, number=number) / number * 1e6)
    base = best["no rules, 50 (baseline)"]
    for name, micros in best.items():
        print(f"{name:26} {micros:8.2f} us  x{micros / base:.2f}")


if __name__ == "__main__":
    main("--quick" in sys.argv)
