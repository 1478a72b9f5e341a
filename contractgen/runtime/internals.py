"""Internals a tool's own message may not carry to the model: stack traces, connection strings,
URLs and DSNs with credentials, tokens, file paths and private addresses.

``check`` refuses them in static messages (``contractgen.manifest.leaks``, which reads ``FILE_PATH``
from here); at run time ``withhold_internals`` replaces them in the text a ToolError (or a mapper's)
writes, and the original goes to the log under the call's reference with its credentials cut
(``without_credentials``), so an operator still sees which host failed.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable

from .envelope import new_ref
from .observe import logger

__all__ = ["FILE_PATH", "withhold_internals", "without_credentials"]

STACK_TRACE = re.compile(r"\bTraceback \(most recent call last\):?|\bTraceback\b")
STACK_LINE = re.compile(
    r"\bFile \"[^\"]+\", line \d+(?:, in [\w<>.]+)?"  # Python
    r"|\bat [\w$.<>]+\([\w$.]*\.(?:java|kt|scala|groovy):\d+\)"  # JVM
    r"|\bat [\w$.<>\[\] ]+\([^()\s]+:\d+:\d+\)"  # JavaScript
    r"|\bgoroutine \d+ \[[^\]\n]*\]:?"  # Go
    r"|\b[\w/.-]+\.(?:py|java|go|rb|js|ts|cs|cpp|c|rs|php):\d+\b"  # file:line
)
_DATABASES = (
    r"postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|redis|rediss|amqps?|mssql|sqlserver|oracle"
    r"|sqlite|clickhouse|cockroachdb|couchbase|cassandra|neo4j|nats|kafka"
)
#: a database or broker URL (the whole of it), or a JDBC one
CONNECTION_URL = re.compile(
    rf"\b(?:jdbc:)?(?:{_DATABASES})://[^\s'\"<>]*|\bjdbc:\w+:[^\s'\"<>]+", re.IGNORECASE
)
FILE_PATH = re.compile(
    r"(?<![\w.~/-])/(?:usr|home|var|etc|opt|tmp|srv|root|mnt|proc|sys|lib|lib64|bin|sbin|app|Users|Volumes"
    r"|private|data|workspace)/[^\s'\"]*"
    r"|(?<![\w])~/[\w.-]+"
    r"|\b[A-Za-z]:\\[^\s'\"]+"
    r"|\\\\[\w.-]+\\[^\s'\"]+"
)
#: names under which URLs' queries, DSNs and headers carry a credential
_SECRET_NAMES = (
    r"password|passwd|pwd|pass|secret|client_secret|token|access_token|refresh_token|id_token"
    r"|api_?key|apikey|key|sig|signature|auth|authorization|credentials?|session_?id"
)
_URL = r"\b[a-z][a-z0-9+.-]*://"
_CREDENTIAL_URL = re.compile(
    rf"{_URL}[^/\s:@'\"<>]+:[^/\s@'\"<>]+@[^\s'\"<>]*"  # user:password@
    rf"|{_URL}[^\s'\"<>?]*\?[^\s'\"<>]*?(?<=[?&;])(?:{_SECRET_NAMES})=[^\s'\"<>]*",  # ?password=
    re.IGNORECASE,
)
#: a DSN's or a query's ``password=...`` (``=`` only: "missing key: amount" is no credential)
_KEY_VALUE = re.compile(
    r"\b((?:password|passwd|pwd|secret|client_secret|api_?key|access_token|refresh_token"
    r"|auth_?token|token|sig|signature)\s*=\s*)(?!\(withheld\))[^\s;,&'\"]+",
    re.IGNORECASE,
)
_TOKEN = re.compile(r"\b((?:Bearer|Basic|Token|Digest)\s+)(?!\(withheld\))[A-Za-z0-9._~+/=-]{8,}")
_IPV4 = re.compile(r"(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?(?![\w.])")
_IPV6 = re.compile(
    r"(?<![\w:.])\[?[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}\]?(?::\d{1,5})?(?![\w:])"
)
_PRIVATE_HOST = re.compile(
    r"\b(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+(?:internal|local|localdomain|lan|corp|home|intranet|svc)\b"
    r"(?::\d{1,5})?|\blocalhost\b(?::\d{1,5})?",
    re.IGNORECASE,
)


def _private_ip(match: re.Match[str]) -> bool:
    text = match.group(0).strip("[]")
    if text.count(":") == 1 and "." in text:  # an IPv4 with its port
        text = text.split(":")[0]
    elif "]" in match.group(0):  # [v6]:port
        text = match.group(0)[1:].split("]")[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return False
    return (
        address.is_private
        or address.is_loopback
        or address.is_link_local
        or address in ipaddress.ip_network("100.64.0.0/10")
    )


#: (what the model is told it was, the pattern, whether a match counts: None for every match)
_WITHHELD: tuple[tuple[str, re.Pattern[str], Callable[[re.Match[str]], bool] | None], ...] = (
    ("a stack trace", STACK_TRACE, None),
    ("a stack-trace line", STACK_LINE, None),
    ("a connection string", CONNECTION_URL, None),
    ("a URL with credentials", _CREDENTIAL_URL, None),
    ("a file path", FILE_PATH, None),
    ("a private address", _IPV4, _private_ip),
    ("a private address", _IPV6, _private_ip),
    ("a private address", _PRIVATE_HOST, None),
)


def without_credentials(text: str) -> str:
    """``text`` with every credential a URL, DSN or header in it may hold replaced by ``***``: the
    user and password before ``@``, credential query arguments, ``password=`` pairs, bearer tokens."""
    text = re.sub(rf"({_URL})[^/\s@'\"<>]+@", r"\1***@", text, flags=re.IGNORECASE)
    text = _KEY_VALUE.sub(r"\1***", text)
    return _TOKEN.sub(r"\1***", text)


def withhold_internals(text: str, tool: str, version: str) -> tuple[str, str | None]:
    """``text`` with its internals replaced, and the reference they were logged under (None, and
    ``text`` as it was, when it holds none)."""
    kinds: list[str] = []
    shown = text
    for kind, pattern, counts in _WITHHELD:

        def replaced(
            match: re.Match[str], kind: str = kind, counts: Callable[..., bool] | None = counts
        ) -> str:
            if counts is not None and not counts(match):
                return match.group(0)
            if kind not in kinds:
                kinds.append(kind)
            return f"({kind}, withheld)"

        shown = pattern.sub(replaced, shown)
    for pattern in (_KEY_VALUE, _TOKEN):  # a DSN's password=..., a bearer token: the name stays
        cut = pattern.sub(r"\1(withheld)", shown)
        if cut != shown and "a credential" not in kinds:
            kinds.append("a credential")
        shown = cut
    if not kinds:
        return text, None
    ref = new_ref()
    logger.warning(
        "%s %s wrote %s in a message for the model; it was withheld from it, ref=%s: %s",
        tool,
        version,
        ", ".join(kinds),
        ref,
        without_credentials(text),
    )
    return f"{shown} (internal details withheld; reference {ref})", ref
