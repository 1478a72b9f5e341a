"""Keywords added to the ``model_config`` of the generator's classes (the generator offers no option
for them): ``defer_build=True`` on every model, so importing a tool's module builds no validator
(pydantic builds it when the model is first used: a server importing a thousand tools pays only for
the ones it calls, ``bench/startup.py``), and, from ``sensitive_fields``, ``hide_input_in_errors``."""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from typing import Any

from .defaults import import_aliases, imported_name, with_import


def byte_offsets(code: str) -> tuple[bytes, Callable[[int, int], int]]:
    """``code`` as UTF-8 and ``at(line, column)``: the byte offset of an ``ast`` position in it (ast
    columns count UTF-8 bytes)."""
    encoded = code.encode("utf-8")
    starts = [0]
    for line in encoded.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))

    def at(line: int, column: int) -> int:
        return starts[line - 1] + column

    return encoded, at


def resolves_to(node: ast.expr, aliases: Mapping[str, tuple[str, str]], name: str) -> bool:
    return isinstance(node, ast.Name) and aliases.get(node.id, ("", node.id))[1] == name


def keyword_added(call: ast.Call, keyword: str, encoded: bytes, at: Any) -> tuple[int, str]:
    """Where and what to insert so that ``call`` ends with the keyword argument ``keyword``."""
    assert call.end_lineno is not None and call.end_col_offset is not None
    closing = at(call.end_lineno, call.end_col_offset) - 1
    arguments: list[ast.expr | ast.keyword] = [*call.args, *call.keywords]
    ends = [(a.end_lineno or 0, a.end_col_offset or 0) for a in arguments]
    if not ends:
        return closing, keyword
    between = encoded[at(*max(ends)):closing]
    return closing, (" " if b"," in between else ", ") + keyword


def config_keyword(node: ast.ClassDef, keyword: str, aliases: Mapping[str, tuple[str, str]], config: str,
                   encoded: bytes, at: Any) -> list[tuple[int, str]]:
    """``keyword`` added to the class's ``model_config``, or a ``model_config`` holding it placed
    before its first field (``config``: the local name of pydantic's ``ConfigDict``)."""
    for statement in node.body:
        if isinstance(statement, (ast.Assign, ast.AnnAssign)) and isinstance(statement.value, ast.Call) \
                and any(isinstance(t, ast.Name) and t.id == "model_config"
                        for t in (statement.targets if isinstance(statement, ast.Assign) else [statement.target])) \
                and resolves_to(statement.value.func, aliases, "ConfigDict"):
            return [keyword_added(statement.value, keyword, encoded, at)]
    body = node.body
    first = body[1] if len(body) > 1 and isinstance(body[0], ast.Expr) and isinstance(
        getattr(body[0], "value", None), ast.Constant) else body[0]
    indent = " " * first.col_offset
    return [(at(first.lineno, 0), f"{indent}model_config = {config}({keyword})\n\n")]


def deferred_validators(code: str) -> str:
    """``code`` with ``defer_build=True`` in the ``model_config`` of every ``BaseModel`` class."""
    tree = ast.parse(code)
    aliases = import_aliases(tree)
    config = imported_name(tree, aliases, "pydantic", "ConfigDict")
    encoded, at = byte_offsets(code)

    inserts = [insert for node in tree.body if isinstance(node, ast.ClassDef)
               and any(resolves_to(base, aliases, "BaseModel") for base in node.bases)
               for insert in config_keyword(node, "defer_build=True", aliases, config, encoded, at)]
    for offset, text in sorted(inserts, reverse=True):
        encoded = encoded[:offset] + text.encode("utf-8") + encoded[offset:]
    text = encoded.decode("utf-8")
    if any(f"{config}(" in insert for _, insert in inserts):
        text = with_import(text, tree, aliases, "pydantic", "ConfigDict", config)
    return text
