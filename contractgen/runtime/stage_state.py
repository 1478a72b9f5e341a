"""What every stage of the guard reads of its tool: the contract compiled once (the schema checks and
the version check, cached per contract), and the options and decisions made when the tool was built.

The stages are layered, each a module that owns one concern and builds on the ones below it:
``stage_failures`` (failures into envelopes) <- ``stage_settle`` (results into envelopes) <-
``stage_run`` (inline, worker thread under a deadline, or awaited) <- ``stage_arguments`` (the
private copy, the version and input checks) <- ``stage_account`` (the failure budget, the record);
``guard.GuardedTool`` is the facade on top, and its ``__init__`` is where a tool's plan is decided.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from .argument_errors import ShapedErrors
from .budget import BudgetStore
from .capacity import Capacity
from .confirmation import Gate
from .contract import Contract, EmptyResult
from .errors import ToolError
from .observe import CallRecord
from .schema_check import SchemaCheck
from .versions import VersionCheck
from .wording import RESULT, Violation


class _Compiled:
    """What a contract compiles to once: the schema checks and the version check."""

    def __init__(self, contract: Contract, resources: Any, formats: bool) -> None:
        self.input = SchemaCheck(contract.input_schema, resources=resources, formats=formats)
        self.output = SchemaCheck(contract.output_schema, resources=resources, formats=formats, subject=RESULT)
        self.versions = VersionCheck(contract)


_CACHE: dict[tuple[int, bool], tuple[Contract, _Compiled]] = {}
_CACHE_LOCK = threading.Lock()
_CACHE_LIMIT = 512


def compiled_for(contract: Contract, *, resources: Any = None, formats: bool = True) -> _Compiled:
    """Compiled checks for a contract, cached per contract object (contracts are frozen)."""
    if resources:
        return _Compiled(contract, resources, formats)
    key = (id(contract), formats)
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is contract:
        return hit[1]
    compiled = _Compiled(contract, None, formats)
    with _CACHE_LOCK:
        if len(_CACHE) >= _CACHE_LIMIT:  # contracts made on the fly must not pile up forever
            _CACHE.clear()
        _CACHE[key] = (contract, compiled)  # holding the contract keeps its id from being reused
    return compiled


class ToolState:
    """The attributes every stage reads (set by ``GuardedTool.__init__``)."""

    contract: Contract
    name: str
    version: str
    description: str
    implementation: Callable[[Any], Any]
    input_model: Any
    output_model: Any
    errors: tuple[type[ToolError], ...]
    budget: BudgetStore
    _shared_store: bool
    _counts_async: bool
    mapper: Callable[[BaseException], ToolError | None] | None
    transport_errors: bool
    invalid_output_code: str
    capacity: Capacity
    blocks_event_loop: bool
    _hooks: Any
    _on_call: Callable[[CallRecord], None] | None
    _mappers: tuple[Callable[[BaseException], ToolError | None], ...]
    _formats: bool
    _resources: Any
    _compiled: _Compiled
    _is_async: bool
    _timeout: float | None
    _inline: bool
    _limit: int | None
    _retryable_codes: frozenset[str]
    _keys: dict[str, str]
    _argument_errors: dict[Any, tuple[list[Violation], int, dict[str, Any]]]
    _shaped_errors: ShapedErrors
    _input_is_valid: Callable[[Any], bool]
    _output_is_valid: Callable[[Any], bool]
    _old_keys: frozenset[str]
    _empty_rule: EmptyResult | None
    _gate: Gate | None
    _result_rules: Callable[[Any], list[str]] | None
    _deprecation_notice: Callable[[dict[str, Any], str], None] | None
    _open_names: frozenset[str] | None
    _declared: frozenset[str]
    _output_scrub: Callable[[Any, Any], Any] | None
