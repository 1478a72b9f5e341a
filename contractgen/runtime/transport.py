"""A shipped exception mapper for common transports: HTTP status errors, timeouts, connection errors.

Covers httpx, requests, urllib, urllib3, http.client, ssl, aiohttp, redis-py, botocore, psycopg,
psycopg2, asyncio and the builtin socket errors. Library exception types are looked up in ``sys.modules`` only: if an
exception comes from httpx, httpx is already imported, so this module never imports any of them itself.

| failure                                  | code                | action             |
|------------------------------------------|---------------------|--------------------|
| HTTP 400, 422                            | INVALID_ARGUMENT    | fix_arguments      |
| HTTP 401, 403                            | PERMISSION_DENIED   | escalate           |
| HTTP 404, 410                            | NOT_FOUND           | stop_and_tell_user |
| HTTP 408, 504, any timeout               | TIMEOUT             | retry_later        |
| HTTP 409                                 | CONFLICT            | fix_arguments      |
| HTTP 429 (Retry-After honoured)          | RATE_LIMITED        | retry_later        |
| HTTP 5xx (Retry-After honoured)          | UNAVAILABLE         | retry_later        |
| other HTTP 4xx                           | FAILED_PRECONDITION | escalate           |
| connection refused/reset, DNS, protocol  | UNAVAILABLE         | retry_later        |
| an answer cut short or not HTTP, TLS     | UNAVAILABLE         | retry_later        |
| network unreachable, host down (OSError) | UNAVAILABLE         | retry_later        |
| Redis down, loading, failing over        | UNAVAILABLE         | retry_later        |
| Redis refusing the tool's credentials    | PERMISSION_DENIED   | escalate           |
| AWS (botocore): status as above; a       | RATE_LIMITED        | retry_later        |
| throttling error code at any status      |                     |                    |
| AWS endpoint unreachable, read timeout   | UNAVAILABLE/TIMEOUT | retry_later        |
| AWS credentials missing                  | PERMISSION_DENIED   | escalate           |
| Postgres down, lost, overloaded, a       | UNAVAILABLE         | retry_later        |
| serialization failure (OperationalError) |                     |                    |
| Postgres statement_timeout               | TIMEOUT             | retry_later        |
| Postgres refusing a login or a grant     | PERMISSION_DENIED   | escalate           |
| (a login: read from the server's message)|                     |                    |

The guard applies this mapping by default (after a tool's own ``mapper``; ``transport_errors=False``
opts out): a refused connection is the transient upstream failure the retry contract and the
failure budget exist for, not a defect of the tool. A URL the client refuses outright (an unknown
scheme) is the tool's own defect and stays INTERNAL.
"""

from __future__ import annotations

import asyncio
import errno
import math
import re
import socket
import sys
from collections.abc import Callable
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Any

from .envelope import untrusted
from .errors import ToolError

RETRY_AFTER_CAP = 86400.0

# one entry per line: the messages are the product here, so they are easy to read and grep
_STATUS: dict[int, tuple[str, str]] = {
    400: ("INVALID_ARGUMENT", "The service rejected the request as invalid (HTTP 400). Check the arguments against the tool's schema, then call again."),
    401: ("PERMISSION_DENIED", "The service did not accept the tool's credentials (HTTP 401). Tell the user the tool needs to be authorised again."),
    403: ("PERMISSION_DENIED", "The service refused this request (HTTP 403): the tool is not allowed to do this. Tell the user."),
    404: ("NOT_FOUND", "The service found nothing at the requested place (HTTP 404). Tell the user what was not found."),
    408: ("TIMEOUT", "The service timed out (HTTP 408). Wait a moment and call again unchanged."),
    409: ("CONFLICT", "The request conflicts with the current state of the service (HTTP 409). Change the arguments, then call again."),
    410: ("NOT_FOUND", "The requested item no longer exists (HTTP 410). Tell the user."),
    422: ("INVALID_ARGUMENT", "The service could not process these arguments (HTTP 422). Check them against the tool's schema, then call again."),
    429: ("RATE_LIMITED", "The service is rate-limiting calls (HTTP 429). Wait for retry_after seconds, then call again unchanged."),
    504: ("TIMEOUT", "The service's gateway timed out (HTTP 504). Wait a moment and call again unchanged."),
}
_5XX = ("UNAVAILABLE", "The service is temporarily failing (HTTP {status}). Wait a moment and call again unchanged.")
_4XX = ("FAILED_PRECONDITION", "The service refused the request (HTTP {status}). Tell the user.")
_TIMEOUT = "The service did not answer in time. Wait a moment and call again unchanged."
_UNREACHABLE = "The service could not be reached. Wait a moment and call again unchanged."


def parse_retry_after(value: Any, now: datetime | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or an HTTP date), or None."""
    if value is None:
        return None
    text = value.decode("latin-1") if isinstance(value, bytes) else str(value)
    text = text.strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            when = parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            return None
        if when is None:
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=timezone.utc)
        seconds = (when - (now or datetime.now(timezone.utc))).total_seconds()
    if math.isnan(seconds):
        return None
    return round(min(max(seconds, 0.0), RETRY_AFTER_CAP), 3)


def _header(headers: Any, name: str) -> Any:
    if headers is None:
        return None
    try:
        return headers.get(name)
    except Exception:  # noqa: BLE001
        return None


def status_error(status: int, headers: Any = None, body: Any = None) -> ToolError:
    """The ToolError for an HTTP error status (and its Retry-After), body quoted as untrusted."""
    if status in _STATUS:
        code, message = _STATUS[status]
    elif 500 <= status <= 599:
        code, message = _5XX
    else:
        code, message = _4XX
    retry_after = None
    if code in ("RATE_LIMITED", "UNAVAILABLE", "TIMEOUT"):
        retry_after = parse_retry_after(_header(headers, "Retry-After"))
    return ToolError(message.format(status=status), code=code, retry_after=retry_after,
                     upstream=untrusted(body if body is not None else "", status=status))


def _response_parts(response: Any, include_body: bool) -> tuple[int | None, Any, Any]:
    if response is None:
        return None, None, None
    status = getattr(response, "status_code", None)
    if status is None:
        status = getattr(response, "status", None)
    body = None
    if include_body:
        try:
            body = response.text
        except Exception:  # noqa: BLE001
            body = None
    return (status if isinstance(status, int) else None), getattr(response, "headers", None), body


def _mod(name: str) -> Any:
    return sys.modules.get(name)


_CREDENTIALS = "The service did not accept the tool's credentials. Tell the user the tool needs to be authorised again."

#: What a Postgres server (or libpq) says when it refuses a login. No SQLSTATE reaches the client
#: at connect time: psycopg and psycopg2 raise a bare OperationalError with the server's FATAL
#: message, in English unless the server's lc_messages says otherwise (read as UNAVAILABLE then).
#: SQLAlchemy's psycopg2 dialect reads its disconnects from the same text.
_PG_LOGIN_REFUSED = re.compile(
    r"authentication failed for user"  # password, md5/scram, ident, peer, ldap, radius, cert
    r"|no pg_hba\.conf entry for|pg_hba\.conf rejects connection for"
    r'|role ".*" does not exist|role ".*" is not permitted to log in'
    r"|permission denied for database|no password supplied")


#: (module, class, code[, what its message says]), most specific first: library failures of the
#: upstream that no builtin network error covers (a module not imported raised nothing, so none is
#: imported here)
_LIBRARY_FAILURES = (
    # a subclass of ConnectTimeoutError (for old callers), yet a refused connection, not a timeout
    ("urllib3.exceptions", "NewConnectionError", "UNAVAILABLE"),
    ("urllib3.exceptions", "SSLError", "UNAVAILABLE"),
    ("urllib3.exceptions", "DecodeError", "UNAVAILABLE"),
    # the upstream answered, then broke its answer: a body cut short, a reply that is not HTTP
    ("http.client", "IncompleteRead", "UNAVAILABLE"),
    ("http.client", "BadStatusLine", "UNAVAILABLE"),
    ("http.client", "LineTooLong", "UNAVAILABLE"),
    ("requests.exceptions", "ChunkedEncodingError", "UNAVAILABLE"),
    ("requests.exceptions", "ContentDecodingError", "UNAVAILABLE"),
    ("requests.exceptions", "RetryError", "UNAVAILABLE"),
    ("aiohttp", "ClientPayloadError", "UNAVAILABLE"),
    ("ssl", "SSLError", "UNAVAILABLE"),  # a failed handshake (requests and httpx say the same of theirs)
    # redis-py's classes have no builtin bases
    ("redis.exceptions", "AuthenticationError", "PERMISSION_DENIED"),
    ("redis.exceptions", "AuthorizationError", "PERMISSION_DENIED"),
    ("redis.exceptions", "TimeoutError", "TIMEOUT"),
    ("redis.exceptions", "ConnectionError", "UNAVAILABLE"),
    ("redis.exceptions", "TryAgainError", "UNAVAILABLE"),
    ("redis.exceptions", "ClusterDownError", "UNAVAILABLE"),
    ("redis.exceptions", "ReadOnlyError", "UNAVAILABLE"),  # a replica promoted while failing over
    ("redis.exceptions", "RedisClusterUnreachableError", "UNAVAILABLE"),
    # botocore's classes have no builtin bases (their timeouts an OSError without an errno)
    ("botocore.exceptions", "ConnectTimeoutError", "TIMEOUT"),
    ("botocore.exceptions", "ReadTimeoutError", "TIMEOUT"),
    ("botocore.exceptions", "ConnectionError", "UNAVAILABLE"),  # the endpoint, a proxy, TLS
    ("botocore.exceptions", "HTTPClientError", "UNAVAILABLE"),  # the connection closed mid-answer
    ("botocore.exceptions", "IncompleteReadError", "UNAVAILABLE"),
    ("botocore.exceptions", "NoCredentialsError", "PERMISSION_DENIED"),
    ("botocore.exceptions", "PartialCredentialsError", "PERMISSION_DENIED"),
    # Postgres (psycopg 3 and psycopg2): a server down or refusing, a connection lost, a serialization
    # failure, too many connections are OperationalErrors (none chained to a socket error); a
    # statement_timeout cancels the query; a refused login or grant needs someone to act. A mistake
    # in the tool's SQL is a ProgrammingError: INTERNAL. (sqlite3's OperationalError also means "no
    # such table", so it stays INTERNAL.)
    ("psycopg.errors", "InvalidAuthorizationSpecification", "PERMISSION_DENIED"),
    ("psycopg.errors", "InsufficientPrivilege", "PERMISSION_DENIED"),
    ("psycopg.errors", "QueryCanceled", "TIMEOUT"),
    ("psycopg.errors", "ConnectionTimeout", "TIMEOUT"),
    ("psycopg", "OperationalError", "PERMISSION_DENIED", _PG_LOGIN_REFUSED),
    ("psycopg", "OperationalError", "UNAVAILABLE"),
    ("psycopg2.errors", "InvalidAuthorizationSpecification", "PERMISSION_DENIED"),
    ("psycopg2.errors", "InsufficientPrivilege", "PERMISSION_DENIED"),
    ("psycopg2.errors", "QueryCanceled", "TIMEOUT"),
    ("psycopg2", "OperationalError", "PERMISSION_DENIED", _PG_LOGIN_REFUSED),
    ("psycopg2", "OperationalError", "UNAVAILABLE"),
)

#: AWS error codes of a throttled request, whatever its status (often 400): botocore's own list
#: (botocore/retries/standard.py, 1.44) beside S3's SlowDown
_AWS_THROTTLED = frozenset({
    "Throttling", "ThrottlingException", "ThrottledException", "RequestThrottledException",
    "TooManyRequestsException", "ProvisionedThroughputExceededException", "TransactionInProgressException",
    "RequestLimitExceeded", "BandwidthLimitExceeded", "LimitExceededException", "RequestThrottled",
    "SlowDown", "PriorRequestNotComplete", "EC2ThrottledException"})
_AWS_RATE_LIMITED = "The service is rate-limiting calls ({code}). Wait a moment, then call again unchanged."


def _library_failure(exc: BaseException) -> ToolError | None:
    """The ToolError of the first row of ``_LIBRARY_FAILURES`` whose class ``exc`` is (and whose
    message says what the row looks for, where it looks for something), or None."""
    for module_name, name, code, *said in _LIBRARY_FAILURES:
        kind = getattr(_mod(module_name), name, None)
        if isinstance(kind, type) and isinstance(exc, kind) and (not said or said[0].search(str(exc))):
            text = {"UNAVAILABLE": _UNREACHABLE, "TIMEOUT": _TIMEOUT, "PERMISSION_DENIED": _CREDENTIALS}[code]
            return ToolError(text, code=code)
    return None


#: OSErrors of the network that are not ConnectionErrors: the route, the interface or the host is down
_NETWORK_ERRNOS = frozenset(
    getattr(errno, name) for name in ("ENETUNREACH", "ENETDOWN", "ENETRESET", "EHOSTUNREACH",
                                      "EHOSTDOWN", "ECONNABORTED", "ECONNREFUSED", "ECONNRESET")
    if hasattr(errno, name))


def make_transport_mapper(*, include_body: bool = False) -> Callable[[BaseException], ToolError | None]:
    """A mapper for ``wrap_tool``/``guard``; ``include_body`` quotes error bodies as untrusted data."""

    def mapper(exc: BaseException) -> ToolError | None:
        known = _library_failure(exc)
        if known is not None:
            return known
        httpx = _mod("httpx")
        if httpx is not None:
            if isinstance(exc, httpx.HTTPStatusError):
                status, headers, body = _response_parts(exc.response, include_body)
                if status is not None:
                    return status_error(status, headers, body)
            if isinstance(exc, httpx.TimeoutException):
                return ToolError(_TIMEOUT, code="TIMEOUT")
            if isinstance(exc, httpx.TransportError) and not isinstance(exc, httpx.UnsupportedProtocol):
                return ToolError(_UNREACHABLE, code="UNAVAILABLE")
        requests_exc = _mod("requests.exceptions")
        if requests_exc is not None:
            if isinstance(exc, requests_exc.HTTPError):
                status, headers, body = _response_parts(exc.response, include_body)
                if status is not None:
                    return status_error(status, headers, body)
            if isinstance(exc, requests_exc.Timeout):
                return ToolError(_TIMEOUT, code="TIMEOUT")
            if isinstance(exc, requests_exc.ConnectionError):
                return ToolError(_UNREACHABLE, code="UNAVAILABLE")
        urllib_error = _mod("urllib.error")
        if urllib_error is not None:
            if isinstance(exc, urllib_error.HTTPError):
                body = None
                if include_body:
                    try:
                        body = exc.read()
                    except Exception:  # noqa: BLE001
                        body = None
                return status_error(exc.code, exc.headers, body)
            if isinstance(exc, urllib_error.URLError):
                if isinstance(exc.reason, (TimeoutError, socket.timeout)):
                    return ToolError(_TIMEOUT, code="TIMEOUT")
                return ToolError(_UNREACHABLE, code="UNAVAILABLE")
        urllib3_exc = _mod("urllib3.exceptions")
        if urllib3_exc is not None:
            if isinstance(exc, urllib3_exc.TimeoutError) or (  # retries that ended on a timeout
                    isinstance(exc, urllib3_exc.MaxRetryError) and isinstance(exc.reason, urllib3_exc.TimeoutError)
                    and not isinstance(exc.reason, urllib3_exc.NewConnectionError)):
                return ToolError(_TIMEOUT, code="TIMEOUT")
            if isinstance(exc, (urllib3_exc.ProtocolError, urllib3_exc.MaxRetryError)):
                return ToolError(_UNREACHABLE, code="UNAVAILABLE")
        botocore_exc = _mod("botocore.exceptions")
        if botocore_exc is not None and isinstance(exc, botocore_exc.ClientError):
            known = _aws_error(exc.response, include_body)
            if known is not None:
                return known
        aiohttp = _mod("aiohttp")
        if aiohttp is not None:
            if isinstance(exc, aiohttp.ClientResponseError):
                return status_error(exc.status, exc.headers, None)
            if isinstance(exc, aiohttp.ServerTimeoutError):
                return ToolError(_TIMEOUT, code="TIMEOUT")
            if isinstance(exc, aiohttp.ClientConnectionError):
                return ToolError(_UNREACHABLE, code="UNAVAILABLE")
        # asyncio.TimeoutError and socket.timeout are TimeoutError since Python 3.10/3.11
        if isinstance(exc, (TimeoutError, socket.timeout, asyncio.TimeoutError)):
            return ToolError(_TIMEOUT, code="TIMEOUT")
        if isinstance(exc, (ConnectionError, socket.gaierror, socket.herror)):
            return ToolError(_UNREACHABLE, code="UNAVAILABLE")
        if isinstance(exc, OSError) and exc.errno == errno.ETIMEDOUT:
            return ToolError(_TIMEOUT, code="TIMEOUT")
        if isinstance(exc, OSError) and exc.errno in _NETWORK_ERRNOS:
            return ToolError(_UNREACHABLE, code="UNAVAILABLE")
        return None

    return mapper


def _aws_error(response: Any, include_body: bool) -> ToolError | None:
    """The ToolError of an AWS service's answer (botocore's ``ClientError.response``): its HTTP
    status, unless its error code says the request was throttled."""
    if not isinstance(response, dict):
        return None
    meta, error = response.get("ResponseMetadata"), response.get("Error")
    meta, error = meta if isinstance(meta, dict) else {}, error if isinstance(error, dict) else {}
    status, headers, code = meta.get("HTTPStatusCode"), meta.get("HTTPHeaders"), error.get("Code")
    body = f"{code}: {error.get('Message', '')}" if include_body and isinstance(code, str) else None
    if isinstance(code, str) and code in _AWS_THROTTLED:
        return ToolError(_AWS_RATE_LIMITED.format(code=code), code="RATE_LIMITED",
                         retry_after=parse_retry_after(_header(headers, "retry-after")),
                         upstream=untrusted(body or "", status=status if isinstance(status, int) else None))
    return status_error(status, headers, body) if isinstance(status, int) and status >= 400 else None


#: The default mapper: statuses, timeouts and connection errors, no bodies echoed.
map_transport_error = make_transport_mapper()
