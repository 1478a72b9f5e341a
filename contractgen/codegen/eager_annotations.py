"""Annotations a generated tool module evaluates as it runs, not as strings pydantic evaluates later.

With ``from __future__ import annotations`` every field annotation is a string, and pydantic compiles
and evaluates each one when its class is made (a 1,000-tool project, imported and implemented in
fresh interpreters: 2.84 s with strings, 2.58 s without, ``bench/startup.py``). ``eager(source)`` drops
that import and leaves each annotation to run where it stands, except where running it there would
read another name than the string did. Those it quotes, so pydantic reads them as before:

* a class defined later in the module, or the class itself (a forward reference, a recursive model);
* a name the class body has already bound (a field whose default shadows a type of the same name).

Function annotations are treated alike. Everything else in the source is left byte for byte.
"""

from __future__ import annotations

import ast
import builtins

FUTURE = "from __future__ import annotations\n"


def eager(source: str) -> str:
    """``source`` (a rendered module with ``from __future__ import annotations``) without that
    import, its annotations quoted where evaluating them in place would change what they name."""
    if FUTURE not in source:
        return source
    source = source.replace(FUTURE, "", 1)
    tree = ast.parse(source)
    quoted: list[ast.expr] = []
    bound = set(vars(builtins))  # names a module-level annotation may read as it runs
    for statement in tree.body:
        _collect(statement, bound, set(), quoted)
        bound |= _binds(statement)
    data = source.encode("utf-8")  # the parser's columns count UTF-8 bytes
    offsets = [0]
    for line in data.splitlines(keepends=True):
        offsets.append(offsets[-1] + len(line))
    for annotation in sorted(quoted, key=lambda a: (a.lineno, a.col_offset), reverse=True):
        start = offsets[annotation.lineno - 1] + annotation.col_offset
        end = offsets[annotation.end_lineno - 1] + annotation.end_col_offset  # type: ignore[index,operator]
        text = repr(data[start:end].decode("utf-8")).encode("utf-8")
        data = data[:start] + text + data[end:]
    return data.decode("utf-8")


def _collect(statement: ast.stmt, bound: set[str], local: set[str], quoted: list[ast.expr]) -> None:
    """The annotations in ``statement`` that must be quoted, given the module-level names ``bound``
    so far and the names its enclosing class body has bound (``local``)."""
    if isinstance(statement, ast.AnnAssign):
        _judge(statement.annotation, bound, local, quoted)
    elif isinstance(statement, ast.ClassDef):
        inner: set[str] = set()
        for member in statement.body:  # the class's own name is bound only after its body
            _collect(member, bound, inner, quoted)
            inner |= _binds(member)
    elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
        arguments = statement.args
        for argument in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                         *filter(None, (arguments.vararg, arguments.kwarg))):
            if argument.annotation is not None:
                _judge(argument.annotation, bound, local, quoted)
        if statement.returns is not None:
            _judge(statement.returns, bound, local, quoted)


def _judge(annotation: ast.expr, bound: set[str], local: set[str], quoted: list[ast.expr]) -> None:
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return  # already a string
    names = {node.id for node in ast.walk(annotation) if isinstance(node, ast.Name)}
    if names & local or not names <= bound:
        quoted.append(annotation)


def _binds(statement: ast.stmt) -> set[str]:
    """The names ``statement`` binds where it stands (an annotation without a value binds none)."""
    if isinstance(statement, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
        return {statement.name}
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return {(alias.asname or alias.name).split(".")[0] for alias in statement.names}
    if isinstance(statement, ast.AnnAssign):
        target = statement.target
        return {target.id} if isinstance(target, ast.Name) and statement.value is not None else set()
    if isinstance(statement, ast.Assign):
        return {node.id for target in statement.targets for node in ast.walk(target)
                if isinstance(node, ast.Name)}
    return set()
