"""Reading generated source by ast positions (contractgen/codegen/source_text.py): a name's text read
from lines split once is exactly what ``ast.get_source_segment`` reads, whatever ends the lines."""

from __future__ import annotations

import ast

from hypothesis import example, given, settings
from hypothesis import strategies as st

from contractgen.codegen.source_text import name_as_written, parser_lines
from contractgen.codegen.wire import empty_objects_as_maps

#: names Python reads under another spelling (PEP 3131 NFKC) and ones it reads as written
NAMES = ["µ", "ſ", "ﬁ", "ℌ", "é", "plain", "_k", "ǅef", "H", "ｘ"]
#: what may end a line or sit inside one: \r and \r\n end lines for the parser, the others do not
BREAKS = ["\n", "\r\n", "\r", "\n\n"]
INLINE = ["", " ", "\x0c", "\x0b", "\u2028", "\x85", "é"]


@st.composite
def modules(draw: st.DrawFn) -> str:
    """TypedDict-like classes whose keys are drawn names, lines ended every way the parser ends them,
    comments holding characters str.splitlines would split at."""
    parts = []
    for index in range(draw(st.integers(1, 4))):
        parts.append(f"class C{index}(TypedDict):{draw(st.sampled_from(BREAKS))}")
        for name in draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=4, unique=True)):
            parts.append(f"    {name}: int  # {draw(st.sampled_from(INLINE))}{draw(st.sampled_from(BREAKS))}")
    return "".join(parts)


@settings(max_examples=150, deadline=None)
@given(code=modules())
@example(code="class A(TypedDict):\r    µ: int  # \u2028\r\n    ﬁ: str\rclass B(TypedDict):\n    ſ: int\n")
def test_names_read_from_lines_split_once_are_what_ast_reads(code: str) -> None:
    lines = parser_lines(code)
    assert "".join(lines) == code
    names = [node for node in ast.walk(ast.parse(code)) if isinstance(node, ast.Name)]
    assert names
    for node in names:
        assert name_as_written(lines, node) == ast.get_source_segment(code, node)


def test_a_class_with_a_respelt_key_is_widened_and_only_that_class() -> None:
    code = ("from typing import TypedDict\n\n\nclass Kept(TypedDict):\n    plain: int\n\n\n"
            "class Respelt(TypedDict):\r\n    µ: int\n    plain: str\n")
    widened = empty_objects_as_maps(code)
    assert "Respelt: TypeAlias = dict[str, Any]" in widened
    assert "class Kept(TypedDict):" in widened and "Kept: TypeAlias" not in widened
