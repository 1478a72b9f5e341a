"""Property tests: whatever the arguments and whatever the implementation raises, the guard answers
with a valid envelope and never raises."""

from __future__ import annotations

import asyncio
import builtins
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from contractgen.manifest import load_contracts
from contractgen.runtime import CODES, Contract, RetryPolicy, Timeout, ToolError, guard
from contractgen.testing import assert_valid_envelope

ROOT = Path(__file__).resolve().parents[1]
BUNDLED = [t.contract for t in load_contracts([ROOT / "contracts"]).contracts.tools]
SENSITIVE = Contract(
    name="login", version="1.0.0", summary="s", description="d",
    input_schema={"type": "object", "additionalProperties": False, "required": ["user"],
                  "properties": {"user": {"type": "string", "maxLength": 8},
                                 "password": {"type": "string", "writeOnly": True, "minLength": 30},
                                 "nested": {"type": "array", "items": {"type": "object", "properties": {
                                     "pin": {"type": "integer", "x-sensitive": True, "maximum": -1}}}}}},
    output_schema={"type": "object"}, timeout=Timeout(None), retry=RetryPolicy(failure_budget=2))
CONTRACTS = [*BUNDLED, SENSITIVE]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats()
    | st.text(max_size=30),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=12), children, max_size=6),
    max_leaves=25)
argument_objects = st.dictionaries(
    st.sampled_from(["title", "date", "start_date", "time_zone", "duration_minutes", "attendees",
                     "user", "password", "nested", "titel", "x"]) | st.text(max_size=10),
    json_values, max_size=7)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(contract=st.sampled_from(CONTRACTS), arguments=argument_objects | json_values)
@example(contract=BUNDLED[0], arguments={"A:\x1f": 0})  # a name quoted with a backslash escape read as a path
def test_any_json_arguments_give_a_valid_envelope(contract: Contract, arguments: Any) -> None:
    envelope = guard(contract, lambda a: {})(arguments)
    assert_valid_envelope(envelope, contract)
    if contract is SENSITIVE and isinstance(arguments, dict) and isinstance(arguments.get("password"), str) \
            and len(arguments["password"]) > 3:
        assert arguments["password"] not in str(envelope.get("error", {}).get("violations", ""))


texts = st.text(max_size=400)
tool_errors = st.builds(
    ToolError, texts | st.none(), code=st.sampled_from([*CODES, "BOGUS", None]),
    field=st.none() | st.text(max_size=20), retry_after=st.none() | st.floats() | st.integers(-5, 10**6),
    partial_results=st.none() | json_values, upstream=st.none() | texts | json_values)
plain_errors = st.builds(lambda cls, msg: cls(msg), st.sampled_from(
    [ValueError, KeyError, RuntimeError, OSError, TimeoutError, ConnectionError, ZeroDivisionError,
     AttributeError, LookupError, Exception]), texts)


class UnprintableError(Exception):
    def __str__(self) -> str:
        raise RuntimeError("str() itself fails")


def chained(pair: tuple[BaseException, BaseException]) -> BaseException:
    outer, inner = pair
    outer.__cause__ = inner
    return outer


GROUP: Any = getattr(builtins, "ExceptionGroup", None)  # Python 3.11+


def nested(inner: Any) -> Any:
    chains = st.tuples(plain_errors, inner).map(chained)
    if GROUP is None:
        return chains
    return chains | st.lists(inner, min_size=1, max_size=3).map(lambda es: GROUP("group", es))


exceptions = st.recursive(tool_errors | plain_errors | st.just(UnprintableError()), nested,
                          max_leaves=5)


@settings(max_examples=300, deadline=None)
@given(contract=st.sampled_from(CONTRACTS), exc=exceptions, use_async=st.booleans())
def test_any_exception_gives_a_valid_envelope(contract: Contract, exc: BaseException, use_async: bool) -> None:
    arguments = dict(contract.examples[0].arguments) if contract.examples else {"user": "ann"}

    def raising(_: Any) -> Any:
        raise exc

    async def araising(_: Any) -> Any:
        raise exc
    tool = guard(contract, araising if use_async else raising)
    envelope = asyncio.run(tool.acall(arguments)) if use_async else tool(arguments)
    assert_valid_envelope(envelope, contract)
    assert envelope["status"] == "error"
    direct = exc if isinstance(exc, ToolError) else None
    if direct is not None and direct.code in CODES:
        assert envelope["error"]["code"] == direct.code
