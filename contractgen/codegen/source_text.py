"""Python source from datamodel-code-generator, read and edited line by line as Python itself counts lines.

The generator writes some strings raw (a TypedDict key keeps a U+2028 or a vertical tab as it was
sent). ``str.splitlines`` splits at those characters while ``ast`` and ``tokenize`` do not, so a
statement sliced by ast line numbers would be cut at the wrong place. Every string literal that holds
such a character is rewritten through the build's one escaping function first, and lines are split
only where Python ends them.
"""

from __future__ import annotations

import ast
import io
import tokenize


def source_lines(code: str) -> list[str]:
    """The lines of ``code`` as ``ast`` numbers them, each with its line end."""
    lines = code.split("\n")
    ended = [line + "\n" for line in lines[:-1]]
    return ended + [lines[-1]] if lines[-1] else ended


def escape_string_literals(code: str) -> str:
    """``code`` with every string literal that holds a character printed as something else (a line or
    paragraph separator, a control, a bidi or other format character) written through
    ``pyliteral.py_str``, as every other string the build writes. Other literals stay as they were."""
    from ..compiler.pyliteral import py_str  # here: the compiler package imports this one

    lines = source_lines(code)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    edits: list[tuple[int, int, str]] = []
    for token in tokenize.generate_tokens(io.StringIO(code).readline):
        if token.type != tokenize.STRING or all(c.isprintable() or c == "\n" for c in token.string):
            continue
        value = ast.literal_eval(token.string)
        if isinstance(value, str):
            (row, col), (end_row, end_col) = token.start, token.end
            edits.append((starts[row - 1] + col, starts[end_row - 1] + end_col, py_str(value)))
    for start, end, text in reversed(edits):
        code = code[:start] + text + code[end:]
    return code
