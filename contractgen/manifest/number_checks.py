"""Numbers the generated code cannot hold: non-finite values anywhere, and schema bounds out of range.

JSON has no infinity or NaN (YAML's ``.inf`` and ``1e400`` make them), pydantic takes length keywords
only as machine-sized integers, and a numeric bound beyond float range breaks a float field. Each is
rejected by ``check``, so it never reaches (and breaks the import of) a generated module.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from typing import Any

from ..runtime.pointer import escape_token
from .describe import show
from .report import Reporter

LENGTH_KEYWORDS = ("maxLength", "minLength", "maxItems", "minItems", "maxProperties", "minProperties",
                   "maxContains", "minContains")
BOUND_KEYWORDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
#: the largest length bound written into generated code: the biggest integer every JSON reader holds exactly
MAX_LENGTH_BOUND = 2**53 - 1


def check_finite_numbers(report: Reporter, value: Any) -> None:
    """An error at every NaN or infinity in the manifest (iterative: the value is already depth-capped)."""
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        node, pointer = stack.pop()
        if isinstance(node, float) and not math.isfinite(node):
            report.error(pointer, f"expected a finite JSON number (got {node})", "non-json-number",
                         hint="JSON has no infinity or NaN (YAML's .inf or a literal like 1e400 makes one); "
                              "use a finite bound or leave the keyword out")
        elif isinstance(node, Mapping):
            stack.extend((v, f"{pointer}/{escape_token(str(k))}") for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((v, f"{pointer}/{i}") for i, v in enumerate(node))


def check_schema_numbers(report: Reporter, pointer: str, schema: Mapping[str, Any]) -> None:
    """Length keywords are integers up to ``MAX_LENGTH_BOUND``; numeric bounds fit a float."""
    for keyword in LENGTH_KEYWORDS:
        value = schema.get(keyword)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            continue  # the meta-schema reports other types
        if isinstance(value, float) and math.isfinite(value) and value.is_integer() \
                and value <= MAX_LENGTH_BOUND:
            report.error(f"{pointer}/{keyword}", f"expected an integer literal (got {show(value)})",
                         "length-not-integer", hint=f"write `{keyword}: {int(value)}`")
        elif isinstance(value, float) or value > MAX_LENGTH_BOUND:
            report.error(f"{pointer}/{keyword}",
                         f"expected a length of at most {MAX_LENGTH_BOUND:,} (got {show(value)})",
                         "length-out-of-range", hint=f"leave `{keyword}` out when there is no practical limit")
    for keyword in BOUND_KEYWORDS:
        value = schema.get(keyword)
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > sys.float_info.max:
            report.error(f"{pointer}/{keyword}", f"expected a number within float range, about ±1.8e308 "
                         f"(got an integer of {len(str(abs(value)))} digits)", "number-out-of-range",
                         hint=f"leave `{keyword}` out, or use a bound a float can hold")
