"""The guard's plan gives the envelope the reference semantics give, on every way a tool is called.

``reference`` below is the contract's meaning written as plainly as possible, independent of the
guard: the Python ``jsonschema`` library (not the Rust validator the guard uses) judges arguments and
results, with formats asserted; a declared ToolError answers its code, retryability and action (a
transient code the retry policy does not list is not to be retried); network and timeout failures
are UNAVAILABLE/TIMEOUT; anything else is INTERNAL; an invalid result is INTERNAL; the empty rule
marks an empty success; ``retry_later`` failures count against the budget of their session, a
success resets it, and the failure that reaches the limit says ``stop_and_tell_user``.

Hypothesis draws the contract (schemas with nesting, enums, patterns, bounds, formats, open and
closed objects; declared errors; a budget and the codes it may retry), the calls (valid arguments,
near misses, random JSON) and what the implementation does on each (a valid or an invalid result, a
model, a declared error, a builtin network failure, a defect). The same sequence of calls goes to
the guard as a sync tool without and with a deadline, observed, and to ``acall`` with an async tool,
bare and under hooks (each a form the plan compiles): every
envelope must agree with the reference on status, code, action, retryability, output, the empty
signal and the budget.
"""

from __future__ import annotations

import asyncio
import copy
from dataclasses import dataclass
from typing import Any

import jsonschema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contractgen.runtime import (
    Contract,
    EmptyResult,
    ErrorSpec,
    RetryPolicy,
    Timeout,
    ToolError,
    guard,
)
from contractgen.runtime.codes import CODES
from contractgen.runtime.hooks import CallHooks

# -- contracts ------------------------------------------------------------------------------------

SCALARS = [
    ({"type": "string", "maxLength": 8}, st.text(max_size=8)),
    ({"type": "string", "pattern": "^[A-Z]{3}$"}, st.from_regex(r"^[A-Z]{3}$", fullmatch=True)),
    ({"type": "string", "format": "date"}, st.dates().map(lambda d: d.isoformat())),
    ({"type": "integer", "minimum": 0, "maximum": 9}, st.integers(0, 9)),
    ({"type": "number", "exclusiveMinimum": 0}, st.floats(0.5, 1e6, allow_nan=False)),
    ({"enum": ["economy", "business"]}, st.sampled_from(["economy", "business"])),
    ({"type": "boolean"}, st.booleans()),
    ({"type": "array", "items": {"type": "string"}, "maxItems": 3}, st.lists(st.text(max_size=3), max_size=3)),
]
NAMES = ["origin", "cabin", "when", "count", "price", "tags", "flag", "note"]
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 12) | st.floats(-2, 2, allow_nan=False) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(NAMES + ["x"]), inner, max_size=3),
    max_leaves=6)


@dataclass
class Shape:
    """An object schema and a strategy for values it accepts."""

    schema: dict[str, Any]
    valid: st.SearchStrategy[dict[str, Any]]


@st.composite
def shapes(draw: Any, depth: int = 0) -> Shape:
    names = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=4, unique=True))
    properties: dict[str, Any] = {}
    values: dict[str, st.SearchStrategy[Any]] = {}
    for name in names:
        if depth == 0 and draw(st.integers(0, 4)) == 0:
            inner = draw(shapes(depth=1))
            properties[name], values[name] = inner.schema, inner.valid
        else:
            schema, strategy = draw(st.sampled_from(SCALARS))
            properties[name], values[name] = copy.deepcopy(schema), strategy
    required = draw(st.lists(st.sampled_from(names), unique=True))
    closed = draw(st.booleans())
    schema = {"type": "object", "properties": properties, "required": required,
              "additionalProperties": not closed}
    optional = {n: v for n, v in values.items() if n not in required}
    valid = st.fixed_dictionaries({n: values[n] for n in required}, optional=optional)
    return Shape(schema, valid)


ERRORS = (ErrorSpec("Flaky", "UNAVAILABLE", "The backend is flaky."),
          ErrorSpec("Throttled", "RATE_LIMITED", "Slow down.", retry_after=2.0),
          ErrorSpec("Missing", "NOT_FOUND", "No such thing."),
          ErrorSpec("Clash", "CONFLICT", "It clashes."),
          ErrorSpec("Blocked", "FAILED_PRECONDITION", "A rule blocks it.", action="stop_and_tell_user"))


@dataclass
class Drawn:
    contract: Contract
    inputs: Shape
    outputs: Shape


@st.composite
def contracts(draw: Any) -> Drawn:
    inputs, outputs = draw(shapes()), draw(shapes())
    empty = None
    if draw(st.booleans()):
        name = next(iter(outputs.schema["properties"]))
        empty = EmptyResult(f"/{name}", "Nothing matched.")
    retryable = tuple(draw(st.lists(st.sampled_from(["RATE_LIMITED", "UNAVAILABLE", "TIMEOUT"]), unique=True)))
    contract = Contract(name="probe", version="1.0.0", summary="s", description="d",
                        input_schema=inputs.schema, output_schema=outputs.schema, errors=ERRORS,
                        timeout=Timeout(seconds=None),
                        retry=RetryPolicy(retryable_codes=retryable,
                                          failure_budget=draw(st.sampled_from([None, 1, 2, 3]))),
                        empty_result=empty)
    return Drawn(contract, inputs, outputs)


# -- what the implementation does ---------------------------------------------------------------

BEHAVIOURS = ["valid", "invalid", "flaky", "throttled", "missing", "clash", "blocked", "refused",
              "timeout", "defect"]
RAISED = {"flaky": ERRORS[0], "throttled": ERRORS[1], "missing": ERRORS[2], "clash": ERRORS[3], "blocked": ERRORS[4]}


def act(behaviour: str, result: Any) -> Any:
    if behaviour in RAISED:
        raise ToolError.for_spec(RAISED[behaviour])()
    if behaviour == "refused":
        raise ConnectionRefusedError(111, "Connection refused")
    if behaviour == "timeout":
        raise TimeoutError("timed out")
    if behaviour == "defect":
        raise KeyError("a bug")
    return copy.deepcopy(result)


# -- the reference semantics ---------------------------------------------------------------------

def _valid(schema: dict[str, Any], value: Any) -> bool:
    validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    return validator.is_valid(value)


def _is_empty(contract: Contract, output: Any) -> bool:
    rule = contract.empty_result
    if rule is None:
        return False
    value = output.get(rule.pointer[1:], None) if isinstance(output, dict) else None
    return value is None or (isinstance(value, (list, dict, str)) and len(value) == 0)


def reference(contract: Contract, arguments: Any, behaviour: str, result: Any) -> dict[str, Any]:
    """The envelope's decisive facts, before the budget: status, code, action, retryable, output, empty."""
    if not _valid(contract.input_schema, arguments):
        return {"status": "error", "code": "INVALID_ARGUMENT", "action": "fix_arguments", "retryable": True}
    if behaviour in RAISED:
        spec = RAISED[behaviour]
        code, action, retryable = spec.code, spec.effective_action, spec.effective_retryable
        if spec.action is None and spec.retryable is None and action == "retry_later" \
                and code not in contract.retry.retryable_codes:
            action, retryable = "stop_and_tell_user", False
        return {"status": "error", "code": code, "action": action, "retryable": retryable}
    if behaviour in ("refused", "timeout"):
        code = "UNAVAILABLE" if behaviour == "refused" else "TIMEOUT"
        if code in contract.retry.retryable_codes:
            return {"status": "error", "code": code, "action": "retry_later", "retryable": True}
        return {"status": "error", "code": code, "action": "stop_and_tell_user", "retryable": False}
    if behaviour == "defect" or not _valid(contract.output_schema, result):
        return {"status": "error", "code": "INTERNAL", "action": "stop_and_tell_user", "retryable": False}
    return {"status": "ok", "output": result, "empty": _is_empty(contract, result)}


class Budget:
    """The reference budget: consecutive retry_later failures per session, reset by a success."""

    def __init__(self, limit: int | None) -> None:
        self.limit, self.counts = limit, {}

    def account(self, facts: dict[str, Any], session: str) -> dict[str, Any]:
        if facts["status"] == "ok":
            self.counts[session] = 0
            return facts
        if self.limit is None or facts["action"] != "retry_later":
            return facts
        failures = self.counts[session] = self.counts.get(session, 0) + 1
        exhausted = failures >= self.limit
        facts = {**facts, "budget": {"consecutive_failures": failures, "limit": self.limit, "exhausted": exhausted}}
        if exhausted:
            facts.update(action="stop_and_tell_user", retryable=False)
        return facts


def facts_of(envelope: dict[str, Any]) -> dict[str, Any]:
    """What the reference decides, read off a guard's envelope."""
    if envelope["status"] == "ok":
        return {"status": "ok", "output": envelope["output"], "empty": envelope["empty"]}
    error = envelope["error"]
    facts = {"status": "error", "code": error["code"], "action": error["action"], "retryable": error["retryable"]}
    if "budget" in error:
        facts["budget"] = error["budget"]
    assert error["category"] == CODES[error["code"]].category
    return facts


# -- the property ---------------------------------------------------------------------------------

@st.composite
def scenarios(draw: Any) -> tuple[Drawn, list[tuple[Any, str, Any, str]]]:
    drawn = draw(contracts())
    calls = []
    for _ in range(draw(st.integers(1, 8))):
        arguments = draw(drawn.inputs.valid | st.dictionaries(st.sampled_from(NAMES + ["x"]), JSON_VALUES, max_size=4))
        behaviour = draw(st.sampled_from(BEHAVIOURS))
        result = draw(drawn.outputs.valid) if behaviour == "valid" else draw(
            JSON_VALUES | drawn.outputs.valid.map(lambda r: {**r, "extra": "x"}))
        calls.append((arguments, behaviour, result, draw(st.sampled_from(["s1", "s2"]))))
    return drawn, calls


def _ways(contract: Contract, calls: list[tuple[Any, str, Any, str]]) -> dict[str, list[dict[str, Any]]]:
    """The envelopes of ``calls`` through each way a tool is called."""
    steps = iter(calls)

    def implementation(_: Any) -> Any:
        _arguments, behaviour, result, _session = current[0]
        return act(behaviour, result)

    async def asynchronous(_: Any) -> Any:
        await asyncio.sleep(0)
        return implementation(_)

    current: list[Any] = [None]
    timed = Contract(**{**contract.__dict__, "timeout": Timeout(seconds=30)})
    plain, deadline = guard(contract, implementation), guard(timed, implementation)
    awaited = guard(contract, asynchronous)
    # the plan's other compiled forms: observed (a CallRecord each call), and ``checked`` under hooks
    observed = guard(contract, implementation, on_call=lambda record: None)
    hooked = guard(contract, asynchronous, hooks=CallHooks())
    got: dict[str, list[dict[str, Any]]] = {"call": [], "deadline": [], "acall": [], "observed": [],
                                            "hooks acall": []}
    loop = asyncio.new_event_loop()
    try:
        for step in steps:
            current[0] = step
            arguments, _behaviour, _result, session = step
            got["call"].append(plain(copy.deepcopy(arguments), session=session))
            got["deadline"].append(deadline(copy.deepcopy(arguments), session=session))
            got["acall"].append(loop.run_until_complete(awaited.acall(copy.deepcopy(arguments), session=session)))
            got["observed"].append(observed(copy.deepcopy(arguments), session=session))
            got["hooks acall"].append(loop.run_until_complete(hooked.acall(copy.deepcopy(arguments), session=session)))
    finally:
        loop.close()
    return got


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(scenarios())
def test_every_way_of_calling_gives_the_reference_envelope(scenario: tuple[Drawn, list[Any]]) -> None:
    drawn, calls = scenario
    contract = drawn.contract
    budget = Budget(contract.retry.failure_budget)
    expected = [budget.account(reference(contract, a, b, r), s) for a, b, r, s in calls]
    for way, envelopes in _ways(contract, calls).items():
        assert [facts_of(e) for e in envelopes] == expected, (way, calls)


def test_the_reference_itself_can_tell_outcomes_apart() -> None:
    """The oracle is no constant: one contract, calls of every kind, each answered as it must be."""
    schema = {"type": "object", "properties": {"n": {"type": "integer", "maximum": 3}}, "required": ["n"],
              "additionalProperties": False}
    contract = Contract(name="probe", version="1.0.0", summary="s", description="d", input_schema=schema,
                        output_schema=schema, errors=ERRORS, timeout=Timeout(seconds=None),
                        retry=RetryPolicy(failure_budget=2), empty_result=None)
    calls = [({"n": 1}, "valid", {"n": 2}, "s"), ({"n": 9}, "valid", {"n": 2}, "s"),
             ({"n": 1}, "refused", None, "s"), ({"n": 1}, "flaky", None, "s"),
             ({"n": 1}, "invalid", {"n": "2"}, "s"), ({"n": 1}, "missing", None, "s")]
    budget = Budget(2)
    expected = [budget.account(reference(contract, a, b, r), s) for a, b, r, s in calls]
    assert [e.get("code", "OK") for e in expected] == ["OK", "INVALID_ARGUMENT", "UNAVAILABLE", "UNAVAILABLE",
                                                       "INTERNAL", "NOT_FOUND"]
    assert expected[3]["budget"]["exhausted"] and expected[3]["action"] == "stop_and_tell_user"
    for way, envelopes in _ways(contract, calls).items():
        assert [facts_of(e) for e in envelopes] == expected, way
