"""Static types of the envelope (TypedDicts for ok and error) and of implementations (sync or async).

Types only: at run time an envelope is a plain dict, built by ``envelope.py`` and the guard.
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Generic, Literal, TypeVar

if sys.version_info >= (3, 11):
    from typing import NotRequired, TypedDict
else:  # generic TypedDicts need typing_extensions before 3.11 (pydantic depends on it)
    from typing_extensions import NotRequired, TypedDict
if sys.version_info >= (3, 13):
    from typing import TypeVar as DefaultTypeVar
else:  # TypeVar defaults (PEP 696) need typing_extensions before 3.13
    from typing_extensions import TypeVar as DefaultTypeVar

#: The input model an implementation takes and the output model it returns.
InT = TypeVar("InT")
OutT = TypeVar("OutT")
OutT_co = TypeVar("OutT_co", covariant=True)

#: A JSON object as it crosses the wire (what the guard puts in ``output``).
JsonObject = dict[str, Any]
#: The type of ``output`` in a tool's ok envelopes: generated stubs name their output's TypedDict
#: (``GetExchangeRateV1OutputJson``). Left out (``GuardedTool[In, Out]``, bare ``Envelope``) it is
#: ``Any``, so code written before it was a parameter, and code that takes any tool, keeps working.
WireT = DefaultTypeVar("WireT", default=Any)
#: Call arguments: any JSON object (the guard checks it against the input schema).
Arguments = Mapping[str, Any]

Code = Literal["INVALID_ARGUMENT", "VERSION_MISMATCH", "NOT_FOUND", "CONFLICT", "FAILED_PRECONDITION",
               "PERMISSION_DENIED", "RATE_LIMITED", "UNAVAILABLE", "TIMEOUT", "INTERNAL",
               "CONFIRMATION_REQUIRED", "CONFIRMATION_DENIED"]
Action = Literal["fix_arguments", "retry_later", "stop_and_tell_user", "escalate", "confirm_with_user"]
Category = Literal["validation", "business", "permission", "transient", "internal"]

#: A sync implementation of a tool: takes the input model and returns the output model (checked
#: statically) or a JSON object (checked by the guard at run time against the output schema).
SyncImplementation = Callable[[InT], OutT | JsonObject]
#: An async implementation (``async def``): the same, awaited.
AsyncImplementation = Callable[[InT], Awaitable[OutT | JsonObject]]
#: What a stub's ``implement`` takes, where the output's JSON form is
#: known: the implementation may also return that form typed (the TypedDict).
TypedSyncImplementation = Callable[[InT], OutT | WireT | JsonObject]
TypedAsyncImplementation = Callable[[InT], Awaitable[OutT | WireT | JsonObject]]


class ErrorBody(TypedDict):
    """The ``error`` object of an error envelope; docs/runtime.md describes every key."""

    code: Code
    category: Category
    message: str
    action: Action
    retryable: bool
    retry_after: NotRequired[float]
    field: NotRequired[str]
    constraint: NotRequired[str]
    expected: NotRequired[str]
    attempted: NotRequired[Any]
    violations: NotRequired[list[dict[str, Any]]]
    violations_omitted: NotRequired[int]
    partial_results: NotRequired[Any]
    ref: NotRequired[str]
    expected_version: NotRequired[str]
    received_version: NotRequired[str]
    migration: NotRequired[list[Any]]
    budget: NotRequired[dict[str, Any]]
    upstream: NotRequired[dict[str, Any]]
    confirmation: NotRequired[dict[str, Any]]  # {"summary": what the user is asked to confirm}


class Notice(TypedDict):
    """Something the model should know about a call that succeeded (an argument name that looks
    misspelt on a schema that accepts other keys); docs/runtime.md describes it."""

    field: str
    message: str
    did_you_mean: str


class DeprecationNotice(TypedDict):
    """On a deprecated version's first success in a session: what replaces it and how to move
    (``runtime/deprecation_notice.py``); docs/runtime.md describes it."""

    message: str
    replacement: NotRequired[str]
    sunset: NotRequired[str]
    migration: NotRequired[list[str]]


class OkEnvelope(TypedDict, Generic[OutT_co]):
    """A success: ``output`` is the result in its wire (JSON) form, checked against the output schema;
    its type is the tool's output TypedDict (aliases as keys, dates as strings), never the model."""

    status: Literal["ok"]
    tool: str
    version: str
    output: OutT_co
    empty: bool
    empty_meaning: NotRequired[str]
    #: what an empty result searched for (the output's value at ``empty_result.attempted``), capped
    attempted: NotRequired[Any]
    notices: NotRequired[list[Notice]]
    deprecation: NotRequired[DeprecationNotice]


class ErrorEnvelope(TypedDict):
    """A failure: one closed-set code, its action, and a message the model can act on."""

    status: Literal["error"]
    tool: str
    version: str
    error: ErrorBody


#: What a guarded call answers; narrow it with ``if envelope["status"] == "ok":``. A tool's calls
#: answer ``Envelope[<its output TypedDict>]``; the bare ``Envelope`` accepts every tool's envelopes.
Envelope = OkEnvelope[WireT] | ErrorEnvelope
