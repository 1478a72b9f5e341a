"""What leaves the guard is exact JSON: a tool's result (and whatever of the tool ends up in an error
envelope) comes back made of dict, list, str, int, float, bool and None themselves, equal as JSON to
what the tool returned, whatever subclasses or tuples it held. Nothing of the tool's classes runs
once the guard has returned: not when the envelope is printed, compared, logged or encoded (a
``__repr__`` that hangs would stall the caller outside every deadline), and a subclass cannot change
how the value reads (a ``__str__`` that lies, an ``__index__`` that says another number).

The values are built by the tool from plain JSON drawn by hypothesis, wrapping members (keys,
values, items, at any depth) in hostile subclasses whose methods record that they ran and raise once
the tool has returned; the checks read only through base types (``dict.items(d)``)."""

from __future__ import annotations

import asyncio
import copy
import json
import random
import threading
import time
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp_support import connected

from contractgen.runtime import Contract, RetryPolicy, Timeout, ToolError, guard
from contractgen.runtime.mcp_server import build_server

#: set by the tool once it has built its result: from then on a hostile method records and raises
ARMED = threading.Event()
RAN: list[str] = []
#: set at the end of a test: a hanging method then lets go
RELEASE = threading.Event()

_TRAPPED = ("__repr__", "__str__", "__format__", "__eq__", "__ne__", "__hash__", "__lt__", "__len__",
            "__iter__", "__getitem__", "__contains__", "__bool__", "__index__", "__int__", "__float__",
            "__reduce__", "__reduce_ex__", "__add__", "__mul__", "__copy__", "__deepcopy__", "items",
            "keys", "values", "get", "copy", "encode", "lower", "split", "startswith", "replace",
            "is_integer", "hex", "bit_length", "__getstate__")


def _trapped(original: Any, name: str) -> Any:
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        if ARMED.is_set():
            RAN.append(f"{type(self).__name__}.{name}")
            raise RuntimeError(f"the tool's {name} ran after it returned")
        return original(self, *args, **kwargs)
    return method


def _hostile(base: type) -> type:
    members = {name: _trapped(getattr(base, name), name) for name in _TRAPPED
               if getattr(base, name, None) is not None}
    return type(f"Hostile{base.__name__.title()}", (base,), members)


HStr, HInt, HFloat, HDict, HList, HTuple = map(_hostile, (str, int, float, dict, list, tuple))


def _blocking(base: type) -> type:
    """A subclass whose printing hangs until RELEASE (the red team's stall, made finite)."""
    def hang(self: Any, *args: Any) -> Any:
        if ARMED.is_set():
            RAN.append(f"{type(self).__name__}.hang")
            RELEASE.wait(30)
        return base.__repr__(self)
    return type(f"Blocking{base.__name__.title()}", (base,), {"__repr__": hang, "__str__": hang,
                                                              "__format__": hang})


BStr, BInt, BFloat = map(_blocking, (str, int, float))


def disguised(value: Any, rng: random.Random) -> Any:
    """``value`` (plain JSON) with some members, keys and items, at any depth, in hostile subclasses
    or tuples; the same JSON value."""
    wrap = rng.random() < 0.5
    if isinstance(value, dict):
        pairs = [(HStr(k) if rng.random() < 0.3 else k, disguised(v, rng)) for k, v in value.items()]
        return HDict(pairs) if wrap else dict(pairs)
    if isinstance(value, list):
        items = [disguised(v, rng) for v in value]
        return rng.choice([HList, HTuple, tuple])(items) if wrap else items
    if not wrap or value is None or isinstance(value, bool):
        return value
    return {str: HStr, int: HInt, float: HFloat}[type(value)](value)


def exact_types_only(value: Any) -> bool:
    """Read through base types only: a hostile member must not run here either."""
    kind = type(value)
    if kind is dict:
        return all(type(k) is str and exact_types_only(v) for k, v in dict.items(value))
    if kind is list:
        return all(exact_types_only(v) for v in list.__iter__(value))
    return kind in (str, int, float, bool, type(None))


def same_json(a: Any, b: Any) -> bool:
    """Equal as JSON values, types included (1 is not 1.0, True is not 1), read through base types."""
    if type(a) is not type(b):
        return False
    if type(a) is dict:
        return dict.keys(a) == dict.keys(b) and all(same_json(v, dict.__getitem__(b, k)) for k, v in dict.items(a))
    if type(a) is list:
        return list.__len__(a) == list.__len__(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def read_by_the_caller(envelope: Any) -> None:
    """What a caller does with an envelope after the guard returned: none of it may run tool code."""
    json.dumps(envelope)
    repr(envelope)
    str(envelope)
    f"{envelope}"
    copy.deepcopy(envelope)
    from pydantic_core import to_json

    to_json(envelope)


JSON_SCALARS = st.none() | st.booleans() | st.integers(-(2**70), 2**70) \
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8)
JSON_VALUES = st.recursive(JSON_SCALARS, lambda inner: st.lists(inner, max_size=10)
                           | st.dictionaries(st.text(max_size=6), inner, max_size=4), max_leaves=20)
OBJECTS = st.dictionaries(st.text(max_size=6), JSON_VALUES, max_size=12)  # past MEMBER_BY_MEMBER too


def contract(output: Any, seconds: float | None) -> Contract:
    return Contract(name="disguised", version="1.0.0", summary="s", description="d",
                    input_schema={"type": "object"}, output_schema=output, timeout=Timeout(seconds),
                    retry=RetryPolicy(failure_budget=None))


def returning(plain: Any, seed: int, asynchronous: bool) -> Any:
    def build() -> Any:
        ARMED.clear()
        value = disguised(plain, random.Random(seed))
        ARMED.set()
        return value

    async def async_tool(_: Any) -> Any:
        return build()

    return async_tool if asynchronous else (lambda _: build())


# how the guard runs the tool: sync inline (the fast path), sync on a worker under a deadline,
# async on the caller's loop with and without a deadline, and acall of a sync tool
WAYS = [("call", False, None), ("call", False, 5.0), ("acall", True, None), ("acall", True, 5.0),
        ("acall", False, 5.0)]


def called(tool: Any, how: str) -> Any:
    return tool({}) if how == "call" else asyncio.run(tool.acall({}))


@pytest.mark.parametrize(("how", "asynchronous", "seconds"), WAYS)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plain=OBJECTS, seed=st.integers(0, 2**32))
def test_the_output_is_exact_json_equal_to_the_result(how: str, asynchronous: bool, seconds: float | None,
                                                       plain: dict[str, Any], seed: int) -> None:
    tool = guard(contract({"type": "object"}, seconds), returning(plain, seed, asynchronous))
    try:
        for _ in range(2):  # the first call takes the full path, the next the fast one
            RAN.clear()
            envelope = called(tool, how)
            assert RAN == []  # the guard read the result through its base types only
            assert envelope["status"] == "ok", envelope
            assert exact_types_only(envelope)
            assert same_json(envelope["output"], plain)
            read_by_the_caller(envelope)
            assert RAN == []
    finally:
        ARMED.clear()


PINNED = {"type": "object", "required": ["hits"], "additionalProperties": False,
          "properties": {"hits": {"type": "array", "items": {"type": "string"}},
                         "total": {"type": "integer"}, "score": {"type": "number"},
                         "page": {"type": "object", "additionalProperties": False,
                                  "properties": {"next": {"type": ["string", "null"]}}}}}
PINNED_RESULTS = st.fixed_dictionaries(
    {"hits": st.lists(st.text(max_size=8), max_size=4)},
    optional={"total": st.integers(-(2**40), 2**40), "score": st.floats(allow_nan=False, allow_infinity=False),
              "page": st.fixed_dictionaries({}, optional={"next": st.none() | st.text(max_size=4)})})


@pytest.mark.parametrize(("how", "asynchronous", "seconds"), WAYS)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plain=PINNED_RESULTS, seed=st.integers(0, 2**32))
def test_a_schema_pinning_plain_json_gets_exact_json_too(how: str, asynchronous: bool, seconds: float | None,
                                                         plain: dict[str, Any], seed: int) -> None:
    """The output schema alone proves a result JSON (the fast validator reads it in Rust, which
    takes a subclass as its base): the result's types are still judged."""
    tool = guard(contract(PINNED, seconds), returning(plain, seed, asynchronous))
    try:
        for _ in range(2):
            RAN.clear()
            envelope = called(tool, how)
            assert envelope["status"] == "ok", envelope
            assert exact_types_only(envelope) and same_json(envelope["output"], plain)
            read_by_the_caller(envelope)
            assert RAN == []
    finally:
        ARMED.clear()


def test_a_subclass_reads_as_what_it_holds_not_what_its_methods_say() -> None:
    class Lying(str):
        def __str__(self) -> str:
            return "something else"

    class Index(int):
        def __index__(self) -> int:
            return 99

        def __int__(self) -> int:
            return 99

    class Repr(float):
        def __repr__(self) -> str:
            return "1e999"

    tool = guard(contract({"type": "object"}, None), lambda _: {"s": Lying("held"), "i": Index(3), "f": Repr(0.5)})
    for _ in range(2):
        envelope = tool({})
        assert envelope["output"] == {"s": "held", "i": 3, "f": 0.5}
        assert [type(v) for v in envelope["output"].values()] == [str, int, float]
        assert json.loads(json.dumps(envelope))["output"] == {"s": "held", "i": 3, "f": 0.5}


def test_a_result_whose_reading_raises_never_escapes_the_sync_guard() -> None:
    """A nested dict subclass whose items() raises: the fast path read it with json_problem (the
    tool's items() ran, its exception escaped the guard). It is copied through dict.items now."""
    class Broken(dict):
        def items(self) -> Any:
            raise RuntimeError("items")

    tool = guard(contract({"type": "object"}, None), lambda _: {"a": Broken(b=1)})
    for _ in range(3):
        envelope = tool({})
        assert envelope["status"] == "ok" and envelope["output"] == {"a": {"b": 1}}


@pytest.mark.parametrize("seconds", [None, 5.0])
def test_a_result_whose_attributes_raise_is_still_read(seconds: float | None) -> None:
    """Whether a result is a model was asked of the result itself: a dict subclass whose
    __getattr__ raises made the call INTERNAL (a defect of the guard, in its log)."""
    class Attributes(dict):
        def __getattr__(self, name: str) -> Any:
            raise RuntimeError(f"no {name}")

    tool = guard(contract({"type": "object"}, seconds), lambda _: Attributes(a=HStr("x")))
    for _ in range(2):
        envelope = tool({})
        assert envelope.get("output") == {"a": "x"}, envelope


def test_a_cycle_in_a_subclass_is_an_invalid_result_at_once() -> None:
    """Copying a cycle stops at the depth limit (a cycle of two branches per level would otherwise
    take 2**256 steps)."""
    loop = HDict()
    dict.__setitem__(loop, "a", loop)
    dict.__setitem__(loop, "b", loop)
    tool = guard(contract({"type": "object"}, None), lambda _: {"x": loop})
    started = time.monotonic()
    envelope = tool({})
    assert envelope["error"]["code"] == "INTERNAL"
    assert time.monotonic() - started < 30


def _blocking_result(_: Any) -> Any:
    ARMED.clear()
    value = {"s": BStr("text"), "n": [BInt(2), BFloat(0.25)], "k": {BStr("key"): BStr("v")}}
    ARMED.set()
    return value


def _within(seconds: float, work: Any) -> Any:
    """``work()`` on a thread; fails (instead of hanging the suite) if it has not ended by then."""
    done: list[Any] = []
    thread = threading.Thread(target=lambda: done.append(work()), daemon=True)
    thread.start()
    thread.join(seconds)
    assert done, f"still running after {seconds}s: tool code ran after the guard returned ({RAN})"
    return done[0]


@pytest.mark.parametrize("seconds", [None, 5.0])
def test_a_hanging_repr_cannot_stall_the_caller_after_the_call(seconds: float | None) -> None:
    RELEASE.clear()
    tool = guard(contract({"type": "object"}, seconds), _blocking_result)
    try:
        async def main() -> str:
            envelope = await tool.acall({})
            return f"{envelope!r} {json.dumps(envelope)}"

        text = _within(20, lambda: asyncio.run(main()))
        assert "'text'" in text and RAN == []
        text = _within(20, lambda: repr(tool({})))
        assert "'key'" in text and RAN == []
    finally:
        RELEASE.set()
        ARMED.clear()


def test_over_mcp_the_client_gets_the_json_value_and_the_server_does_not_stall() -> None:
    RELEASE.clear()
    server = build_server([guard(contract({"type": "object"}, 5.0), _blocking_result)], name="exact")

    async def main() -> Any:
        async with connected(server) as session:
            return await session.call_tool("disguised", {})

    try:
        result = _within(30, lambda: anyio.run(main))
    finally:
        RELEASE.set()
        ARMED.clear()
    assert result.is_error is False
    assert result.structured_content == {"s": "text", "n": [2, 0.25], "k": {"key": "v"}}
    assert json.loads(result.content[0].text)["output"] == result.structured_content
    assert RAN == []


# -- error envelopes --------------------------------------------------------------------------------
class EqualsAnything(str):
    """A code or action that says it equals any text, with the hash of the one looked up."""

    posing_as = "NOT_FOUND"

    def __eq__(self, other: object) -> bool:
        return True

    def __hash__(self) -> int:
        return hash(self.posing_as)


class ActionEqualsAnything(EqualsAnything):
    posing_as = "retry_later"


def _raising(err: Any) -> Any:
    def tool(_: Any) -> Any:
        ARMED.clear()
        raised = err()
        ARMED.set()
        raise raised
    return tool


ERRORS = {
    # retryable: a retry_after comes back only beside an invitation to retry
    "texts": lambda: ToolError(HStr("not there"), code=HStr("NOT_FOUND"), field=HStr("x"), retry_after=HInt(5),
                               action=HStr("retry_later"), retryable=True),
    "partial results": lambda: ToolError("partly", code="UNAVAILABLE",
                                         partial_results=HDict(a=HList([HStr("p"), HFloat(1.5), HTuple([HInt(1)])]))),
    "upstream": lambda: ToolError("upstream failed", code="UNAVAILABLE", upstream=HStr("quoted")),
    "upstream mapping": lambda: ToolError("upstream failed", code="UNAVAILABLE",
                                          upstream=HDict(detail=HStr("quoted"))),
}


@pytest.mark.parametrize("seconds", [None, 5.0])
@pytest.mark.parametrize("name", sorted(ERRORS))
def test_what_the_tool_put_in_an_error_envelope_is_exact_json(name: str, seconds: float | None) -> None:
    tool = guard(contract({"type": "object"}, seconds), _raising(ERRORS[name]))
    try:
        for how in ("call", "acall"):
            RAN.clear()
            envelope = called(tool, how)
            assert envelope["status"] == "error", envelope
            assert exact_types_only(envelope), envelope
            read_by_the_caller(envelope)
            assert RAN == []
    finally:
        ARMED.clear()


def test_an_error_reads_the_texts_the_tool_holds_not_what_their_methods_say() -> None:
    envelope = guard(contract({"type": "object"}, None), _raising(ERRORS["texts"]))({})
    ARMED.clear()
    error = envelope["error"]
    assert (error["code"], error["message"], error["field"], error["retry_after"], error["action"], error["retryable"]) == (
        "NOT_FOUND", "not there", "/x", 5.0, "retry_later", True)
    envelope = guard(contract({"type": "object"}, None), _raising(ERRORS["partial results"]))({})
    ARMED.clear()
    assert envelope["error"]["partial_results"] == {"a": ["p", 1.5, [1]]}
    envelope = guard(contract({"type": "object"}, None), _raising(ERRORS["upstream"]))({})
    ARMED.clear()
    assert envelope["error"]["upstream"]["text"] == "quoted"


@pytest.mark.parametrize("field", ["code", "action"])
def test_a_code_or_action_that_equals_anything_is_not_taken_at_its_word(field: str) -> None:
    """The closed set of codes and actions is judged on the text the tool's object holds."""
    tool = guard(contract({"type": "object"}, None), _raising(
        lambda: ToolError("m", code=EqualsAnything("pwned")) if field == "code"
        else ToolError("m", code="UNAVAILABLE", action=ActionEqualsAnything("pwned"))))
    error = tool({})["error"]
    assert error["code"] in ("INTERNAL", "UNAVAILABLE") and error["action"] != "pwned"
    assert type(error["code"]) is str and type(error["action"]) is str
