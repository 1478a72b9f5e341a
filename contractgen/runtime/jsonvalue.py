"""JSON values: the MISSING marker, plain copies of read-only values, where a value stops being JSON
(types, keys, non-finite numbers, nesting and cycles)."""

from __future__ import annotations

import collections
import itertools
import math
import re
import sys
import types
from collections.abc import Callable, Collection, Mapping
from typing import Any, NamedTuple

MISSING: Any = object()
#: Integers with more digits are refused wherever a schema judges numbers: CPython turns none of
#: them into text (its default ``int_max_str_digits``) and jsonschema-rs reads one inside a value as
#: 0 (so ``10**5000`` passed ``maximum: 10``).
INT_DIGITS_CAP = 4300
#: The integers this runtime reads lie strictly between INT_FLOOR and INT_CEILING. Both bounds are
#: made once: negating a 4,300-digit integer on every check would cost more than the check.
INT_CEILING: int = 10 ** INT_DIGITS_CAP
INT_FLOOR = -INT_CEILING


def thaw(value: Any, depth: int = 0) -> Any:
    """Plain dicts, lists, strings and numbers for a JSON value held in read-only mappings, tuples
    or subclasses of dict, list, str, int and float (which the fast validator reads as their base
    type). A subclass is read through its base type (``dict.items``, ``str.__str__``...), so none
    of its own methods run. Containers nested past MAX_DEPTH are left as they are (``too_deep``
    reports them; recursing would overflow)."""
    return _thawed(value, depth, strict=False)


class TooDeep(ValueError):
    """``exact_json`` met a container nested past MAX_DEPTH (or a cycle) at ``path``."""

    def __init__(self) -> None:
        super().__init__(f"nesting deeper than {MAX_DEPTH} levels (or a cycle)")
        self.path: tuple[Any, ...] = ()


def exact_json(value: Any) -> Any:
    """``value`` made only of dict, list, str, int, float, bool and None themselves, equal to it as
    JSON: ``thaw`` for what leaves the guard, so that printing, comparing or encoding it later runs
    none of the code of the classes it came in (a ``__repr__`` that hangs, a ``__str__`` that lies,
    an ``items`` that raises). ``value`` itself when it is ``plain_json`` already. A container
    nested past MAX_DEPTH raises TooDeep (walking a cycle on would take exponential time); a value
    of another type (a datetime, a set) is left as it is, for the caller to convert or refuse."""
    return value if plain_json(value) else _thawed(value, 0, strict=True)


def _thawed(value: Any, depth: int, strict: bool) -> Any:
    kind = type(value)
    if kind in JSON_SCALARS:
        return value
    if issubclass(kind, str):
        return str.__str__(value)  # the characters it holds, whatever its own __str__ says
    if issubclass(kind, int):  # bool is exact (it cannot be subclassed): returned above
        return int.__int__(value)  # its value, whatever its __index__ or __int__ says
    if issubclass(kind, float):
        return float.__float__(value)
    if issubclass(kind, dict):
        if kind is dict and _STR_ONLY.issuperset(map(type, value)) \
                and JSON_SCALARS.issuperset(map(type, value.values())):
            return value  # a flat plain dict (the usual arguments): nothing to copy
        pairs: Any = dict.items(value)  # what it holds, whatever its own items() says
    elif issubclass(kind, (list, tuple)):
        pairs = None
    elif asks_its_author(kind):
        return stand_in(value)  # isinstance below would run its own code, and every check after
    elif isinstance(value, Mapping):
        pairs = value.items()  # a read-only mapping (arguments, schemas): only its own code reads it
    else:
        return value  # not JSON: the caller converts or refuses it
    if depth > MAX_DEPTH:
        if strict:
            raise TooDeep()
        return value
    if pairs is None:
        items = []
        for index, member in enumerate(list.__iter__(value) if issubclass(kind, list) else tuple.__iter__(value)):
            items.append(_thawed_member(member, index, depth, strict))
        return items
    copied = {}
    for key, member in pairs:
        key = _thawed(key, depth + 1, strict)
        copied[key] = _thawed_member(member, key, depth, strict)
    return copied


def _thawed_member(member: Any, key: Any, depth: int, strict: bool) -> Any:
    """``_thawed`` for a member of a container at ``depth``; a TooDeep below gains ``key`` in front
    of its path."""
    try:
        return _thawed(member, depth + 1, strict)
    except TooDeep as deep:
        deep.path = (key, *deep.path)
        raise


#: pydantic reads a float into an ``int`` field only below this magnitude (a 64-bit integer)
_PYDANTIC_INT_FLOATS = 2.0**63


def big_integral_floats_as_ints(value: Any, depth: int = 0) -> Any:
    """``value`` with every float that is a whole number too big for pydantic's ``int`` (1e20: JSON
    Schema calls it an integer) written as that int, exactly; ``value`` itself when it holds none.
    Containers past MAX_DEPTH are left as they are (the guard refuses them before)."""
    kind = type(value)
    if kind is float:
        return int(value) if abs(value) >= _PYDANTIC_INT_FLOATS and value.is_integer() else value
    if depth > MAX_DEPTH:
        return value
    if kind is dict:
        changed = {k: big_integral_floats_as_ints(v, depth + 1) for k, v in value.items()}
        return changed if any(changed[k] is not v for k, v in value.items()) else value
    if kind is list:
        items = [big_integral_floats_as_ints(v, depth + 1) for v in value]
        return items if any(a is not b for a, b in zip(items, value)) else value
    return value


def non_json_path(value: Any, path: tuple[Any, ...] = ()) -> tuple[tuple[Any, ...], str] | None:
    """Where a value stops being JSON (and which Python type is there), or None; nesting past
    MAX_DEPTH is not looked into (``too_deep`` reports it)."""
    if value is None or isinstance(value, (str, bool, int, float)) or len(path) > MAX_DEPTH:
        return None
    if isinstance(value, dict):
        for k, v in value.items():
            if not isinstance(k, str):
                return path, "a non-string key"
            found = non_json_path(v, path + (k,))
            if found is not None:
                return found
        return None
    if isinstance(value, list):
        for i, v in enumerate(value):
            found = non_json_path(v, path + (i,))
            if found is not None:
                return found
        return None
    return path, f"a {type(value).__name__}"


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return "non-JSON value"


#: Containers nested deeper than this are refused before any validator walks them (a validator
#: written in Rust or C overflows its stack somewhere past ten thousand levels).
MAX_DEPTH = 256
_CONTAINERS = frozenset({dict, list, tuple})
_PLAIN_SCALARS = frozenset({str, int, bool, type(None)})
_INTEGERS = frozenset({int, bool})  # compare with each other (min and max) in C
#: the exact types of JSON scalars as Python reads them (no subclass)
JSON_SCALARS = _PLAIN_SCALARS | {float}


def too_deep(value: Any, limit: int = MAX_DEPTH) -> tuple[Any, ...] | None:
    """The path to the first container nested more than ``limit`` levels deep (a cycle is
    infinitely deep), or None. Flat values cost one pass over their direct members, in C."""
    if type(value) is dict:
        if _CONTAINERS.isdisjoint(map(type, value.values())):
            return None
    elif type(value) is list:
        if _CONTAINERS.isdisjoint(map(type, value)):
            return None
    elif not isinstance(value, (Mapping, list, tuple)):
        return None
    levels = plain_levels(value, limit)
    if levels is not None and len(levels) <= limit + 1:
        return None
    stack: list[tuple[Any, tuple[Any, ...]]] = [(value, ())]  # too deep, or not plain: find where
    while stack:
        node, path = stack.pop()
        if len(path) > limit:
            return path[:limit + 1]
        if isinstance(node, Mapping):
            if not _PLAIN_SCALARS.issuperset(map(type, node.values())):
                stack.extend((v, path + (k,)) for k, v in node.items() if isinstance(v, (Mapping, list, tuple)))
        elif isinstance(node, (list, tuple)) and not _PLAIN_SCALARS.issuperset(map(type, node)):
            stack.extend((v, path + (i,)) for i, v in enumerate(node) if isinstance(v, (Mapping, list, tuple)))
    return None


class Level(NamedTuple):
    """The containers at one depth of a plain value, and their members (with the members' types)."""

    dicts: list[dict[Any, Any]]
    lists: list[list[Any]]
    members: list[Any]
    kinds: set[type]


def plain_levels(value: Any, limit: int = MAX_DEPTH) -> list[Level] | None:
    """The containers of ``value`` level by level, down to ``limit + 2`` levels, when it and every
    one inside is an exact dict or list (None when another kind of value is met). Each level is read in C:
    walking container by container took 1 s over 300,000 small objects (4 MB), for every call of a
    recursive schema and every bad call."""
    if type(value) is not dict and type(value) is not list:
        return None
    levels: list[Level] = []
    dicts: list[Any] = [value] if type(value) is dict else []
    lists: list[Any] = [value] if type(value) is list else []
    while (dicts or lists) and len(levels) <= limit + 1:
        members = list(itertools.chain(itertools.chain.from_iterable(map(dict.values, dicts)),
                                       itertools.chain.from_iterable(lists)))
        kinds = set(map(type, members))
        if not _PLAIN_KINDS.issuperset(kinds):
            return None
        levels.append(Level(dicts, lists, members, kinds))
        dicts = (members if kinds == _DICT_ONLY else _of_kinds(members, _DICT_ONLY)) if dict in kinds else []
        lists = (members if kinds == _LIST_ONLY else _of_kinds(members, _LIST_ONLY)) if list in kinds else []
    return levels


_DICT_ONLY = frozenset({dict})
_LIST_ONLY = frozenset({list})
_INT_ONLY = frozenset({int})
_PLAIN_KINDS = JSON_SCALARS | _DICT_ONLY | _LIST_ONLY


def _of_kinds(members: list[Any], kinds: frozenset[type]) -> list[Any]:
    """The members whose exact type is one of ``kinds``, picked in C."""
    return list(itertools.compress(members, map(kinds.__contains__, map(type, members))))


def _all_readable(integers: Collection[int]) -> bool:
    """Whether none of (a non-empty collection of) ``integers`` is too long to read, in C."""
    return INT_FLOOR < min(integers) and max(integers) < INT_CEILING


def _plain_by_levels(value: Any, depth: int) -> bool:
    """``plain_json`` of a big container at ``depth``, judged level by level in C (member by member,
    300,000 small objects took 0.2 s)."""
    levels = plain_levels(value, MAX_DEPTH - depth)
    return levels is not None and len(levels) <= MAX_DEPTH - depth and all(
        _STR_ONLY.issuperset(map(type, itertools.chain.from_iterable(level.dicts))) for level in levels)


def oversized_int(value: Any) -> tuple[Any, ...] | None:
    """The path to the first integer of more than ``INT_DIGITS_CAP`` digits in ``value``, or None.
    A plain value is searched level by level in C (``plain_levels``), and walked only to name the
    place of one it holds."""
    if type(value) is int:
        return None if INT_FLOOR < value < INT_CEILING else ()
    levels = plain_levels(value)
    if levels is not None and len(levels) <= MAX_DEPTH + 1:
        for level in levels:
            numbers = (level.members if level.kinds == _INT_ONLY else _of_kinds(level.members, _INT_ONLY)) \
                if int in level.kinds else []
            if numbers and not _all_readable(numbers):
                break
        else:
            return None
    stack: list[tuple[Any, tuple[Any, ...]]] = [(value, ())]
    while stack:
        node, path = stack.pop()
        if isinstance(node, Mapping):
            members: Any = node.items()
        elif isinstance(node, (list, tuple)):
            members = enumerate(node)
        else:
            if isinstance(node, int) and not INT_FLOOR < node < INT_CEILING:
                return path
            continue
        if len(path) > MAX_DEPTH:
            continue  # too_deep reports it
        if type(node) is dict or type(node) is list:
            # in bulk, in C, where the members are plain scalars (1,000 objects of 1,000 integers
            # took 0.4 s member by member): the loop below then only runs to name the place
            values = node.values() if type(node) is dict else node
            kinds = set(map(type, values))
            if kinds <= JSON_SCALARS and (int not in kinds or kinds <= _INTEGERS
                                          and _all_readable(values)):
                continue
        for key, member in members:
            kind = type(member)
            if kind is int:
                if not INT_FLOOR < member < INT_CEILING:
                    return path + (key,)
            elif kind is dict or kind is list:  # exact types first: isinstance on an ABC is slow
                stack.append((member, path + (key,)))
            elif kind in JSON_SCALARS:
                continue
            elif isinstance(member, int) and not isinstance(member, bool):
                if not INT_FLOOR < member < INT_CEILING:
                    return path + (key,)
            elif isinstance(member, (Mapping, list, tuple)):
                stack.append((member, path + (key,)))
    return None


def oversized_int_in(value: Any, names: tuple[str, ...] | None) -> tuple[Any, ...] | None:
    """``oversized_int`` among the members ``names`` of a dict (the top-level members whose schemas
    judge numbers, from ``schema_walk.number_judging_names``): ``()`` looks nowhere, None (or names
    with a value that is not a dict) everywhere."""
    if names == ():
        return None
    if names is None or type(value) is not dict:
        return oversized_int(value)
    for name in names:
        member = value.get(name)
        if type(member) is int:
            if not INT_FLOOR < member < INT_CEILING:
                return (name,)
        elif member is not None and type(member) is not str:
            found = oversized_int(member)
            if found is not None:
                return (name, *found)
    return None


#: A UTF-16 surrogate code point on its own: Python strings may hold one (``json.loads('"\\ud800"')``,
#: ``os.fsdecode`` of a file name that is not UTF-8), UTF-8 cannot encode it, so JSON cannot carry it.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _bad_text(text: str) -> bool:
    return not text.isascii() and _LONE_SURROGATE.search(text) is not None  # isascii() reads a flag


def lone_surrogate(value: Any) -> tuple[Any, ...] | None:
    """The path to the first string (a member, or the key of one) holding a lone surrogate code
    point, or None. ASCII strings cost a flag read each; nesting past MAX_DEPTH is not looked at
    (``json_problem`` reports it)."""
    if isinstance(value, str):
        return () if _bad_text(value) else None
    stack: list[tuple[Any, tuple[Any, ...]]] = [(value, ())]
    while stack:
        node, path = stack.pop()
        if isinstance(node, Mapping):
            for key, member in node.items():
                if isinstance(key, str) and _bad_text(key):
                    return path
                if isinstance(member, str):
                    if _bad_text(member):
                        return path + (key,)
                elif isinstance(member, (Mapping, list, tuple)) and len(path) < MAX_DEPTH:
                    stack.append((member, path + (key,)))
        elif isinstance(node, (list, tuple)):
            for index, member in enumerate(node):
                if isinstance(member, str):
                    if _bad_text(member):
                        return path + (index,)
                elif isinstance(member, (Mapping, list, tuple)) and len(path) < MAX_DEPTH:
                    stack.append((member, path + (index,)))
    return None


_to_json: Any = None  # pydantic_core.to_json, bound on first use (importing the runtime stays light)


def encodes(value: Any) -> bool:
    """Whether a plain JSON value encodes as UTF-8 JSON: pydantic's Rust encoder refuses a lone
    surrogate anywhere, at a fraction of the cost of walking the value in Python."""
    global _to_json
    if _to_json is None:
        from pydantic_core import to_json

        _to_json = to_json
    try:
        _to_json(value)
    except ValueError:
        return False
    return True


def sendable_text(value: Any) -> Any:
    """``value`` with every lone surrogate in its strings (keys too) replaced by U+FFFD, so it can be
    encoded as UTF-8 JSON; the value itself when there is none (the common case costs one walk)."""
    if lone_surrogate(value) is None:
        return value
    return _replace_surrogates(value, 0)


def _replace_surrogates(value: Any, depth: int) -> Any:
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if depth > MAX_DEPTH:
        return value
    if isinstance(value, Mapping):
        return {_replace_surrogates(k, depth + 1) if isinstance(k, str) else k: _replace_surrogates(v, depth + 1)
                for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_replace_surrogates(v, depth + 1) for v in value]
    return value


def _plain_json_python(value: Any, depth: int = 0) -> bool:
    """Whether ``value`` is made only of dict, list, str, int, float, bool and None themselves (no
    subclass, no other type), nested at most MAX_DEPTH levels; False too when reading it raises.
    Small containers are read member by member: for the usual results (a few members, a list or
    two) that costs a third of judging each container's types in bulk; big ones in bulk, in C.
    ``plain_json`` is its C twin (``_plain.c``) where that was compiled at install time."""
    try:
        kind = type(value)
        if kind is dict:
            if depth >= MAX_DEPTH:
                return False
            if len(value) > MEMBER_BY_MEMBER:
                return _plain_by_levels(value, depth)
            for key, member in value.items():
                if type(key) is not str or (
                        type(member) not in JSON_SCALARS and not _plain_json_python(member, depth + 1)):
                    return False
            return True
        if kind is list:
            if depth >= MAX_DEPTH:
                return False
            if len(value) > MEMBER_BY_MEMBER:
                return _plain_by_levels(value, depth)
            for member in value:
                if type(member) not in JSON_SCALARS and not _plain_json_python(member, depth + 1):
                    return False
            return True
        return kind in JSON_SCALARS
    except Exception:  # noqa: BLE001 - a value that cannot be read (or a stack too deep to) is not plain
        return False


_twin: Any
try:  # the C twin, compiled at install time where a compiler was at hand (hatch_build.py)
    from . import _plain as _twin
except ImportError:  # the pure-Python runtime: the same answers (tests/test_runtime_plain.py)
    _twin = None
_plain_json_c: Callable[..., bool] | None = \
    _twin.plain_json if _twin is not None and _twin.MAX_DEPTH == MAX_DEPTH else None
#: Whether ``value`` is made only of dict, list, str, int, float, bool and None themselves (no
#: subclass, no other type), nested at most MAX_DEPTH levels: ``plain_json(value, depth=0)``. In C
#: it runs none of the value's code, and costs a guarded happy call a tenth of what the Python does.
plain_json: Callable[..., bool] = _plain_json_c or _plain_json_python


#: Members (counted per path: a shared member counts each time it is reached) that ``clean_json``
#: reads before it refuses a value: what a guarded call reads is bounded by this, not by what is in
#: memory (``[v, v]`` nested 28 times is 28 lists and 2**28 paths).
CLEAN_BUDGET = 1_000_000
_INT_BITS = 14284  # 10**INT_DIGITS_CAP > 2**14284: at most this many bits, at most INT_DIGITS_CAP digits


def _clean_python(value: Any, depth: int, budget: list[int], copy: bool) -> Any:
    """``clean_json``'s reading in Python: the value (or its copy), or raises ``_NotClean``."""
    kind = type(value)
    if kind is str:
        if not value.isascii() and _LONE_SURROGATE.search(value):
            raise _NotClean
        return value
    if kind is int:
        if value.bit_length() > _INT_BITS:
            raise _NotClean
        return value
    if kind is float:
        if not math.isfinite(value):
            raise _NotClean
        return value
    if kind is bool or value is None:
        return value
    if depth >= MAX_DEPTH:
        raise _NotClean
    if kind is dict:
        members = value.copy()  # one step in C: a thread that changes ``value`` meanwhile cannot tear it
        budget[0] -= len(members)
        if budget[0] < 0:
            raise _NotClean
        read = {}
        for key, member in members.items():
            if type(key) is not str or (not key.isascii() and _LONE_SURROGATE.search(key)):
                raise _NotClean
            read[key] = _clean_python(member, depth + 1, budget, copy)
        return read if copy else value
    if kind is list:
        items = value.copy()
        budget[0] -= len(items)
        if budget[0] < 0:
            raise _NotClean
        copied = [_clean_python(member, depth + 1, budget, copy) for member in items]
        return copied if copy else value
    raise _NotClean


def plain_copy(value: Any) -> Any:
    """A copy of a ``plain_json`` value: new dicts and lists at every level, the same scalars."""
    if type(value) is dict:
        return {key: plain_copy(member) for key, member in value.copy().items()}
    if type(value) is list:
        return [plain_copy(member) for member in value.copy()]
    return value


class _NotClean(Exception):
    pass


def _clean_json_python(value: Any, budget: int, copy: bool, refused: Any) -> Any:
    try:
        return _clean_python(value, 0, [budget], copy)
    except (_NotClean, RecursionError):
        return refused


_clean_json_c: Callable[..., Any] | None = getattr(_twin, "clean_json", None) if _plain_json_c is not None else None
#: ``clean_json(value, budget, copy, refused)``: ``value`` (or, with ``copy``, a copy of it made of
#: new dicts and lists) when it is plain JSON that every check reads right: exact types, string
#: keys, finite floats, integers of at most INT_DIGITS_CAP digits, no lone surrogate, at most
#: MAX_DEPTH levels and ``budget`` members counted per path; ``refused`` otherwise. What the guard
#: reads first, of arguments (copied: checked and used as one private value) and of results. In C
#: where it was compiled (``_plain.c``); the Python twin answers the same (tests/test_runtime_plain.py).
clean_json: Callable[..., Any] = _clean_json_c or _clean_json_python


#: containers with more members than this are judged in bulk by ``plain_json``
MEMBER_BY_MEMBER = 8


class JsonProblem(NamedTuple):
    """Where a value stops being strict JSON; ``kind`` is key, number, depth or type."""

    path: tuple[Any, ...]
    kind: str
    text: str


def json_problem(value: Any, limit: int = MAX_DEPTH) -> JsonProblem | None:
    """Where a value stops being strict JSON: a non-string key, a NaN or infinite number, nesting
    past ``limit`` (cycles included), a string with a lone surrogate (kind ``text``) or a non-JSON
    type (kind ``type``: a tuple, a datetime..., which a JSON conversion may fix); None if it is
    plain JSON."""
    problem = _structure_problem(value, limit)
    if problem is not None and problem.kind != "type":
        return problem
    if problem is None and encodes(value):  # plain JSON: the Rust encoder looks at every string
        return None
    text = lone_surrogate(value)
    if text is not None:
        return JsonProblem(text, "text", "a string with a lone surrogate code point (not valid Unicode)")
    return problem


def _structure_problem(value: Any, limit: int) -> JsonProblem | None:
    stack: list[tuple[Any, tuple[Any, ...]]] = [(value, ())]
    while stack:
        node, path = stack.pop()
        kind = type(node)
        if kind in _PLAIN_SCALARS:
            continue
        if isinstance(node, float):
            if not math.isfinite(node):
                return JsonProblem(path, "number", f"a non-finite number ({node})")
            continue
        if len(path) >= limit and kind in _CONTAINERS:
            return JsonProblem(path, "depth", f"nesting deeper than {limit} levels (or a cycle)")
        if kind is dict:
            if not _STR_ONLY.issuperset(map(type, node)):
                key = next((k for k in node if not isinstance(k, str)), None)
                if key is not None:
                    return JsonProblem(path, "key", f"a non-string key ({type(key).__name__})")
            if not _PLAIN_SCALARS.issuperset(map(type, node.values())):
                stack.extend((v, path + (k,)) for k, v in node.items() if type(v) not in _PLAIN_SCALARS)
        elif kind is list:
            if not _PLAIN_SCALARS.issuperset(map(type, node)):
                stack.extend((v, path + (i,)) for i, v in enumerate(node) if type(v) not in _PLAIN_SCALARS)
        elif not isinstance(node, (str, int)):  # subclasses of str and int serialise as their base
            return JsonProblem(path, "type", f"a {kind.__name__}")
    return None


_STR_ONLY = frozenset({str})


#: ``sys.getsizeof`` of the largest scalar that weighs 1 in ``shortened(weigh=True)``: strings of up to
#: 79 characters, integers of up to about 230 digits. Heavier ones are weighed one by one.
_LIGHT_BYTES = 128
#: Characters of a string, and bits of an integer, per unit of weight (see ``scalar_weight``).
_TEXT_PER_UNIT = 1000
_BITS_PER_UNIT = 830  # about 250 digits


def scalar_weight(member: Any) -> int:
    """What explaining a wrong scalar costs, in units of a short one (1): a validator renders the
    value into each error it makes about it, which takes time linear in a string's length and about
    quadratic in an integer's digits (jsonschema-rs: 5 us per error for 100 characters, 565 us for
    100,000; 11 us for a 20-digit integer, 200 us for 1,000 digits, 2.6 ms for 4,000). The base
    classes' methods are called, so a subclass's own ``__len__`` never runs."""
    if isinstance(member, str):
        return 1 + str.__len__(member) // _TEXT_PER_UNIT
    if isinstance(member, int):
        return 1 + (int.bit_length(member) // _BITS_PER_UNIT) ** 2
    return 1


def shortened(value: Any, limit: int, total: int | None = None,
              weigh: bool = False) -> tuple[Any, frozenset[tuple[Any, ...]]]:
    """``value`` with every array and object past ``limit`` members cut to its first ``limit`` (a
    copy only where something was cut), and the paths of what was cut. With ``total``, at most that
    many members are kept in the whole value: a per-container cap alone let nesting multiply it
    (1,000 arrays of 1,000 kept a million members). A container holding containers keeps at most
    half of its budget for its own members, and each member's nested value may use a fair share of
    the rest (what it leaves goes to the members after it), so a wrong value is still reached
    beside a big one, and deep in a big nested one. With ``weigh``, a long string or integer (a
    member, or a member's name) counts as its ``scalar_weight`` against ``total``: 1,000 integers of 4,000 digits took 2.5 s for the
    validator to list as errors (it renders every one before the first reaches us)."""
    if (type(value) is dict and len(value) <= limit and _PLAIN_SCALARS.issuperset(map(type, value.values()))
            and (not weigh or not _may_weigh_more(value, len(value)))):
        return value, frozenset()  # the usual arguments: nothing to cut
    cut: set[tuple[Any, ...]] = set()

    def walk(node: Any, path: tuple[Any, ...], budget: int) -> tuple[Any, int]:
        """(what is kept of ``node``, the budget that used); a scalar uses what it weighs beyond
        the 1 its container already counted for it."""
        if len(path) > MAX_DEPTH or not isinstance(node, (dict, list)):
            return node, (scalar_weight(node) - 1 if weigh else 0)  # past MAX_DEPTH: too_deep reports it
        size = len(node)
        count = min(size, limit, budget)
        members_of = node.values() if isinstance(node, dict) else node
        nested = not _PLAIN_SCALARS.issuperset(map(type, itertools.islice(members_of, count)))
        used = count
        if nested:  # half of the budget for what the members hold: nesting never starves the leaves
            count = used = min(count, max(1, budget // 2))
        elif weigh and count and _may_weigh_more(node, count):
            count, used = _weighed(node, count, budget)
        if count < size:
            cut.add(path)
        left = budget - used
        if isinstance(node, dict):
            members = node if count == size else dict(itertools.islice(node.items(), count))
            if not nested:
                return members, used
            copy = {}
            for i, (k, v) in enumerate(members.items()):
                if left < 0:  # heavy scalars spent it: the rest is cut
                    cut.add(path)
                    break
                copy[k], spent = walk(v, path + (k,), left // (count - i))
                left -= spent + (scalar_weight(k) - 1 if weigh else 0)  # a long name is rendered too
            same = len(copy) == size and all(copy[k] is v for k, v in node.items())
            return (node if same else copy), budget - left
        items = node if count == size else node[:count]
        if not nested:
            return items, used
        copy_items = []
        for i, v in enumerate(items):
            if left < 0:
                cut.add(path)
                break
            shown, spent = walk(v, path + (i,), left // (count - i))
            copy_items.append(shown)
            left -= spent
        same = len(copy_items) == size and all(a is b for a, b in zip(copy_items, node))
        return (node if same else copy_items), budget - left

    return walk(value, (), sys.maxsize if total is None else total)[0], frozenset(cut)


def _may_weigh_more(node: dict[Any, Any] | list[Any], count: int) -> bool:
    """Whether one of the first ``count`` members of ``node`` (exact scalars), or of an object's
    names, may weigh more than 1: one pass in C, ``sys.getsizeof`` only on exact types (a
    subclass's own ``__sizeof__`` never runs)."""
    if max(map(sys.getsizeof, itertools.islice(node.values() if isinstance(node, dict) else node, count)),
           default=0) > _LIGHT_BYTES:
        return True
    if not isinstance(node, dict):
        return False
    return not _STR_ONLY.issuperset(map(type, itertools.islice(node, count))) or max(
        map(sys.getsizeof, itertools.islice(node, count)), default=0) > _LIGHT_BYTES


def _weighed(node: dict[Any, Any] | list[Any], count: int, budget: int) -> tuple[int, int]:
    """(how many of the first ``count`` members of ``node`` (exact scalars) fit in ``budget``, at
    least one; their weight): each weighs its ``scalar_weight``, plus what its name weighs beyond 1."""
    pairs = itertools.islice(node.items(), count) if isinstance(node, dict) else zip(
        itertools.repeat(None), itertools.islice(node, count))
    kept = spent = 0
    for name, member in pairs:
        weight = scalar_weight(member) + scalar_weight(name) - 1
        if kept and spent + weight > budget:
            break
        kept += 1
        spent += weight
    return kept, spent


def larger_than(value: Any, limit: int) -> bool:
    """Whether a value has more than ``limit`` members in all (counting stops there)."""
    if type(value) is dict and _PLAIN_SCALARS.issuperset(map(type, value.values())):
        return len(value) > limit  # the common flat arguments: one pass in C
    return members_up_to(value, limit) > limit


def members_up_to(value: Any, limit: int) -> int:
    """How many members ``value``'s containers hold at any depth; counting stops once past ``limit``."""
    total = 0
    stack = [value]
    while stack:
        members = _members(stack.pop())
        if members is not None:
            total += len(members)
            if total > limit:
                return total
            if not _PLAIN_SCALARS.issuperset(map(type, members)):
                stack.extend(m for m in members if type(m) not in _PLAIN_SCALARS)
    return total


def asks_its_author(kind: type) -> bool:
    """Whether asking an instance of ``kind`` what class it is runs its author's code: a
    ``__class__`` of its own (``isinstance`` reads it whenever the type does not match, a dozen
    times per check of a result), or a ``__getattribute__`` written in Python. Read off the class
    alone: the instance is never asked."""
    try:
        mro = type.__dict__["__mro__"].__get__(kind)
        if any("__class__" in vars(cls) for cls in mro if cls is not object):
            return True
        owner = next(cls for cls in mro if "__getattribute__" in vars(cls))
        return not isinstance(vars(owner)["__getattribute__"], types.WrapperDescriptorType)
    except Exception:  # noqa: BLE001 - a class that cannot be read is not asked either
        return True


class Unreadable:
    """Stands in for a value whose class runs its author's code when asked what it is
    (``asks_its_author``): every check reads this instead, and finds a value JSON cannot carry,
    named by the class it came in."""

    __slots__ = ()


_STAND_INS: dict[type, type[Unreadable]] = {}


def stand_in(value: Any) -> Any:
    """``value``, or an ``Unreadable`` named after its class where asking it what it is runs its
    author's code (a ``__class__`` property that hangs was read 56-65 times while one result was
    settled). Its type is read once, here; the value itself never."""
    kind = type(value)
    if kind in JSON_SCALARS or kind is dict or kind is list or not asks_its_author(kind):
        return value
    made = _STAND_INS.get(kind)
    if made is None:
        if len(_STAND_INS) >= 256:
            _STAND_INS.clear()
        name = type.__dict__["__name__"].__get__(kind)
        made = _STAND_INS[kind] = type(name if isinstance(name, str) else "object", (Unreadable,), {"__slots__": ()})
    return made()


def _members(node: Any) -> Any:
    """The members of a dict, list or tuple, read through the base type (a subclass's own
    ``__len__`` or ``values`` may hang: a tool's result is sized on the event loop), or of another
    mapping through its ``values()``; None for anything else."""
    kind = type(node)
    if kind is list or kind is tuple:
        return node
    if issubclass(kind, dict):
        return dict.values(node)
    if issubclass(kind, (list, tuple)):
        return tuple(tuple.__iter__(node) if issubclass(kind, tuple) else list.__iter__(node))
    if not asks_its_author(kind) and isinstance(node, Mapping):
        return node.values()
    return None


def iterator_in(value: Any, limit: int = MAX_DEPTH) -> tuple[Any, ...] | None:
    """Where ``value`` holds an iterator (a generator, ``map``, ``itertools.count``, an open file),
    which a JSON conversion would exhaust, however long it runs; None if it holds none. Looks into
    containers and objects' attributes (models, dataclasses), each once, down to ``limit`` levels."""
    seen: set[int] = set()
    stack: list[tuple[Any, tuple[Any, ...]]] = [(value, ())]
    while stack:
        node, path = stack.pop()
        kind = type(node)
        if kind in _PLAIN_SCALARS or id(node) in seen or len(path) > limit:
            continue
        if hasattr(kind, "__next__") or hasattr(kind, "__anext__"):
            return path
        seen.add(id(node))
        if isinstance(node, Mapping):
            stack.extend((v, path + (k,)) for k, v in node.items() if type(v) not in _PLAIN_SCALARS)
        elif isinstance(node, (list, tuple, set, frozenset, collections.deque)):
            stack.extend((v, path + (i,)) for i, v in enumerate(node) if type(v) not in _PLAIN_SCALARS)
        else:
            members = getattr(node, "__dict__", None)
            if isinstance(members, dict):
                stack.extend((v, path + (k,)) for k, v in members.items() if type(v) not in _PLAIN_SCALARS)
    return None


def _names_within_python(value: Any, names: frozenset[str], budget: int) -> bool:
    todo, depths = [value], [0]
    while todo:
        current, depth = todo.pop(), depths.pop()
        kind = type(current)
        if kind in JSON_SCALARS:
            continue
        if depth >= MAX_DEPTH or kind is not dict and kind is not list:
            return False
        budget -= len(current)
        if budget < 0:
            return False
        if kind is dict:
            if any(type(name) is not str for name in current) or not names.issuperset(current):
                return False
            current = current.values()
        todo.extend(current)
        depths.extend([depth + 1] * len(current))
    return True


_names_within_c: Callable[..., bool] | None = \
    getattr(_twin, "names_within", None) if _plain_json_c is not None else None
#: ``names_within(value, names, budget)``: whether ``value`` is made of exact JSON types (str, int,
#: float, bool, None, dict and list themselves, at most MAX_DEPTH levels) and every member name in it,
#: at any depth, is in the frozenset ``names``, reading at most ``budget`` members (counted per path).
#: In C where it was compiled; the Python twin answers the same (tests/test_runtime_plain.py).
names_within: Callable[..., bool] = _names_within_c or _names_within_python
