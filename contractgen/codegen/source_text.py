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
import re
import tokenize


def source_lines(code: str) -> list[str]:
    """The lines of ``code`` as ``ast`` numbers them, each with its line end."""
    lines = code.split("\n")
    ended = [line + "\n" for line in lines[:-1]]
    return ended + [lines[-1]] if lines[-1] else ended


#: a line as Python's parser ends it (``ast.get_source_segment`` splits the same way): at \r\n, \r or \n
_PARSER_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def parser_lines(code: str) -> list[str]:
    """The lines of ``code`` as the parser numbers them, each with its line end, split once: reading
    names through ``ast.get_source_segment`` split the whole module again for every name (a build of
    80 tools spent over half its time there, growing with the square of the tools)."""
    return _PARSER_LINE.findall(code)


def name_as_written(lines: list[str], name: ast.Name) -> str:
    """The source text of ``name`` (what ``ast.get_source_segment`` gives), from ``parser_lines``."""
    assert name.end_lineno == name.lineno and name.end_col_offset is not None  # a name is one token
    return lines[name.lineno - 1].encode()[name.col_offset:name.end_col_offset].decode()


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
