"""Internals a tool's own message may not carry to the model: stack traces, exception class names,
connection strings, URLs and DSNs with credentials, tokens, file paths and private addresses.

``check`` refuses them in static messages (``contractgen.manifest.leaks``, which reads ``FILE_PATH``,
``EXCEPTION_NAME`` and ``KNOWN_TOKENS`` from here); at run time ``withhold_internals`` replaces them
in the text a ToolError (or a mapper's) writes, and the original goes to the log under the call's
reference with its credentials cut (``without_credentials``), so an operator still sees which host
failed. ``internals_in`` names what a text holds, for ``contractgen.testing``'s envelope oracle.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from .envelope import MESSAGE_CAP, new_ref
from .observe import logger
from .visible import visible

__all__ = ["EXCEPTION_NAME", "FILE_PATH", "internals_in", "withhold_internals", "without_credentials"]

#: characters of a message read for internals: four times what an envelope shows of one
SCANNED = 4 * MESSAGE_CAP

STACK_TRACE = r"\bTraceback \(most recent call last\):?|\bTraceback\b"
#: a class name ending in Error or Exception (``KeyError``, ``requests.ConnectTimeoutError``'s last
#: part), or one of the exceptions that end a Python program or loop; a bare "Error" is a word
EXCEPTION_NAME = (r"\b[A-Z][A-Za-z0-9_]{0,200}(?:Error|Exception)\b"
                  r"|\b(?:KeyboardInterrupt|StopIteration|StopAsyncIteration|SystemExit|GeneratorExit)\b")
# Every repeat is bounded and every run starts where a run of its characters starts: a message is
# the tool's text, of any size, and an unbounded repeat tried at every position of a long run
# took seconds (20,000 characters of "1.1.1...": 22 s).
STACK_LINE = (
    r"\bFile \"[^\"\n]{1,500}\", line \d+(?:, in [\w<>.]{1,200})?"  # Python
    r"|\bat [\w$.<>]{1,300}\([\w$.]{0,200}\.(?:java|kt|scala|groovy):\d+\)"  # JVM
    r"|\bat [\w$.<>\[\] ]{1,200}\([^()\s]{1,500}:\d+:\d+\)"  # JavaScript
    r"|\bgoroutine \d+ \[[^\]\n]{0,200}\]:?"  # Go
    r"|(?<![\w/.-])[\w/.-]{1,500}\.(?:py|java|go|rb|js|ts|cs|cpp|c|rs|php):\d+\b"  # file:line
)
_DATABASES = (
    r"postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|redis|rediss|amqps?|mssql|sqlserver|oracle"
    r"|sqlite|clickhouse|cockroachdb|couchbase|cassandra|neo4j|nats|kafka"
)
#: a database or broker URL (the whole of it), or a JDBC one
CONNECTION_URL = rf"\b(?:jdbc:)?(?:{_DATABASES})://[^\s'\"<>]*|\bjdbc:\w+:[^\s'\"<>]+"
FILE_PATH = (
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
_URL = r"(?<![a-z0-9+.-])[a-z][a-z0-9+.-]{0,31}://"
#: any URL, whole (one pass: a token is read once); ``_has_credentials`` judges it
_ANY_URL = rf"{_URL}[^\s'\"<>]*"
_USERINFO = re.compile(r"[^/?#@]*@")  # after the scheme's //: a user (and password) before @
_SECRET_QUERY = re.compile(rf"[?&;](?:{_SECRET_NAMES})=", re.IGNORECASE)
#: a DSN's or a query's ``password=...`` (``=`` only: "missing key: amount" is no credential)
_KEY_VALUE = (
    r"\b((?:password|passwd|pwd|secret|client_secret|api_?key|access_token|refresh_token"
    r"|auth_?token|token|sig|signature)\s*=\s*)(?!\(withheld\))[^\s;,&'\"]+"
)
_TOKEN = r"\b((?:(?i:bearer)|Basic|Token|Digest)\s+)(?!\(withheld\))[A-Za-z0-9._~+/=-]{8,}"
#: a JSON or Python pair naming a credential: ``"password": "..."``
_QUOTED_PAIR = (
    r"""(["'](?:password|passwd|secret|client_secret|api_?key|access_token|refresh_token|auth_?token"""
    r"""|token|private_key)["']\s*:\s*["'])(?!\(withheld\))[^"']{1,500}"""
)
#: credentials of a well-known format, whatever the text around them says; group 1, the part that
#: names the kind (``sk_live_``), stays
KNOWN_TOKENS = (
    r"\b((?:sk|rk)_(?:live|test)_)[A-Za-z0-9]{10,}",  # Stripe secret and restricted keys
    r"\b(gh[pousr]_)[A-Za-z0-9]{30,}",  # GitHub
    r"\b(github_pat_)\w{30,}",
    r"\b(glpat-)[\w-]{20,}",  # GitLab
    r"\b(A[KS]IA)[0-9A-Z]{16}\b",  # AWS access key ids
    r"\b(xox[abposr]-)[A-Za-z0-9-]{10,}",  # Slack
    r"\b(sk-(?:proj-|ant-|svcacct-)?)(?=[\w-]{0,200}\d)[\w-]{20,}",  # OpenAI, Anthropic
    r"\b(AIza)[\w-]{30,}",  # Google API keys
    r"\b(hf_)[A-Za-z0-9]{30,}",  # Hugging Face
    r"\b(eyJ)[\w-]{8,}\.eyJ[\w-]{8,}\.[\w-]{8,}",  # a JWT: header.payload.signature
    r"(-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----)[A-Za-z0-9+/=\s]{0,8000}(?:-----END [A-Z ]{0,40}PRIVATE KEY-----)?",
)
_IPV4 = r"(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?(?![\w.])"
_IPV6 = r"(?<![\w:.])\[?[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}\]?(?::\d{1,5})?(?![\w:])"
_PRIVATE_HOST = (
    r"(?<![\w.-])(?:[a-z0-9][a-z0-9-]{0,62}\.){1,10}(?:internal|local|localdomain|lan|corp|home|intranet|svc)\b"
    r"(?::\d{1,5})?|\blocalhost\b(?::\d{1,5})?"
)


def _has_credentials(match: re.Match[str]) -> bool:
    url = match.group(0)
    after = url.index("://") + 3
    return _USERINFO.match(url, after) is not None or _SECRET_QUERY.search(url, after) is not None


def _private_ip(match: re.Match[str]) -> bool:
    text = match.group(0).strip("[]")
    if text.count(":") == 1 and "." in text:  # an IPv4 with its port
        text = text.split(":")[0]
    elif "]" in match.group(0):  # [v6]:port
        text = match.group(0)[1:].split("]")[0]
    import ipaddress  # only when a message holds an address-like text (import stays light)

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


@functools.cache
def _withheld() -> tuple[tuple[str, re.Pattern[str], Callable[[re.Match[str]], bool] | None], ...]:
    """(what the model is told it was, the pattern, whether a match counts: None for every match),
    compiled at the first message that needs them: ``import contractgen.runtime`` stays light."""
    flags = re.IGNORECASE
    return (
        ("a stack trace", re.compile(STACK_TRACE), None),
        ("a stack-trace line", re.compile(STACK_LINE), None),
        ("an exception class name", re.compile(EXCEPTION_NAME), None),
        ("a connection string", re.compile(CONNECTION_URL, flags), None),
        ("a URL with credentials", re.compile(_ANY_URL, flags), _has_credentials),
        ("a file path", re.compile(FILE_PATH), None),
        ("a private address", re.compile(_IPV4), _private_ip),
        ("a private address", re.compile(_IPV6), _private_ip),
        ("a private address", re.compile(_PRIVATE_HOST, flags), None),
    )


@functools.cache
def _credentials() -> tuple[re.Pattern[str], tuple[re.Pattern[str], ...]]:
    """The user before ``@``; and the credentials whose group 1 (the name or kind) stays:
    ``password=`` and ``"password": "..."`` pairs, bearer tokens, keys of a known format
    (compiled at first use)."""
    return (
        re.compile(rf"({_URL})[^/\s@'\"<>]+@", re.IGNORECASE),
        (re.compile(_KEY_VALUE, re.IGNORECASE), re.compile(_QUOTED_PAIR, re.IGNORECASE), re.compile(_TOKEN),
         *(re.compile(known) for known in KNOWN_TOKENS)),
    )


def without_credentials(text: str) -> str:
    """``text`` with every credential a URL, DSN or header in it may hold replaced by ``***``: the
    user and password before ``@``, credential query arguments, ``password=`` and quoted pairs,
    bearer tokens, keys of a known format (``KNOWN_TOKENS``). Read as a reader sees it (``visible``):
    a zero-width character inside a password would hide it from the patterns, then vanish."""
    userinfo, named = _credentials()
    text = userinfo.sub(r"\1***@", visible(text))
    for pattern in named:
        text = pattern.sub(r"\1***", text)
    return text


def _one_line(text: str) -> str:
    """Only what the envelope can show is read: the text on one line, as a reader sees it (as
    ``cap_text`` puts it), cut at ``SCANNED`` characters, the rest dropped."""
    text = visible(text[: SCANNED * 64])  # (a run of variation selectors is printable)
    if len(text) > SCANNED or not text.isprintable():
        text = " ".join(text.split())[:SCANNED]
    return text


def _withheld_from(text: str) -> tuple[str, list[str]]:
    """``text`` with its internals replaced, and the kinds found (in a stable order)."""
    kinds: list[str] = []
    shown = text
    for kind, pattern, counts in _withheld():

        def replaced(
            match: re.Match[str], kind: str = kind, counts: Callable[..., bool] | None = counts
        ) -> str:
            if counts is not None and not counts(match):
                return match.group(0)
            if kind not in kinds:
                kinds.append(kind)
            return f"({kind}, withheld)"

        shown = pattern.sub(replaced, shown)
    for pattern in _credentials()[1]:  # a DSN's password=..., a bearer token, a key: its name stays
        cut = pattern.sub(r"\1(withheld)", shown)
        if cut != shown and "a credential" not in kinds:
            kinds.append("a credential")
        shown = cut
    return shown, kinds


def internals_in(text: str) -> list[str]:
    """The kinds of internal detail ``text`` holds, as ``withhold_internals`` judges them (what the
    guard would withhold from a model; ``contractgen.testing`` asks the same of an envelope)."""
    return _withheld_from(_one_line(text))[1]


def withhold_internals(text: str, tool: str, version: str) -> tuple[str, str | None]:
    """``text`` with its internals replaced, and the reference they were logged under (None, and
    ``text`` as it was, when it holds none). Only what the envelope can show is read (``_one_line``)."""
    text = _one_line(text)
    shown, kinds = _withheld_from(text)
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
