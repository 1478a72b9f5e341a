"""``ToolStub``: what generated code instantiates per tool version; ``implement`` attaches your code.

Generic in the input and output models, so a type checker holds the implementation to the contract.
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping, Sequence
from typing import Any, Generic, Protocol, overload

from .budget import BudgetStore
from .contract import Contract
from .envelope_types import AsyncImplementation, InT, OutT, SyncImplementation
from .errors import ToolError
from .guard import GuardedTool, Mapper, guard
from .observe import CallRecord


class Implementer(Protocol[InT, OutT]):
    """What ``implement(...)`` with options returns: a decorator for a sync or async function."""

    @overload
    def __call__(self, fn: SyncImplementation[InT, OutT], /) -> GuardedTool[InT, OutT]: ...
    @overload
    def __call__(self, fn: AsyncImplementation[InT, OutT], /) -> GuardedTool[InT, OutT]: ...


class ToolStub(Generic[InT, OutT]):
    """What generated code instantiates per tool version; ``implement`` attaches the code."""

    @overload
    def __init__(self, contract: Contract, *, input_model: type[InT], output_model: type[OutT],
                 errors: Sequence[type[ToolError]] = (), description: str = "") -> None: ...
    @overload
    def __init__(self: ToolStub[Any, Any], contract: Contract, *, input_model: None = None,
                 output_model: None = None, errors: Sequence[type[ToolError]] = (),
                 description: str = "") -> None: ...
    def __init__(self, contract: Contract, *, input_model: type[InT] | None = None,
                 output_model: type[OutT] | None = None, errors: Sequence[type[ToolError]] = (),
                 description: str = "") -> None:
        self.contract = contract
        self.name = contract.name
        self.version = contract.version
        self.input_model = input_model
        self.output_model = output_model
        self.errors = tuple(errors)
        self.description = description or contract.description

    # a typed function matches at most one form (a coroutine is not an output), so the order only
    # picks which expectation mypy quotes when neither matches: the sync one, the common case
    @overload
    def implement(self, fn: SyncImplementation[InT, OutT], /, *,
                  state: BudgetStore | MutableMapping[str, Any] | None = None,
                  on_call: Callable[[CallRecord], None] | None = None,
                  mapper: Mapper | None = None, **options: Any) -> GuardedTool[InT, OutT]: ...
    @overload
    def implement(self, fn: AsyncImplementation[InT, OutT], /, *,
                  state: BudgetStore | MutableMapping[str, Any] | None = None,
                  on_call: Callable[[CallRecord], None] | None = None,
                  mapper: Mapper | None = None, **options: Any) -> GuardedTool[InT, OutT]: ...
    @overload
    def implement(self, fn: None = None, /, *,
                  state: BudgetStore | MutableMapping[str, Any] | None = None,
                  on_call: Callable[[CallRecord], None] | None = None,
                  mapper: Mapper | None = None, **options: Any) -> Implementer[InT, OutT]: ...
    def implement(self, fn: Callable[[InT], Any] | None = None, /, *,
                  state: BudgetStore | MutableMapping[str, Any] | None = None,
                  on_call: Callable[[CallRecord], None] | None = None,
                  mapper: Mapper | None = None, **options: Any) -> Any:
        """Decorator (bare or with options): returns the GuardedTool for ``fn``."""

        def attach(f: Callable[[InT], Any]) -> GuardedTool[InT, OutT]:
            return guard(self.contract, f, input_model=self.input_model,
                         output_model=self.output_model, errors=self.errors, state=state,
                         on_call=on_call, description=self.description, mapper=mapper, **options)

        return attach(fn) if fn is not None else attach

    def error(self, class_name: str) -> type[ToolError]:
        for cls in self.errors:
            if cls.__name__ == class_name or (cls.spec is not None and cls.spec.class_name == class_name):
                return cls
        raise KeyError(class_name)

    def __repr__(self) -> str:
        return f"<ToolStub {self.name} {self.version}>"
