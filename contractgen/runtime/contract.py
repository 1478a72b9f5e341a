"""The contract object a guarded tool runs under: every manifest field the runtime needs, as frozen values.

Generated code constructs these; they can equally be built by hand, which is how the runtime is
used without the code generator. Nothing here imports the compiler.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .codes import CODES

JSON = Any


@dataclass(frozen=True)
class ErrorSpec:
    """One declared error: its typed class name, closed-set code and the model-facing facts."""

    class_name: str
    code: str
    message: str
    field: str | None = None
    retryable: bool | None = None  # None: the code's default
    action: str | None = None  # None: the code's default
    retry_after: float | None = None
    description: str | None = None  # author-facing: when the tool raises it

    @property
    def category(self) -> str:
        return CODES[self.code].category

    @property
    def effective_retryable(self) -> bool:
        return CODES[self.code].retryable if self.retryable is None else self.retryable

    @property
    def effective_action(self) -> str:
        return CODES[self.code].action if self.action is None else self.action


@dataclass(frozen=True)
class Backoff:
    """Exponential backoff the caller should follow between retries, in seconds."""

    initial: float = 0.5
    multiplier: float = 2.0
    maximum: float = 30.0
    jitter: bool = True


@dataclass(frozen=True)
class RetryPolicy:
    """Which codes may be retried, how, and how many consecutive transient failures are tolerated."""

    retryable_codes: tuple[str, ...] = ("RATE_LIMITED", "UNAVAILABLE", "TIMEOUT")
    backoff: Backoff = field(default_factory=Backoff)
    #: consecutive retry_later failures before the envelope tells the model to stop; None: no budget
    failure_budget: int | None = 2


#: The longest deadline a contract may set (366 days); longer is no deadline (``seconds: null``).
#: The runtime waits with threading and asyncio timers, which refuse much longer waits.
LONGEST_DEADLINE = 366 * 86400.0


@dataclass(frozen=True)
class Timeout:
    """The per-call deadline: a positive number of seconds up to ``LONGEST_DEADLINE``, or None for
    none (``math.inf`` means none too). Anything else is refused here, when the contract is built:
    a deadline of 0, a negative one or NaN answered TIMEOUT to calls that ran to their end, and
    one past what a timer can wait answered INTERNAL to every call."""

    seconds: float | None = 30.0
    long_running: bool = False

    def __post_init__(self) -> None:
        seconds = self.seconds
        if seconds is None:
            return
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
            raise TypeError(f"timeout seconds: expected a number of seconds or None (got {type(seconds).__name__})")
        if seconds == float("inf"):
            object.__setattr__(self, "seconds", None)  # no deadline, which is what infinity means
            return
        if not 0 < seconds <= LONGEST_DEADLINE:  # also refuses NaN
            raise ValueError(f"timeout seconds: expected more than 0 and at most {LONGEST_DEADLINE:.0f} "
                             f"(366 days) (got {seconds!r}); use None for no deadline")


@dataclass(frozen=True)
class Breaker:
    """When the circuit breaker of a dependency opens, and for how long (shared by every caller)."""

    failures: int = 5  # consecutive retry_later failures, across all sessions, that open it
    window: float = 60.0  # seconds: a failure older than this no longer counts as consecutive
    open_for: float = 30.0  # seconds the breaker stays open before one half-open probe


@dataclass(frozen=True)
class Dependency:
    """The upstream service a tool calls; tools naming the same dependency share one breaker."""

    name: str
    breaker: Breaker = field(default_factory=Breaker)


@dataclass(frozen=True)
class Migration:
    """How a caller of earlier versions (``from_versions``, a PEP 440 specifier) moves to this one."""

    from_versions: str
    renamed: tuple[tuple[str, str], ...] = ()  # (old parameter, new parameter)
    removed: tuple[tuple[str, str], ...] = ()  # (old parameter, what to do instead)
    changed: tuple[tuple[str, str], ...] = ()  # (parameter, how its meaning changed)
    notes: str | None = None


@dataclass(frozen=True)
class Deprecation:
    """A deprecated tool version: since when, when it goes away, and what replaces it."""

    since: str | None = None
    sunset: str | None = None  # ISO date
    replacement: str | None = None
    message: str | None = None
    #: steps from the replacement's ``migrations`` that cover this version (filled in by the compiler)
    migration: tuple[str, ...] = ()


@dataclass(frozen=True)
class Annotations:
    """MCP-style behaviour hints."""

    read_only: bool | None = None
    destructive: bool | None = None
    idempotent: bool | None = None
    open_world: bool | None = None


@dataclass(frozen=True)
class EmptyResult:
    """Where a valid "looked, found nothing" shows in the output, and what it means for the model."""

    pointer: str  # JSON pointer into the output; empty array/object/string/null there means empty
    meaning: str
    #: JSON pointer into the output to what the tool searched for (the query it ran), shown as the
    #: ok envelope's ``attempted`` when the result is empty; None: nothing shown
    attempted: str | None = None


@dataclass(frozen=True)
class IntegrityRule:
    """``field`` holds the hex digest (``algorithm``, a hashlib name) of the value at ``hash_of``.

    Paths are JSON pointers where a ``*`` token stands for every item of an array; each ``*`` of
    ``hash_of`` is the item the same ``*`` of ``field`` is in. What is hashed: a string's UTF-8, any
    other value's canonical JSON (sorted keys, no spaces, UTF-8), without ``field`` when it is inside.
    """

    field: str
    hash_of: str
    algorithm: str


@dataclass(frozen=True)
class FreshnessRule:
    """``field`` holds an RFC 3339 date-time no older than ``max_age`` seconds (None: any age) and no
    later than now plus ``skew`` seconds. Paths as in ``IntegrityRule``."""

    field: str
    max_age: float | None = None
    skew: float = 60.0


@dataclass(frozen=True)
class Confirmation:
    """When a call needs a human's confirmation before it runs, and what the human is asked.

    ``when`` is a JSON Schema over the arguments (a call it accepts needs confirmation), or None for
    every call. ``summary`` names arguments as ``{name}``; the guard fills them in (secrets scrubbed).
    """

    summary: str
    when: Mapping[str, JSON] | None = None


@dataclass(frozen=True)
class Precondition:
    """A business rule checked before the implementation runs: a call ``when`` accepts is refused
    with ``code`` and ``message``."""

    when: Mapping[str, JSON]
    code: str
    message: str


@dataclass(frozen=True)
class Example:
    summary: str
    arguments: Mapping[str, JSON]


@dataclass(frozen=True)
class Contract:
    """One version of one tool's contract."""

    name: str
    version: str
    summary: str
    description: str
    input_schema: Mapping[str, JSON]
    output_schema: Mapping[str, JSON]
    title: str | None = None
    errors: tuple[ErrorSpec, ...] = ()
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    timeout: Timeout = field(default_factory=Timeout)
    migrations: tuple[Migration, ...] = ()
    deprecation: Deprecation | None = None
    annotations: Annotations = field(default_factory=Annotations)
    empty_result: EmptyResult | None = None
    partial_results: bool = False  # the tool may return partial_results alongside an error
    #: JSON pointers to the arguments only the user can give: missing, they answer ``ask_user``
    user_supplied: tuple[str, ...] = ()
    examples: tuple[Example, ...] = ()
    dependency: Dependency | None = None
    #: when shared state (budget, breaker) cannot be reached: "allow" (fail open) or "refuse"
    state_unreachable: str = "allow"
    #: MCP ``Tool.icons`` and ``Tool._meta`` as the manifest gives them (served as they are)
    icons: tuple[Mapping[str, JSON], ...] = ()
    meta: Mapping[str, JSON] | None = None
    #: checked on every accepted result before it is returned (``runtime/result_rules.py``)
    result_rules: tuple[IntegrityRule | FreshnessRule, ...] = ()
    #: calls refused before the implementation runs, checked in order (confirmation.py)
    preconditions: tuple[Precondition, ...] = ()
    #: calls that run only once the host holds a human's confirmation (confirmation.py)
    confirmation: Confirmation | None = None

    @property
    def major(self) -> int:
        return int(self.version.split(".", 1)[0])
