"""Where a schema would show a secret outside the guard.

A sample or listed value: a ``default``, ``examples``, ``enum`` or ``const`` entry holding a value at
a position the schema marks sensitive (``writeOnly`` / ``x-sensitive``, reached through any reference
or combinator, as the guard's redaction resolves it, or below a marked node). Every export carries
the input and output schemas with them, and ``describe_parameters`` writes them into the
description: what the guard never echoes would be shown to every model on every request. Secret-looking names alone are not
reported: ``max_tokens: 1024`` is no secret.

A header: ``x-mcp-header`` on a marked property asks MCP clients to copy its value into an
``Mcp-Param-*`` HTTP header on every call, where proxies and access logs read it.

A mark the guard does not read: ``x-sensitve: true``, ``x-Sensitive``, ``x-secret``, ``x-pii``. The
author meant the value to stay hidden, validators accept any ``x-`` key, and the guard reads only
``writeOnly`` and ``x-sensitive``: the value was echoed to the model with no diagnostic at all.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from ..runtime.pointer import escape_token, unescape_token
from ..runtime.pointer import pointer as json_pointer
from ..runtime.redaction import NAME_WORD, REDACTED, redact
from ..runtime.schema_resolve import applicable, children, marked_on_the_way
from ..runtime.schema_walk import is_marked
from ..runtime.wording import one_edit_apart
from .report import Reporter

SENSITIVE_KEY = "x-sensitive"
#: words of an ``x-`` key that say its value is a secret (split at separators and case changes)
_SECRET_WORDS = frozenset({"sensitive", "secret", "secrets", "redact", "redacted", "confidential", "pii",
                           "password", "credential", "credentials", "writeonly", "masked"})
HEADER_KEY = "x-mcp-header"
HEADER_HINT = ("remove `x-mcp-header` here: a header is for routing on plain values; keep the "
               "secret in the arguments only")
LISTED_HINT = ("a secret's allowed values are secrets too, and the schema shows them: drop `enum`/`const` "
               "and check the value in the implementation (raising a declared error), or unmark the "
               "field if its values are not secret")
OUTPUT_HINT = ("the model reads every output: keep a value it must never see out of the output schema "
               "(the implementation keeps it), or drop the mark if the model may read it")
HINT = ("remove it (or the sensitive part of it): a secret's sample is a secret too; say what the "
        "value looks like in the field's `description` instead")


def samples(pointer: str, sub: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """``(pointer of the value, value)`` for the ``default`` and each of the ``examples`` of ``sub``."""
    values: list[tuple[str, Any]] = []
    if "default" in sub:
        values.append((f"{pointer}/default", sub["default"]))
    if isinstance(sub.get("examples"), list):
        values.extend((f"{pointer}/examples/{i}", v) for i, v in enumerate(sub["examples"]))
    return values


def listed_values(pointer: str, sub: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """``(pointer of the value, value)`` for the ``const`` and each ``enum`` value of ``sub``."""
    values: list[tuple[str, Any]] = [(f"{pointer}/const", sub["const"])] if "const" in sub else []
    if isinstance(sub.get("enum"), list):
        values.extend((f"{pointer}/enum/{i}", v) for i, v in enumerate(sub["enum"]))
    return values


def check_sensitive_samples(report: Reporter, base: str, schema: Any,
                            walk: list[tuple[str, dict[str, Any]]]) -> None:
    """Report each default, example, enum or const value that holds a value redaction would hide:
    on a marked node, inside one (below it in the schema), or holding a marked member."""
    try:
        marked = [p for p, sub in walk if any(is_marked(n) for n in applicable([sub], schema))]
    except Exception:  # noqa: BLE001 - a schema redaction cannot read is reported elsewhere
        return
    for pointer, sub in walk:
        inside_secret = any(pointer == m or pointer.startswith(m + "/") for m in marked)
        for where, value in samples(pointer, sub) + listed_values(pointer, sub):
            try:
                hidden = [] if inside_secret else next(
                    (p for p in _hidden_parts(value, redact(value, sub, schema)) if _marked_along(sub, schema, p)),
                    None)
            except Exception:  # noqa: BLE001, S112 - a schema redaction cannot read is reported elsewhere
                continue
            if hidden is None:
                continue
            kind = where.rsplit("/", 2)[-2] if where.rsplit("/", 1)[-1].isdigit() else where.rsplit("/", 1)[-1]
            what = {"default": "default", "examples": "example", "enum": "allowed value", "const": "const value"}[kind]
            inside = f" at {json_pointer(hidden)}" if hidden else ""
            report.error(base + where, f"{what} holds a sensitive value{inside}, which every export "
                         "of the schema shows the model (expected no sample or listed value of a writeOnly / "
                         "x-sensitive value)", "sensitive-sample", hint=LISTED_HINT if kind in ("enum", "const") else HINT)


def check_sensitive_headers(report: Reporter, base: str, schema: Any,
                            walk: list[tuple[str, dict[str, Any]]]) -> None:
    """Report each ``x-mcp-header`` on a property that a mark makes sensitive (on it or on the way)."""
    for pointer, sub in walk:
        if HEADER_KEY not in sub:
            continue
        steps = pointer.split("/")[1:]
        if len(steps) % 2 or not steps or any(step != "properties" for step in steps[::2]):
            continue  # off a pure properties chain: MCP clients ignore it (the SDK says so)
        names = [unescape_token(name) for name in steps[1::2]]
        if marked_on_the_way(schema, names):
            report.error(base + pointer + "/" + HEADER_KEY, "a sensitive property is copied into an HTTP "
                         "header (Mcp-Param-*) by MCP clients on every call (expected no x-mcp-header on a "
                         "writeOnly / x-sensitive property)", "sensitive-header", hint=HEADER_HINT)


def check_unread_marks(report: Reporter, base: str, walk: list[tuple[str, dict[str, Any]]]) -> None:
    """Report each ``x-`` key that means "sensitive" in a spelling the guard does not read."""
    for pointer, sub in walk:
        for key in sub:
            if isinstance(key, str) and key.lower().startswith("x-") and key != SENSITIVE_KEY \
                    and sub[key] is not False and _means_sensitive(key):  # `x-secret: false` promises nothing
                report.error(f"{base}{pointer}/{escape_token(key)}",
                             f"expected the sensitivity mark `{SENSITIVE_KEY}` (got {key!r}, which the guard does "
                             "not read: the value would be echoed to the model, logs and hooks)",
                             "unread-sensitive-mark", hint=f"write `{SENSITIVE_KEY}: true` (or `writeOnly: true`)",
                             key=True)


def _means_sensitive(key: str) -> bool:
    joined = re.sub(r"[-_\s.]", "", key[2:]).lower()
    words = [word.lower() for word in NAME_WORD.findall(key[2:])]
    return (joined == "sensitive" or one_edit_apart(joined, "sensitive")
            or any(word in _SECRET_WORDS for word in words) or joined in _SECRET_WORDS)


def _hidden_parts(sent: Any, shown: Any, path: tuple[Any, ...] = ()) -> Iterator[list[Any]]:
    """The instance paths where the redacted copy ``shown`` hides part of ``sent``."""
    if isinstance(shown, str) and shown == REDACTED and sent != REDACTED:
        yield list(path)
    elif isinstance(sent, Mapping) and isinstance(shown, Mapping):
        for key, member in sent.items():
            yield from _hidden_parts(member, shown.get(key), (*path, key))
    elif isinstance(sent, list) and isinstance(shown, list):
        for index, (member, redacted) in enumerate(zip(sent, shown)):
            yield from _hidden_parts(member, redacted, (*path, index))


def _marked_along(node: Any, root: Any, path: list[Any]) -> bool:
    """Whether a mark (not a name) applies at ``node`` or on the way down ``path`` from it."""
    nodes = applicable([node], root)
    for part in [None, *path]:
        if part is not None:
            nodes = applicable([c for n in nodes for c in children(n, str(part))], root)
        if any(is_marked(n) for n in nodes):
            return True
    return False


def check_sensitive_output(report: Reporter, base: str, walk: list[tuple[str, dict[str, Any]]]) -> None:
    """Report each ``writeOnly`` / ``x-sensitive`` mark in an output schema. The guard answers with
    the tool's output, which is what the model reads: a mark there cannot keep its promise (JSON
    Schema's ``writeOnly``: "not returned in responses"), and a silently ignored mark is worse
    than none. The runtime withholds such a value anyway (``[redacted]``) where check was skipped."""
    for pointer, sub in walk:
        for key in ("writeOnly", "x-sensitive"):
            if sub.get(key) is True:
                report.error(base + pointer + "/" + key, "a sensitive mark in the output, which the guard "
                             "returns to the model (expected no writeOnly / x-sensitive in an output schema)",
                             "sensitive-output", hint=OUTPUT_HINT)
