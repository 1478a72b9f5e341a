"""Witness candidates of a given length (strings) or item count (arrays), built from old-valid values."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ...prover import NOTHING, candidates, generate, regex_samples


def strings_of_lengths(node: Mapping[str, Any], lengths: Iterable[int]) -> list[str]:
    seeds = [v for v in candidates(node) if isinstance(v, str)]
    if isinstance(node.get("pattern"), str):
        seeds.extend(regex_samples(node["pattern"], 12))
    seeds.append("a")
    out: list[str] = []
    for length in lengths:
        if length < 0 or length > 10_000:
            continue
        for seed in seeds:
            if len(seed) >= length:
                text = seed[:length]
            else:
                filler = seed[-1] if seed else "a"
                text = seed + filler * (length - len(seed))
            if text not in out:
                out.append(text)
    return out


def arrays_of_lengths(node: Mapping[str, Any], lengths: Iterable[int]) -> list[list[Any]]:
    item_schema = node.get("items", {})
    pool = [v for v in candidates(item_schema) if v is not NOTHING]
    first = generate(item_schema)
    if first is not NOTHING:
        pool.insert(0, first)
    distinct: list[Any] = []
    for value in pool:
        if value not in distinct:
            distinct.append(value)
    out: list[list[Any]] = []
    for length in lengths:
        if length < 0 or length > 1000 or not pool:
            continue
        out.append([pool[0]] * length)
        if len(distinct) >= length:
            out.append(distinct[:length])
    return out
