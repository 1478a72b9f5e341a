"""A generated package's registry, loaded lazily: each tool module is imported when first used.

``import generated`` then costs the registry alone; a server that serves ten of a thousand tools
imports those ten (each module's pydantic models are most of a tool's import time).
"""

from __future__ import annotations

import importlib
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar

_V = TypeVar("_V")


class LazyAttributes(Mapping[str, _V]):
    """``{module name: that module's attribute}`` for the tool modules of ``package``; reading an
    entry imports its module (once), iterating reads names only."""

    def __init__(self, package: str, attributes: Mapping[str, str]) -> None:
        self._package = package
        self._attributes = dict(attributes)
        self._values: dict[str, _V] = {}

    def __getitem__(self, module: str) -> _V:
        try:
            return self._values[module]
        except KeyError:
            attribute = self._attributes[module]  # KeyError for a name the package does not have
        value: _V = getattr(importlib.import_module(f"{self._package}.{module}"), attribute)
        self._values[module] = value
        return value

    def __iter__(self) -> Iterator[str]:
        return iter(self._attributes)

    def __len__(self) -> int:
        return len(self._attributes)

    def __contains__(self, module: object) -> bool:
        return module in self._attributes

    def __repr__(self) -> str:
        loaded = len(self._values)
        return f"<{len(self)} entries of {self._package}, {loaded} loaded>"


def lazy_exports(package: str, modules: tuple[str, ...],
                 lists: Mapping[str, tuple[str, tuple[str, ...]]]) -> Callable[[str], Any]:
    """The package's ``__getattr__`` (PEP 562): a tool module by its name, or one of ``lists``
    (``{export: (attribute, modules)}``, e.g. ``MCP_TOOLS`` from the newest modules), built on first
    use and kept in the package's namespace."""
    lock = threading.Lock()

    def __getattr__(name: str) -> Any:
        if name in modules:
            return importlib.import_module(f"{package}.{name}")
        if name not in lists:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        attribute, sources = lists[name]
        with lock:
            namespace = vars(sys.modules[package])
            if name not in namespace:
                namespace[name] = [getattr(importlib.import_module(f"{package}.{m}"), attribute) for m in sources]
            return namespace[name]

    return __getattr__


__all__ = ["LazyAttributes", "lazy_exports"]
