"""Result rules (integrity and freshness): compiled once per contract, run on each accepted output.

``compile_result_rules(contract)`` is None for a contract without rules, so their tools pay nothing;
otherwise it returns a function from an output (plain JSON, already valid against the output
schema) to the rules it breaks, each named with the item that breaks it and never its value.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any

from .contract import Contract, FreshnessRule, IntegrityRule
from .pointer import cap_pointer, pointer, pointer_parts

#: a broken result names at most this many broken rule items
PROBLEM_CAP = 10

Problems = Callable[[Any], list[str]]


def hashed_bytes(value: Any) -> bytes:
    """The bytes an integrity rule hashes: a string's UTF-8, any other value's canonical JSON
    (keys sorted, no spaces, non-ASCII kept, UTF-8)."""
    if isinstance(value, str):
        return value.encode("utf-8")
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


def digest(algorithm: str, value: Any) -> str:
    """The lowercase hex digest an integrity rule expects for ``value``."""
    hex_digest: str = _hasher(algorithm)(hashed_bytes(value)).hexdigest()
    return hex_digest


def _hasher(algorithm: str) -> Callable[[bytes], Any]:
    """hashlib's own constructor for ``algorithm`` (``hashlib.new`` looks the name up on every call,
    five times the cost of hashing a short text); ValueError for an unknown algorithm."""
    if algorithm in hashlib.algorithms_guaranteed:
        return getattr(hashlib, algorithm)  # type: ignore[no-any-return]
    hashlib.new(algorithm)  # raises for a name hashlib does not know
    return lambda data: hashlib.new(algorithm, data)


def compile_result_rules(contract: Contract) -> Problems | None:
    """The problems function for ``contract``'s result rules, or None when it declares none."""
    if not contract.result_rules:
        return None
    checks = [
        _integrity(rule) if isinstance(rule, IntegrityRule) else _freshness(rule)
        for rule in contract.result_rules
    ]

    def problems(output: Any) -> list[str]:
        found: list[str] = []
        now = time.time()
        for check in checks:
            for problem in check(output, now):
                found.append(problem)
                if len(found) >= PROBLEM_CAP:
                    return found
        return found

    return problems


def _matches(document: Any, tokens: list[str]) -> list[tuple[tuple[Any, ...], Any]]:
    """(path, value) of every value ``tokens`` reach; ``*`` steps into each item of an array.
    Absent members and nulls reach nothing: ``required`` and the output schema judge those."""
    reached: list[tuple[tuple[Any, ...], Any]] = [((), document)]
    for token in tokens:  # level by level: a list per level costs less than a generator per node
        if token == "*":
            reached = [
                ((*path, index), item)
                for path, node in reached
                if isinstance(node, list)
                for index, item in enumerate(node)
            ]
        else:
            reached = [
                ((*path, token), node[token])
                for path, node in reached
                if isinstance(node, dict) and token in node
            ]
    return [(path, value) for path, value in reached if value is not None]


def _bound(tokens: list[str], path: tuple[Any, ...]) -> tuple[Any, ...]:
    """``tokens`` (``hash_of``) with each ``*`` replaced by the index the same ``*`` of the matched
    ``field`` path took (the manifest check makes ``hash_of``'s wildcards a prefix of ``field``'s)."""
    return tuple(path[i] if token == "*" else token for i, token in enumerate(tokens))


def _resolve(document: Any, path: tuple[Any, ...]) -> tuple[bool, Any]:
    """(found, value) at ``path`` (keys for objects, indexes for arrays) in plain JSON."""
    for step in path:
        try:
            document = document[step]
        except (KeyError, IndexError, TypeError):  # absent, or a key into an array (or the reverse)
            return False, None
    return True, document


def _without(value: Any, path: tuple[Any, ...]) -> Any:
    """``value`` with the member at ``path`` left out (copies along the path only)."""
    if not path:
        return value
    step, rest = path[0], path[1:]
    if isinstance(value, dict):
        if not rest:
            return {k: v for k, v in value.items() if k != step}
        return {**value, step: _without(value[step], rest)}
    copied = list(value)
    copied[step] = _without(copied[step], rest)
    return copied


def _integrity(rule: IntegrityRule) -> Callable[[Any, float], Iterator[str]]:
    field_tokens, source_tokens = pointer_parts(rule.field), pointer_parts(rule.hash_of)
    name = f"integrity rule {rule.field}"
    algorithm = rule.algorithm
    hasher = _hasher(
        algorithm
    )  # an unknown algorithm fails when the contract is compiled, not per call

    # each '*' of hash_of is one of field's (check makes it so): the source is the matched path's
    # first items, then hash_of's own names
    stars = max((i for i, t in enumerate(source_tokens) if t == "*"), default=-1) + 1
    aligned = source_tokens[:stars] == field_tokens[:stars]
    tail = tuple(source_tokens[stars:])

    def check(output: Any, now: float) -> Iterator[str]:
        for path, value in _matches(output, field_tokens):
            source = path[:stars] + tail if aligned else _bound(source_tokens, path)
            found, hashed = _resolve(output, source)
            if (
                found and source == path[: len(source)]
            ):  # the hash is inside what it hashes: left out
                hashed = _without(hashed, path[len(source) :])
            if (
                found
                and isinstance(value, str)
                and value.lower() == hasher(hashed_bytes(hashed)).hexdigest()
            ):
                continue
            # named only when broken: most results keep their rules
            where, hashes = (
                cap_pointer(pointer(path)),
                cap_pointer(pointer(source)) or "the whole result",
            )
            yield (
                f"{where} breaks the {name}: it is not the {algorithm} of {hashes}"
                if found
                else f"{where} breaks the {name}: {hashes}, the value it hashes, is missing"
            )

    return check


def _freshness(rule: FreshnessRule) -> Callable[[Any, float], Iterator[str]]:
    tokens = pointer_parts(rule.field)
    name = f"freshness rule {rule.field}"
    max_age, skew = rule.max_age, rule.skew

    def check(output: Any, now: float) -> Iterator[str]:
        latest, earliest = now + skew, now - max_age if max_age is not None else None
        for path, value in _matches(output, tokens):
            stamp = _timestamp(value)
            if stamp is None:
                why = "it is not a date-time with a UTC offset"
            elif stamp > latest:
                why = f"it is more than {skew:g} s in the future"
            elif earliest is not None and stamp < earliest:
                why = f"it is older than {max_age:g} s"
            else:
                continue
            yield f"{cap_pointer(pointer(path))} breaks the {name}: {why}"

    return check


def _timestamp(value: Any) -> float | None:
    """Seconds since the epoch of an RFC 3339 date-time; None without an offset or unparsable."""
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return None if parsed.tzinfo is None else parsed.timestamp()


__all__ = ["PROBLEM_CAP", "compile_result_rules", "digest", "hashed_bytes"]
