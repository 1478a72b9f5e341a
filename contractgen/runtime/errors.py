"""Typed tool errors: ``ToolError`` and the subclasses generated per declared error.

Raising one inside an implementation yields exactly its declared envelope; anything else becomes
INTERNAL. The message of a ToolError is model-facing text written by the author, never an
exception string from a library.
"""

from __future__ import annotations

from typing import Any, ClassVar

from .codes import CODES
from .contract import ErrorSpec


class ToolError(Exception):
    """Base typed error. Subclasses set ``spec`` to the declared error they stand for.

    ``message`` overrides the declared message (keep it model-facing); ``code`` picks a code from the
    closed set when there is no spec; ``field`` is a JSON pointer into the arguments; ``upstream`` is
    text from an external system, quoted in the envelope as untrusted data only; ``attempted`` is
    what the tool actually tried (the query it ran, the id it looked up), echoed to the model
    redacted and capped like an argument (at ``field`` when given, else as the whole arguments).
    """

    spec: ClassVar[ErrorSpec | None] = None

    def __init__(self, message: str | None = None, *, code: str | None = None,
                 field: str | None = None, retry_after: float | None = None,
                 partial_results: Any = None, retryable: bool | None = None,
                 action: str | None = None, upstream: Any = None, attempted: Any = None) -> None:
        spec = type(self).spec
        self.code: str = code or (spec.code if spec is not None else "INTERNAL")
        declared = spec.message if spec is not None and spec.code == self.code else None
        self.message: str = message or declared or _default_message(self.code)
        self.field: str | None = field if field is not None else (spec.field if spec else None)
        self.retry_after: float | None = (
            retry_after if retry_after is not None else (spec.retry_after if spec else None))
        self.partial_results: Any = partial_results
        self.retryable: bool | None = retryable if retryable is not None else (
            spec.retryable if spec is not None else None)
        self.action: str | None = action if action is not None else (
            spec.action if spec is not None else None)
        self.upstream: Any = upstream
        self.attempted: Any = attempted
        super().__init__(self.message)

    @classmethod
    def for_spec(cls, spec: ErrorSpec) -> type[ToolError]:
        """A ToolError subclass standing for ``spec`` (what generated code writes out by hand)."""
        return type(spec.class_name, (cls,), {"spec": spec, "__doc__": spec.description or spec.message,
                                               "__module__": cls.__module__})

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code!r}, message={self.message!r})"


class VersionMismatchError(ToolError):
    """The call is shaped like another version of the contract (raised by the guard, or by hand)."""

    def __init__(self, message: str | None = None, *, expected_version: str | None = None,
                 received_version: str | None = None, migration: tuple[str, ...] | list[str] = (),
                 field: str | None = None) -> None:
        super().__init__(message, code="VERSION_MISMATCH", field=field)
        self.expected_version = expected_version
        self.received_version = received_version
        self.migration = tuple(migration)


def _default_message(code: str) -> str:
    entry = CODES.get(code)
    return entry.meaning if entry is not None else CODES["INTERNAL"].meaning
