"""Leak patterns: internals that must never reach a model-facing message.

A message is read by a model and often shown to a user. Exception class names, stack-trace lines,
connection strings, credentials in URLs and file-system paths tell an attacker about the
implementation and tell the model nothing it can act on.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ..runtime.internals import EXCEPTION_NAME, FILE_PATH, KNOWN_TOKENS


class Leak(NamedTuple):
    kind: str  # "an exception class name"
    text: str  # the matching text


_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("a stack trace", re.compile(r"\bTraceback \(most recent call last\)|\bTraceback\b")),
    (
        "a stack-trace line",
        re.compile(
            r"\bFile \"[^\"]+\", line \d+"  # Python
            r"|\bat [\w$.<>]+\([\w$.]*\.(?:java|kt|scala|groovy):\d+\)"  # JVM
            r"|\bat [\w$.<>\[\] ]+\([^()\s]+:\d+:\d+\)"  # JavaScript
            r"|\bgoroutine \d+ \["  # Go
            r"|\b[\w/.-]+\.(?:py|java|go|rb|js|ts|cs|cpp|c|rs|php):\d+\b"  # file:line
        ),
    ),
    (
        "an exception class name",
        re.compile(rf"{EXCEPTION_NAME}|\bPanic\b"),  # the runtime withholds the same names
    ),
    ("a JDBC connection string", re.compile(r"\bjdbc:\w+", re.IGNORECASE)),
    (
        "a database connection URL",
        re.compile(
            r"\b(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|redis|rediss|amqp|mssql|oracle|sqlite)://",
            re.IGNORECASE,
        ),
    ),
    (
        "a URL with credentials",
        re.compile(r"\b[a-z][a-z0-9+.-]*://[^/\s:@]+:[^/\s@]+@", re.IGNORECASE),
    ),
    ("a file-system path", re.compile(FILE_PATH)),  # the runtime withholds the same paths from a tool's messages
    ("a credential", re.compile("|".join(f"(?:{known})" for known in KNOWN_TOKENS))),  # and the same keys
    (
        "an SQL statement",
        re.compile(
            r"\b(?:SELECT\s+[\w*,\s.\"`]+\s+FROM|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM)\b"
        ),
    ),
)


def find_leaks(text: str) -> list[Leak]:
    """Every leak in ``text``, at most one per kind, in a stable order."""
    found = []
    for kind, pattern in _PATTERNS:
        match = pattern.search(text)
        if match:
            found.append(Leak(kind, match.group(0)))
    return found
