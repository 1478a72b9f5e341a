"""contractgen's runtime: the envelope, typed errors and the guard that generated code imports.

It imports nothing from the compiler side (no jinja2, typer, datamodel-code-generator, manifest
loading); a test proves it in a fresh interpreter.
"""

from ._version import RUNTIME_VERSION, require_runtime
from .budget import BudgetStore, InMemoryBudgetStore, MappingBudgetStore
from .codes import ACTIONS, CATEGORIES, CODES, TRANSIENT_CODES
from .contract import (
    Annotations,
    Backoff,
    Breaker,
    Confirmation,
    Contract,
    Dependency,
    Deprecation,
    EmptyResult,
    ErrorSpec,
    Example,
    FreshnessRule,
    IntegrityRule,
    Migration,
    Precondition,
    RetryPolicy,
    Timeout,
)
from .envelope import ERROR_SIZE_CAP, MESSAGE_CAP, error_envelope, ok_envelope, untrusted
from .errors import ToolError, VersionMismatchError
from .guard import GuardedTool, guard
from .observe import CallRecord, CallStats
from .stage_failures import Mapper, exception_chain
from .stub import ToolStub
from .transport import make_transport_mapper, map_transport_error, parse_retry_after
from .wrap import contract_from_definition, wrap_tool

__all__ = [
    "ACTIONS",
    "CATEGORIES",
    "CODES",
    "ERROR_SIZE_CAP",
    "MESSAGE_CAP",
    "RUNTIME_VERSION",
    "TRANSIENT_CODES",
    "Annotations",
    "Backoff",
    "Breaker",
    "BudgetStore",
    "CallRecord",
    "CallStats",
    "Confirmation",
    "Contract",
    "Dependency",
    "Deprecation",
    "EmptyResult",
    "ErrorSpec",
    "Example",
    "FreshnessRule",
    "GuardedTool",
    "InMemoryBudgetStore",
    "IntegrityRule",
    "Mapper",
    "MappingBudgetStore",
    "Migration",
    "Precondition",
    "RetryPolicy",
    "Timeout",
    "ToolError",
    "ToolStub",
    "VersionMismatchError",
    "contract_from_definition",
    "error_envelope",
    "exception_chain",
    "guard",
    "make_transport_mapper",
    "map_transport_error",
    "ok_envelope",
    "parse_retry_after",
    "require_runtime",
    "untrusted",
    "wrap_tool",
]
