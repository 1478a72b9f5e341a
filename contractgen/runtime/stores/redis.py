"""Failure budgets and circuit breakers on Redis, shared by every worker process (``redis`` extra).

Every operation is one server-side Lua script, so it is atomic across processes. Budget keys are
``<prefix>budget:<session>:<tool>`` with a TTL (abandoned sessions expire); breaker keys hold the
dependency in a hash tag (``<prefix>breaker:{name}:open``) so one script's keys share a cluster
slot. Both a sync client and asyncio clients (one per event loop) are used: ``record_failure`` for
sync calls, ``arecord_failure`` for ``GuardedTool.acall``. Any Redis error (down, timeout, pool
exhausted) raises ``StateUnavailable``; the contract's ``state_unreachable`` decides what then.
Inside a guarded call each operation waits no longer than the call's store window allows
(``budget.StoreWindow``): a server that stalls delays the caller by the margin, not by a socket
timeout per round trip. Sync operations are run on this state's own threads for that (a blocked
socket read cannot be given a shorter timeout from outside); asyncio ones are cancelled.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import weakref
from collections.abc import Awaitable, Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, TypeVar
from urllib.parse import urlsplit

from ..install_hint import install_hint

try:
    import redis
    import redis.asyncio as aioredis
except ImportError as exc:  # pragma: no cover - exercised only without the extra installed
    raise ImportError(f"contractgen.runtime.stores.redis needs redis-py: {install_hint('redis')}") from exc

from ..breaker import CLOSED, HALF_OPEN, OPEN, Admission
from ..budget import StateUnavailable, StoreWindow, store_time_left, stored_count
from ..contract import Breaker

_T = TypeVar("_T")

__all__ = ["RedisBreakerStore", "RedisBudgetStore", "RedisState", "share_state"]

DEFAULT_PREFIX = "cg:"
#: abandoned sessions' counts expire after this many seconds without a failure
DEFAULT_BUDGET_TTL = 3600.0
#: a half-open marker outlives its open period by this much; after it, the breaker is closed
_HALF_OPEN_GRACE_MS = 3_600_000

_INCR = "local n = redis.call('INCR', KEYS[1]) redis.call('PEXPIRE', KEYS[1], ARGV[1]) return n"

# KEYS: open, half, probe   ARGV: token, probe ttl ms  ->  {state, wait ms}
_ADMIT = """
local open = redis.call('PTTL', KEYS[1])
if open > 0 then return {'open', open} end
if redis.call('EXISTS', KEYS[2]) == 0 then return {'closed', 0} end
if redis.call('SET', KEYS[3], ARGV[1], 'NX', 'PX', ARGV[2]) then return {'probe', 0} end
return {'half_open', redis.call('PTTL', KEYS[3])}
"""

# KEYS: failures, open, half, probe   ARGV: failed, token, threshold, window ms, open ms
_RECORD = """
if ARGV[2] ~= '' and redis.call('GET', KEYS[4]) == ARGV[2] then
  redis.call('DEL', KEYS[4])
  if ARGV[1] == 'n' then return '' end
  if ARGV[1] == '1' then
    redis.call('SET', KEYS[2], '1', 'PX', ARGV[5])
    redis.call('SET', KEYS[3], '1', 'PX', tonumber(ARGV[5]) + GRACE)
    return 'reopened'
  end
  redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
  return 'closed'
end
if ARGV[1] == 'n' or redis.call('EXISTS', KEYS[3]) == 1 then return '' end
if ARGV[1] ~= '1' then redis.call('DEL', KEYS[1]) return '' end
local n = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
if n < tonumber(ARGV[3]) then return '' end
redis.call('DEL', KEYS[1])
redis.call('SET', KEYS[2], '1', 'PX', ARGV[5])
redis.call('SET', KEYS[3], '1', 'PX', tonumber(ARGV[5]) + GRACE)
return 'opened'
""".replace("GRACE", str(_HALF_OPEN_GRACE_MS))

_STATE = """
if redis.call('PTTL', KEYS[1]) > 0 then return 'open' end
if redis.call('EXISTS', KEYS[2]) == 1 then return 'half_open' end
return 'closed'
"""

_SCRIPTS = (("incr", _INCR), ("admit", _ADMIT), ("record", _RECORD), ("state", _STATE))


class RedisState:
    """The connections: one sync client and one asyncio client per event loop, bounded pools.

    redis-py's default pool refuses connection 101 outright; a blocking pool waits up to
    ``timeout`` seconds for a free connection instead, so a burst of calls queues, not fails.
    """

    def __init__(self, url: str = "redis://127.0.0.1:6379/0", *, max_connections: int = 20,
                 timeout: float = 2.0, prefix: str = DEFAULT_PREFIX) -> None:
        self.url = url
        self.prefix = prefix
        # the worker's pid as the connection name: CLIENT LIST shows which workers hold connections
        self._options = {"max_connections": max_connections, "timeout": timeout,
                         "socket_timeout": timeout, "socket_connect_timeout": timeout,
                         "client_name": f"contractgen-{os.getpid()}"}
        self.client = redis.Redis(connection_pool=redis.BlockingConnectionPool.from_url(url, **self._options))
        self._async: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = weakref.WeakKeyDictionary()
        self._scripts = {name: self.client.register_script(body) for name, body in _SCRIPTS}
        self._async_scripts: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, Any]] = \
            weakref.WeakKeyDictionary()
        #: where sync operations run under a call's deadline (one thread per pooled connection),
        #: made in the process that uses them
        self._threads_made: tuple[int, ThreadPoolExecutor] | None = None
        self._thread_count = max_connections
        self.safe_url = display_url(url)

    def run(self, name: str, keys: list[str], args: list[Any]) -> Any:
        return self._bounded(lambda: self._scripts[name](keys=keys, args=args))

    async def arun(self, name: str, keys: list[str], args: list[Any]) -> Any:
        return await self._abounded(lambda: self._async_script(name)(keys=keys, args=args))

    def delete(self, key: str) -> None:
        self._bounded(lambda: self.client.delete(key))

    async def adelete(self, key: str) -> None:
        await self._abounded(lambda: self._async_client().delete(key))

    def get(self, key: str) -> Any:
        return self._bounded(lambda: self.client.get(key))

    def _bounded(self, operation: Callable[[], _T]) -> _T:
        """``operation()`` within the call's store window (see the module's docstring)."""
        window, left = self._time_left()
        if left is None:
            return self._answered(window, operation)
        future = self._threads().submit(self._answered, window, operation)
        try:
            return future.result(timeout=left)
        except FutureTimeout:
            future.cancel()  # not started yet: it never runs; started: it ends at the socket timeout
            raise self._unanswered(window, left) from None

    async def _abounded(self, operation: Callable[[], Awaitable[_T]]) -> _T:
        window, left = self._time_left()
        try:
            if left is None:
                return await operation()
            # (redis-py drops a connection cancelled mid-command)
            return await asyncio.wait_for(operation(), left)
        except asyncio.TimeoutError:
            raise self._unanswered(window, left or 0.0) from None
        except redis.RedisError as exc:
            raise self._unreachable(window, exc) from exc

    def _threads(self) -> ThreadPoolExecutor:
        """This process's threads: a worker forked after the state was made (uvicorn, gunicorn)
        inherits the parent's pool but none of its threads, and work queued there never ran."""
        made, pid = self._threads_made, os.getpid()
        if made is None or made[0] != pid:
            threads = ThreadPoolExecutor(self._thread_count, thread_name_prefix="contractgen-redis")
            made = self._threads_made = (pid, threads)
        return made[1]

    def _time_left(self) -> tuple[StoreWindow | None, float | None]:
        try:
            return store_time_left()
        except StateUnavailable as exc:
            raise StateUnavailable(f"redis at {self.safe_url}: {exc}") from None

    def _answered(self, window: StoreWindow | None, operation: Callable[[], _T]) -> _T:
        try:
            return operation()
        except redis.RedisError as exc:
            raise self._unreachable(window, exc) from exc

    def _unreachable(self, window: StoreWindow | None, exc: BaseException) -> StateUnavailable:
        text = f"redis at {self.safe_url}: {exc}"
        if window is not None:
            window.unreachable = text
        return StateUnavailable(text)

    def _unanswered(self, window: StoreWindow | None, seconds: float) -> StateUnavailable:
        return self._unreachable(window, TimeoutError(
            f"no answer within {seconds:.3g}s, the time the call's deadline leaves it"))

    def close(self) -> None:
        """Close the sync connections. Asyncio connections belong to their event loop: close them
        with ``await aclose()`` inside each loop that used this state, before it ends."""
        self.client.close()
        self.client.connection_pool.disconnect()  # a pool passed in is not closed by the client
        if self._threads_made is not None:
            self._threads_made[1].shutdown(wait=False, cancel_futures=True)

    async def aclose(self) -> None:
        """Close the running event loop's asyncio connections (the next asyncio call opens new ones)."""
        loop = asyncio.get_running_loop()
        self._async_scripts.pop(loop, None)
        client = self._async.pop(loop, None)
        if client is not None:
            await client.aclose()  # made from its own pool: closing the client closes the pool

    def _async_client(self) -> Any:
        loop = asyncio.get_running_loop()  # asyncio connections belong to the loop that made them
        client = self._async.get(loop)
        if client is None:
            pool = aioredis.BlockingConnectionPool.from_url(self.url, **self._options)
            client = self._async[loop] = aioredis.Redis.from_pool(pool)
        return client

    def _async_script(self, name: str) -> Any:
        loop = asyncio.get_running_loop()
        scripts = self._async_scripts.get(loop)
        if scripts is None:
            client = self._async_client()
            scripts = self._async_scripts[loop] = {
                key: client.register_script(body) for key, body in _SCRIPTS}
        return scripts[name]


def display_url(url: str) -> str:
    """The URL as logs and envelopes show it: scheme, host, port and path only. A user name and
    password before ``@`` and every query argument are left out: redis-py reads ``password``,
    ``username`` and any connection option (``ssl_password``...) from the query too."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        if ":" in host:
            host = f"[{host}]"
        port = f":{parts.port}" if parts.port is not None else ""
    except ValueError:  # not a URL redis-py would read either: nothing of it is shown
        return "<an unreadable URL>"
    scheme = parts.scheme.lower()
    shown = f"{scheme}://{host}{port}{parts.path}"
    return shown if scheme in ("redis", "rediss", "unix") else "<a URL of an unknown scheme>"


class RedisBudgetStore:
    """A ``BudgetStore`` whose counts every process shares; ``ttl`` seconds after the last failure
    a session's count expires."""

    def __init__(self, redis_state: RedisState | str, *, ttl: float = DEFAULT_BUDGET_TTL) -> None:
        self.redis = redis_state if isinstance(redis_state, RedisState) else RedisState(redis_state)
        self._ttl_ms = int(ttl * 1000)

    def _key(self, key: str) -> str:
        return self.redis.prefix + key

    def record_failure(self, key: str) -> int:
        return int(self.redis.run("incr", [self._key(key)], [self._ttl_ms]))

    def reset(self, key: str) -> None:
        self.redis.delete(self._key(key))

    def failures(self, key: str) -> int:
        return stored_count(key, self.redis.get(self._key(key)))

    async def arecord_failure(self, key: str) -> int:
        return int(await self.redis.arun("incr", [self._key(key)], [self._ttl_ms]))

    async def areset(self, key: str) -> None:
        await self.redis.adelete(self._key(key))


class RedisBreakerStore:
    """A ``BreakerStore`` whose breakers every process shares."""

    def __init__(self, redis_state: RedisState | str) -> None:
        self.redis = redis_state if isinstance(redis_state, RedisState) else RedisState(redis_state)

    def _keys(self, dependency: str) -> list[str]:
        base = f"{self.redis.prefix}breaker:{{{dependency}}}:"
        return [base + "failures", base + "open", base + "half", base + "probe"]

    def admit(self, dependency: str, breaker: Breaker, lease: float) -> Admission:
        token = secrets.token_hex(8)
        answer = self.redis.run("admit", self._keys(dependency)[1:], [token, _ms(lease)])
        return _admission(answer, token)

    async def aadmit(self, dependency: str, breaker: Breaker, lease: float) -> Admission:
        token = secrets.token_hex(8)
        answer = await self.redis.arun("admit", self._keys(dependency)[1:], [token, _ms(lease)])
        return _admission(answer, token)

    def record(self, dependency: str, breaker: Breaker, failed: bool | None,
               probe: str | None) -> str | None:
        answer = self.redis.run("record", self._keys(dependency), _record_args(breaker, failed, probe))
        return _text(answer) or None

    async def arecord(self, dependency: str, breaker: Breaker, failed: bool | None,
                      probe: str | None) -> str | None:
        answer = await self.redis.arun("record", self._keys(dependency), _record_args(breaker, failed, probe))
        return _text(answer) or None

    def state(self, dependency: str) -> str:
        return _text(self.redis.run("state", self._keys(dependency)[1:3], []))


def _ms(seconds: float) -> int:
    return max(int(seconds * 1000), 1)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value or "")


def _record_args(breaker: Breaker, failed: bool | None, probe: str | None) -> list[Any]:
    return ["n" if failed is None else "1" if failed else "0", probe or "", breaker.failures, _ms(breaker.window),
            _ms(breaker.open_for)]


def _admission(answer: Any, token: str) -> Admission:
    state, wait = _text(answer[0]), int(answer[1])
    if state == "probe":
        return Admission(HALF_OPEN, True, probe=token)
    if state == "closed":
        return Admission(CLOSED, True)
    return Admission(OPEN if state == "open" else HALF_OPEN, False, retry_after=max(wait, 0) / 1000)


def share_state(tools: Iterable[Any], redis_state: RedisState | str, *, telemetry: Any = None,
                budget_ttl: float = DEFAULT_BUDGET_TTL) -> list[Any]:
    """Copies of guarded tools whose failure budgets and breakers live in Redis (and, with a
    ``Telemetry``, that trace and measure every call): what each worker process serves."""
    from ..hooks import CallHooks

    shared = redis_state if isinstance(redis_state, RedisState) else RedisState(redis_state)
    budget = RedisBudgetStore(shared, ttl=budget_ttl)
    hooks = CallHooks(breakers=RedisBreakerStore(shared), telemetry=telemetry)
    copies = []
    for tool in tools:
        copy = tool.with_implementation(tool.implementation, state=budget)
        copy.hooks = hooks
        copies.append(copy)
    return copies
