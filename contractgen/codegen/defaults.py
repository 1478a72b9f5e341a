"""Typed defaults: a JSON default the field's type does not statically admit becomes a validated one.

datamodel-code-generator writes a schema's ``default`` as the JSON literal (``= {"x": 1}`` on a
model-typed field, ``= "2026-01-01"`` on a ``date``), which ``mypy --strict`` rejects. Such a default
is rewritten to ``= Field(<literal>, validate_default=True)``: pydantic turns it into the field's type
on every instance (the manifest checks made sure it matches its schema), and pydantic's own typing
of that ``Field`` overload skips the static check of the literal. Defaults mypy accepts stay as written.
"""

from __future__ import annotations

import ast
import copy

from .source_text import source_lines

#: Names whose values a JSON literal can be, as mypy sees them.
_ANY = frozenset({"Any", "object"})
_SCALARS = {"str": (str,), "int": (int,), "float": (int, float), "bool": (bool,)}


def type_defaults(code: str) -> str:
    """``code`` with every class-body default that mypy would reject rewritten to a validated Field.

    The generator imports a name under an alias (``Field as Field_aliased``) when a property of
    that name would shadow it in a class body; annotations are read through those aliases, and the
    rewrite calls pydantic's Field by a name no property shadows."""
    tree = ast.parse(code)
    aliases = import_aliases(tree)
    rejected = [statement.value for node in ast.walk(tree) if isinstance(node, ast.ClassDef)
                for statement in node.body
                if isinstance(statement, ast.AnnAssign) and statement.value is not None
                and _is_literal(statement.value)
                and not _admits(_unaliased(statement.annotation, aliases), statement.value)]
    if not rejected:
        return code
    field = imported_name(tree, aliases, "pydantic", "Field")
    # ast columns count UTF-8 bytes: splice the encoded text, last edit first
    encoded = code.encode("utf-8")
    line_starts = [0]
    for line in encoded.splitlines(keepends=True):
        line_starts.append(line_starts[-1] + len(line))
    for value in sorted(rejected, key=lambda v: (v.lineno, v.col_offset), reverse=True):
        assert value.end_lineno is not None and value.end_col_offset is not None
        start = line_starts[value.lineno - 1] + value.col_offset
        end = line_starts[value.end_lineno - 1] + value.end_col_offset
        encoded = encoded[:start] + f"{field}(".encode() + encoded[start:end] + b", validate_default=True)" + encoded[end:]
    return with_import(encoded.decode("utf-8"), tree, aliases, "pydantic", "Field", field)


def imported_name(tree: ast.Module, aliases: dict[str, tuple[str, str]], module: str, name: str) -> str:
    """The local name under which ``module.name`` is (or can be) imported: its alias when the
    module imports it, else the first of ``name``, ``Pydantic<name>``... that nothing in ``tree``
    uses (a property of that name would shadow it in a class body)."""
    local = next((local for local, imported in aliases.items() if imported == (module, name)), None)
    if local is not None:
        return local
    taken = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | set(aliases)
    return next(candidate for candidate in (name, f"Pydantic{name}", *(f"Pydantic{name}{i}" for i in range(1, 1000)))
                if candidate not in taken)


def with_import(text: str, tree: ast.Module, aliases: dict[str, tuple[str, str]], module: str, name: str,
                local: str) -> str:
    """``text`` importing ``module.name`` as ``local`` (from ``imported_name``) unless it already does."""
    if local in aliases:
        return text
    return add_import(text, tree, f"from {module} import {name}" + ("" if local == name else f" as {local}"))


def import_aliases(tree: ast.Module) -> dict[str, tuple[str, str]]:
    """Each name a top-level ``from module import name [as local]`` binds: local -> (module, name)."""
    return {alias.asname or alias.name: (node.module or "", alias.name) for node in tree.body
            if isinstance(node, ast.ImportFrom) for alias in node.names}


def _unaliased(annotation: ast.expr, aliases: dict[str, tuple[str, str]]) -> ast.expr:
    """``annotation`` with every imported name written as its original (``Annotated_aliased`` ->
    ``Annotated``), so the checks below read what it means."""
    renamed = {local: name for local, (_, name) in aliases.items() if local != name}
    if not renamed:
        return annotation

    class _Rename(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.Name:
            return ast.Name(id=renamed.get(node.id, node.id), ctx=node.ctx)

    return _Rename().visit(copy.deepcopy(annotation))  # type: ignore[no-any-return]


def _is_literal(node: ast.expr) -> bool:
    """A JSON literal as the generator writes it (not a call such as ``Field(...)``)."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return isinstance(node.operand, ast.Constant)
    if isinstance(node, ast.List):
        return all(_is_literal(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(k is not None and _is_literal(k) for k in node.keys) and all(
            _is_literal(v) for v in node.values)
    return False


def _alternatives(annotation: ast.expr) -> list[ast.expr]:
    """The members of a union annotation, with ``Annotated[...]`` unwrapped."""
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return _alternatives(annotation.left) + _alternatives(annotation.right)
    if isinstance(annotation, ast.Subscript) and _name(annotation.value) == "Annotated":
        inner = annotation.slice
        first = inner.elts[0] if isinstance(inner, ast.Tuple) else inner
        return _alternatives(first)
    if isinstance(annotation, ast.Subscript) and _name(annotation.value) in ("Optional", "Union"):
        inner = annotation.slice
        members = inner.elts if isinstance(inner, ast.Tuple) else [inner]
        found = [a for m in members for a in _alternatives(m)]
        return found + ([ast.Constant(None)] if _name(annotation.value) == "Optional" else [])
    return [annotation]


def _admits(annotation: ast.expr, value: ast.expr) -> bool:
    """Whether mypy accepts the literal ``value`` for ``annotation``; False when unsure."""
    return any(_member_admits(member, value) for member in _alternatives(annotation))


def _member_admits(member: ast.expr, value: ast.expr) -> bool:
    if isinstance(value, ast.UnaryOp):
        value = value.operand
    name = _name(member)
    if name in _ANY:
        return True
    if isinstance(member, ast.Constant) and member.value is None:
        return isinstance(value, ast.Constant) and value.value is None
    if isinstance(value, ast.Constant):
        if value.value is None:
            return False
        if name in _SCALARS:
            return isinstance(value.value, _SCALARS[name])
        if isinstance(member, ast.Subscript) and _name(member.value) == "Literal":
            inner = member.slice
            options = inner.elts if isinstance(inner, ast.Tuple) else [inner]
            return any(isinstance(o, ast.Constant) and o.value == value.value
                       and type(o.value) is type(value.value) for o in options)
        return False
    if isinstance(value, ast.List):
        if name == "list":
            return True
        if isinstance(member, ast.Subscript) and _name(member.value) == "list":
            return all(_admits(member.slice, item) for item in value.elts)
        return False
    if isinstance(value, ast.Dict):
        if name == "dict":
            return True
        if (isinstance(member, ast.Subscript) and _name(member.value) == "dict"
                and isinstance(member.slice, ast.Tuple) and len(member.slice.elts) == 2):
            key_type, value_type = member.slice.elts
            return all(k is not None and _admits(key_type, k) for k in value.keys) and all(
                _admits(value_type, v) for v in value.values)
    return False


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""



def add_import(text: str, tree: ast.Module, statement: str) -> str:
    """``text`` (parsed as ``tree``) with the import ``statement`` after its last top-level import."""
    last = max((n.end_lineno or n.lineno for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))),
               default=0)
    lines = source_lines(text)
    return "".join(lines[:last]) + statement + "\n" + "".join(lines[last:])
