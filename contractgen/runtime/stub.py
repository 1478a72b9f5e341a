"""``ToolStub``: what generated code instantiates per tool version; ``implement`` attaches your code.

Generic in the input and output models, so a type checker holds the implementation to the contract,
and in the output's JSON form (a TypedDict), which types ``envelope["output"]`` of every call.
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping, Sequence
from typing import Any, Generic, Protocol, overload

from .budget import BudgetStore
from .contract import Contract
from .envelope_types import InT, OutT, TypedAsyncImplementation, TypedSyncImplementation, WireT
from .errors import ToolError
from .guard import GuardedTool, guard
from .observe import CallRecord
from .stage_failures import Mapper


class Implementer(Protocol[InT, OutT, WireT]):
    """What ``implement(...)`` with options returns: a decorator for a sync or async function."""

    @overload
    def __call__(self, fn: TypedSyncImplementation[InT, OutT, WireT], /) -> GuardedTool[InT, OutT, WireT]: ...
    @overload
    def __call__(self, fn: TypedAsyncImplementation[InT, OutT, WireT], /) -> GuardedTool[InT, OutT, WireT]: ...


class ToolStub(Generic[InT, OutT, WireT]):
    """What generated code instantiates per tool version; ``implement`` attaches the code.

    ``WireT`` (the output's TypedDict) comes from the annotation generated code writes
    (``ToolStub[In, Out, OutJson]``); ``ToolStub[In, Out]`` leaves ``output`` untyped (``Any``).
    """

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
    def implement(self, fn: TypedSyncImplementation[InT, OutT, WireT], /, *,
                  state: BudgetStore | MutableMapping[str, Any] | None = None,
                  on_call: Callable[[CallRecord], None] | None = None,
                  mapper: Mapper | None = None, **options: Any) -> GuardedTool[InT, OutT, WireT]: ...
    @overload
    def implement(self, fn: TypedAsyncImplementation[InT, OutT, WireT], /, *,
                  state: BudgetStore | MutableMapping[str, Any] | None = None,
                  on_call: Callable[[CallRecord], None] | None = None,
                  mapper: Mapper | None = None, **options: Any) -> GuardedTool[InT, OutT, WireT]: ...
    @overload
    def implement(self, fn: None = None, /, *,
                  state: BudgetStore | MutableMapping[str, Any] | None = None,
                  on_call: Callable[[CallRecord], None] | None = None,
                  mapper: Mapper | None = None, **options: Any) -> Implementer[InT, OutT, WireT]: ...
    def implement(self, fn: Callable[[InT], Any] | None = None, /, *,
                  state: BudgetStore | MutableMapping[str, Any] | None = None,
                  on_call: Callable[[CallRecord], None] | None = None,
                  mapper: Mapper | None = None, **options: Any) -> Any:
        """Decorator (bare or with options): returns the GuardedTool for ``fn``."""

        def attach(f: Callable[[InT], Any]) -> GuardedTool[InT, OutT, WireT]:
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
