"""``jsonvalue.plain_json`` and its C twin (``contractgen/runtime/_plain.c``, built by hatch_build.py).

The guard reads every result for exact JSON types before it answers (nothing of the tool's own
classes may leave it), and on a happy call that reading was the largest cost beyond the validators.
The C twin must give the pure-Python answer on every value, without running any of the value's
code, and the runtime must work the same where it could not be compiled.
"""

from __future__ import annotations

import enum
import os
import shutil
import subprocess
import sys
import sysconfig
from collections import OrderedDict, UserDict
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from contractgen.runtime import jsonvalue
from contractgen.runtime.jsonvalue import MAX_DEPTH, _plain_json_python

ROOT = Path(__file__).resolve().parents[1]
C_PLAIN = jsonvalue._plain_json_c


class Text(str):
    pass


class Number(int):
    pass


class Real(float):
    pass


class Mapping(dict):  # type: ignore[type-arg]
    pass


class Items(list):  # type: ignore[type-arg]
    pass


class Colour(enum.Enum):
    RED = "red"


class Level(enum.IntEnum):
    LOW = 1


class Loud(str):
    """A str subclass whose comparisons and conversions are the tool's code, and fail (its hash is
    str's, so it can be put in a dict at all)."""

    def __eq__(self, other: object) -> bool:
        raise AssertionError("the tool's __eq__ ran")

    __hash__ = str.__hash__

    def __str__(self) -> str:
        raise AssertionError("the tool's __str__ ran")


class LoudDict(dict):  # type: ignore[type-arg]
    def items(self) -> Any:
        raise AssertionError("the tool's items ran")

    def __iter__(self) -> Any:
        raise AssertionError("the tool's __iter__ ran")

    def __len__(self) -> int:
        raise AssertionError("the tool's __len__ ran")


ODD_SCALARS = st.sampled_from([Text("x"), Number(3), Real(1.5), Colour.RED, Level.LOW, b"x", 1j, (1,), (),
                               frozenset(), set(), object(), ...])
EXACT_SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=4)


def _containers(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    keys = st.text(max_size=3) | st.sampled_from([Text("k"), 1, None, (1,)])
    return (st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner, max_size=4)
            | st.dictionaries(keys, inner, max_size=3)
            | st.lists(inner, max_size=3).map(Items) | st.lists(inner, max_size=3).map(tuple)
            | st.dictionaries(st.text(max_size=3), inner, max_size=3).map(Mapping)
            | st.dictionaries(st.text(max_size=3), inner, max_size=3).map(OrderedDict)
            | st.dictionaries(st.text(max_size=3), inner, max_size=3).map(LoudDict))


VALUES = st.recursive(EXACT_SCALARS | ODD_SCALARS, _containers, max_leaves=12)
EXACT_VALUES = st.recursive(EXACT_SCALARS, lambda inner: st.lists(inner, max_size=4)
                            | st.dictionaries(st.text(max_size=3), inner, max_size=4), max_leaves=12)


def _nested(depth: int, innermost: Any, kinds: str = "ld") -> Any:
    value = innermost
    for level in range(depth):
        value = [value] if kinds[level % len(kinds)] == "l" else {"k": value}
    return value


needs_c = pytest.mark.skipif(C_PLAIN is None, reason="the C twin was not compiled in this install")


@needs_c
@settings(max_examples=400, deadline=None)
@given(VALUES, st.integers(0, 3))
@example([Text("x")], 0)
@example({"a": [1, {"b": Colour.RED}]}, 0)
@example(UserDict(), 0)
def test_the_c_twin_answers_as_the_python_one(value: Any, depth: int) -> None:
    assert C_PLAIN is not None
    assert C_PLAIN(value, depth) is _plain_json_python(value, depth)
    assert C_PLAIN(value) is _plain_json_python(value)


@needs_c
@settings(max_examples=200, deadline=None)
@given(EXACT_VALUES)
def test_exact_json_is_plain_in_both(value: Any) -> None:
    assert C_PLAIN is not None
    assert C_PLAIN(value) and _plain_json_python(value)


@needs_c
@pytest.mark.parametrize("depth", [MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1])
@pytest.mark.parametrize("kinds", ["l", "d", "ld"])
def test_the_depth_bound_is_the_same(depth: int, kinds: str) -> None:
    assert C_PLAIN is not None
    for innermost in (1, [], {}):
        value = _nested(depth, innermost, kinds)
        assert C_PLAIN(value) is _plain_json_python(value), (depth, kinds, innermost)


@needs_c
def test_cycles_and_the_tools_own_code_are_refused_without_running_it() -> None:
    assert C_PLAIN is not None
    loop: list[Any] = []
    loop.append(loop)
    cyclic: dict[str, Any] = {}
    cyclic["self"] = cyclic
    assert not C_PLAIN(loop) and not C_PLAIN(cyclic)
    for value in ({"a": Loud("x")}, {Loud("k"): 1}, [LoudDict(a=1)], LoudDict(a=1)):
        assert not C_PLAIN(value)  # raised AssertionError if any of the tool's methods ran


def test_the_runtime_uses_the_c_twin_where_it_could_be_compiled() -> None:
    """A build hook that quietly stopped compiling would leave every install on the slower path."""
    compiler = (sysconfig.get_config_var("CC") or "").split()
    headers = Path(sysconfig.get_paths()["include"]) / "Python.h"
    if not compiler or shutil.which(compiler[0]) is None or not headers.is_file() \
            or os.environ.get("CONTRACTGEN_PURE_PYTHON"):
        pytest.skip("no C compiler or Python headers here: the pure-Python twin is the one to use")
    assert C_PLAIN is not None, "hatch_build.py did not compile contractgen/runtime/_plain.c"
    assert jsonvalue.plain_json is C_PLAIN


PURE = """
import sys
sys.modules["contractgen.runtime._plain"] = None  # as where no compiler was at install time
from contractgen.runtime import jsonvalue, Contract, guard
assert jsonvalue.plain_json is jsonvalue._plain_json_python
class Text(str):
    pass
contract = Contract(name="t", version="1.0.0", summary="s", description="d",
                    input_schema={"type": "object", "properties": {"q": {"type": "string"}}},
                    output_schema={"type": "object", "properties": {"hits": {"type": "array"}}})
plain = guard(contract, lambda args: {"hits": ["a", 1]})
odd = guard(contract, lambda args: {"hits": [Text("a")]})
assert plain({"q": "x"}) == {"status": "ok", "tool": "t", "version": "1.0.0", "output": {"hits": ["a", 1]},
                             "empty": False}
envelope = odd({"q": "x"})
assert envelope["status"] == "ok" and type(envelope["output"]["hits"][0]) is str, envelope
print("pure ok")
"""


def test_the_pure_python_runtime_gives_the_same_envelopes() -> None:
    run = subprocess.run([sys.executable, "-c", PURE], capture_output=True, text=True, cwd=ROOT, check=False)
    assert run.returncode == 0 and "pure ok" in run.stdout, run.stderr


C_NAMES = jsonvalue._names_within_c
NAME_SETS = st.frozensets(st.text(max_size=3), max_size=4)


@pytest.mark.skipif(C_NAMES is None, reason="the C twin was not compiled in this install")
@settings(max_examples=400, deadline=None)
@given(VALUES, NAME_SETS, st.integers(0, 20))
@example({"a": [1, {"b": 2}]}, frozenset({"a", "b"}), 20)
@example({"a": [1, {"b": 2}]}, frozenset({"a"}), 20)
@example({"a": [1, 2, 3]}, frozenset({"a"}), 3)
@example({Text("a"): 1}, frozenset({"a"}), 20)
def test_names_within_answers_in_c_as_in_python(value: Any, names: frozenset[str], budget: int) -> None:
    """The output scrub's question about a call's member names (``secret_positions``) gets one answer."""
    assert C_NAMES is not None
    assert C_NAMES(value, names, budget) is jsonvalue._names_within_python(value, names, budget)


@pytest.mark.parametrize("names_within", [jsonvalue._names_within_python,
                                          *([C_NAMES] if C_NAMES is not None else [])])
def test_names_within_reads_every_depth_and_nothing_of_the_callers_code(names_within: Any) -> None:
    names = frozenset({"a", "b"})
    assert names_within({"a": [{"b": None}, 1.5], "b": {"a": "x"}}, names, 100)
    assert not names_within({"a": [{"password": "x"}]}, names, 100)  # a name deep inside counts
    assert not names_within({"a": [1, 2, 3]}, names, 3)  # over the budget: not known
    assert names_within({"a": [1, 2]}, names, 3)
    assert not names_within({"a": (1,)}, names, 100)  # not exact JSON
    assert not names_within(_nested(MAX_DEPTH + 1, {}), frozenset({"k"}), 10**6)
    assert names_within(_nested(MAX_DEPTH - 1, 1, "d"), frozenset({"k"}), 10**6)
    assert not names_within({Loud("a"): 1}, names, 100)  # a str subclass key: refused, never compared
    assert not names_within(LoudDict(a=1), names, 100)
