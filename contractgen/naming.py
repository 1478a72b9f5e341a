"""Mapping portable tool names (``^[a-zA-Z0-9_-]{1,64}$``) to Python identifiers and module names.

The rule (documented in the README): ``-`` becomes ``_``; a leading digit gets a ``tool_`` prefix;
a Python keyword or soft keyword gets a trailing ``_``. Module names add ``_v<major>``.
"""

from __future__ import annotations

import keyword
import re

TOOL_NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def python_identifier(tool_name: str) -> str:
    ident = tool_name.replace("-", "_")
    if ident[:1].isdigit():
        ident = "tool_" + ident
    if keyword.iskeyword(ident) or keyword.issoftkeyword(ident):
        ident += "_"
    return ident


def module_name(tool_name: str, major: int) -> str:
    return f"{python_identifier(tool_name).lower()}_v{major}"


def class_prefix(tool_name: str) -> str:
    """PascalCase prefix for a tool's generated classes: ``book-meeting`` -> ``BookMeeting``."""
    parts = re.split(r"[_\-]+", python_identifier(tool_name))
    return "".join(p[:1].upper() + p[1:] for p in parts if p) or "Tool"
