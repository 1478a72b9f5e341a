"""``user_supplied``: each pointer names an argument of the input that its object requires (an
optional one would let a call without it go ahead, so nobody would be told to ask the user)."""

from __future__ import annotations

from typing import Any

from ..runtime.pointer import unescape_token
from .contract_checks import known_pointer
from .describe import show
from .report import Reporter
from .schema_walk import deref, lookup_argument


def check_user_supplied(
    report: Reporter, data: dict[str, Any], input_schema: dict[str, Any]
) -> None:
    for index, pointer in enumerate(data.get("user_supplied", ())):
        where = f"/user_supplied/{index}"
        if (
            known_pointer(
                report,
                input_schema,
                pointer,
                where,
                side="input",
                code="unknown-user-supplied-pointer",
            )
            is None
        ):
            continue
        parent, _, name = pointer.rpartition("/")
        if unescape_token(name) not in _required(
            input_schema, lookup_argument(input_schema, parent).schema
        ):
            report.error(
                where,
                f"expected a required argument (got {show(pointer)}, which its object does not "
                "require: a call without it goes ahead, and nobody is told to ask the user)",
                "user-supplied-not-required",
                hint=f"add {show(unescape_token(name))} to `required` of {show(parent or '/')} in the input",
            )


def _required(root: dict[str, Any], schema: Any) -> set[str]:
    """Names an object schema requires, its own and its allOf members' (anyOf/oneOf: not always)."""
    names: set[str] = set()
    if not isinstance(schema, dict):
        return names
    if isinstance(schema.get("required"), list):
        names.update(n for n in schema["required"] if isinstance(n, str))
    for member in schema.get("allOf", []) if isinstance(schema.get("allOf"), list) else []:
        names |= _required(root, deref(root, member))
    return names
