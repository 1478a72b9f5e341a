"""Mapping portable tool names (``^[a-zA-Z0-9_-]{1,64}$``) to Python identifiers and module names.

The rule (documented in docs/manifest.md):

* ``-`` becomes ``_`` (``book-meeting`` -> ``book_meeting``);
* a leading digit gets a ``tool_`` prefix (``3d-print`` -> ``tool_3d_print``);
* a Python keyword or soft keyword gets a trailing ``_`` (``import`` -> ``import_``);
* the module of a major version is the identifier lower-cased plus ``_v<major>``
  (``BookMeeting`` 2.0.0 -> ``bookmeeting_v2``);
* the class prefix is the identifier in PascalCase (``book_meeting`` -> ``BookMeeting``), with
  ``Tool`` in front if it would start with a digit (``_3d`` -> ``Tool3d``).

Two tool names that map to the same identifier, module or class prefix cannot live in one
contracts tree; ``contractgen check`` reports the clash.
"""

from __future__ import annotations

import builtins
import keyword
import re

#: ``\Z``, not ``$``: in Python ``$`` also matches before a final newline, and "foo\n" is no name
TOOL_NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_-]{1,64}\Z")

#: Names every generated tool module imports from the runtime; an error class may not shadow one.
RUNTIME_NAMES = frozenset(
    {
        "Contract",
        "ErrorSpec",
        "RetryPolicy",
        "Backoff",
        "Timeout",
        "Migration",
        "Deprecation",
        "Annotations",
        "EmptyResult",
        "Example",
        "IntegrityRule",
        "FreshnessRule",
        "CODES",
        "ACTIONS",
        "CATEGORIES",
        "RUNTIME_VERSION",
        "require_runtime",
        "ToolError",
        "VersionMismatchError",
        "GuardedTool",
        "ToolStub",
        "guard",
        "BudgetStore",
        "InMemoryBudgetStore",
        "CallRecord",
    }
)
#: Built-in names (``Exception``, ``TimeoutError`` ...) that an error class would shadow.
BUILTIN_NAMES = frozenset(name for name in dir(builtins) if not name.startswith("_"))


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
    prefix = "".join(p[:1].upper() + p[1:] for p in parts if p) or "Tool"
    # "_3d" splits to "3d": a class name cannot start with a digit
    return "Tool" + prefix if prefix[:1].isdigit() else prefix


def generated_class_names(tool_name: str) -> frozenset[str]:
    """Class names the build derives from the tool name (its input and output models)."""
    prefix = class_prefix(tool_name)
    return frozenset({f"{prefix}Input", f"{prefix}Output", f"{prefix}Stub", prefix})


def error_class_problem(class_name: str, tool_name: str) -> str | None:
    """Why ``class_name`` cannot name a generated error class of ``tool_name`` (None: it can)."""
    if keyword.iskeyword(class_name):
        return "a Python keyword"
    if class_name in RUNTIME_NAMES:
        return "a name the generated module imports from contractgen.runtime"
    if class_name in BUILTIN_NAMES:
        return "a Python built-in name"
    if class_name in generated_class_names(tool_name):
        return "a class name the build derives from the tool name"
    return None
