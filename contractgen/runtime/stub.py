"""``ToolStub``: what generated code instantiates per tool version; ``implement`` attaches your code."""

from __future__ import annotations

from collections.abc import Callable, MutableMapping, Sequence
from typing import Any

from .budget import BudgetStore
from .contract import Contract
from .errors import ToolError
from .guard import GuardedTool, Mapper, guard
from .observe import CallRecord


class ToolStub:
    """What generated code instantiates per tool version; ``implement`` attaches the code."""

    def __init__(self, contract: Contract, *, input_model: type | None = None,
                 output_model: type | None = None, errors: Sequence[type[ToolError]] = (),
                 description: str = "") -> None:
        self.contract = contract
        self.name = contract.name
        self.version = contract.version
        self.input_model = input_model
        self.output_model = output_model
        self.errors = tuple(errors)
        self.description = description or contract.description

    def implement(self, fn: Callable[..., Any] | None = None, *,
                  state: BudgetStore | MutableMapping[str, Any] | None = None,
                  on_call: Callable[[CallRecord], None] | None = None,
                  mapper: Mapper | None = None, **options: Any) -> Any:
        """Decorator (bare or with options): returns the GuardedTool for ``fn``."""

        def attach(f: Callable[..., Any]) -> GuardedTool:
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
