"""String witness candidates for pattern and format rules: old-valid strings and common shapes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...prover import FORMAT_BREAKERS, candidates, regex_samples
from ._lengths import strings_of_lengths

COMMON = ("", "a", "A", "0", "a b", "-", "_", "Z9", "!", "abc", "ABC", "123", "a-b", "a/b", "a.b", "x@y",
          # what patterns written for one-line ASCII text refuse: a line break (ECMA-262's ``.``
          # excludes it, and a ``$`` then ends the first line only under the m flag), a tab, letters
          # outside ASCII (``\w`` and ``[a-z]`` stop there), a character beyond the BMP
          "a\nb", "ab\n", "a\tb", "a\u2028b", "é", "日本", "a😀")


def string_candidates(node: Mapping[str, Any], *, breakers: bool = False) -> list[str]:
    out: list[str] = [v for v in candidates(node) if isinstance(v, str)]
    if isinstance(node.get("pattern"), str):
        out.extend(regex_samples(node["pattern"], 16))
    out.extend(COMMON)
    if breakers:
        out.extend(FORMAT_BREAKERS)
    low, high = node.get("minLength"), node.get("maxLength")
    if isinstance(low, int) or isinstance(high, int):
        lengths = [n for n in (low, high) if isinstance(n, int)]
        out.extend(strings_of_lengths(node, lengths))
    seen: list[str] = []
    for text in out:
        if text not in seen:
            seen.append(text)
    return seen
