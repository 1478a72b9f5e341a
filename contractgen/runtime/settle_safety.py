"""Whether reading a tool's result runs none of its author's code, so the guard may read it on the
caller's event loop: plain JSON, and pydantic models without serializers of their own holding such
values. Anything else (a mapping subclass, a model with a serializer, an unknown object) may run
code that hangs when read, so under a deadline it is read on a worker thread (``guard.py``)."""

from __future__ import annotations

import datetime
import decimal
import uuid
from typing import Any

from .jsonvalue import MAX_DEPTH

#: exact types pydantic's Rust serializer turns into JSON without calling Python code of theirs
_SCALARS = frozenset({str, int, float, bool, type(None), datetime.datetime, datetime.date,
                      datetime.time, datetime.timedelta, uuid.UUID, decimal.Decimal})
_OWN_SERIALIZER_KINDS = ("function-plain", "function-wrap")
#: per model class: whether dumping it runs none of its author's code (classes are few; bounded anyway)
_MODEL_DUMPS_PLAINLY: dict[type, bool] = {}
_MODEL_MEMO_LIMIT = 1024


def reads_plainly(value: Any) -> bool:
    """Whether ``value`` is plain JSON, or pydantic models (and the stdlib scalars they dump) whose
    dumping runs no serializer or computed field of their author, nested at most MAX_DEPTH levels;
    False when reading it raises."""
    try:
        stack: list[tuple[Any, int]] = [(value, 0)]
        while stack:
            node, depth = stack.pop()
            kind = type(node)
            if kind in _SCALARS:
                continue
            if depth >= MAX_DEPTH:
                return False
            if kind is dict:
                if any(type(key) is not str for key in node):
                    return False
                members: Any = node.values()
            elif kind is list or kind is tuple:
                members = node
            elif _dumps_plainly(kind):
                extra = node.__pydantic_extra__
                if extra is not None and type(extra) is not dict:
                    return False
                members = [*vars(node).values(), *(extra or {}).values()]
            else:
                return False
            stack.extend((member, depth + 1) for member in members if type(member) not in _SCALARS)
        return True
    except Exception:  # noqa: BLE001 - a value that cannot be read is not plain
        return False


def _dumps_plainly(kind: type) -> bool:
    known = _MODEL_DUMPS_PLAINLY.get(kind)
    if known is None:
        known = _without_own_serializer(kind)
        if len(_MODEL_DUMPS_PLAINLY) >= _MODEL_MEMO_LIMIT:
            _MODEL_DUMPS_PLAINLY.clear()
        _MODEL_DUMPS_PLAINLY[kind] = known
    return known


def _without_own_serializer(kind: type) -> bool:
    """A pydantic model class whose ``model_dump`` is pydantic's own and whose core schema (its
    fields' and nested models' included) holds no function serializer and no computed field."""
    try:
        from pydantic import BaseModel

        if not issubclass(kind, BaseModel) or kind.model_dump is not BaseModel.model_dump \
                or type(vars(kind).get("__dict__", None)) is property:
            return False
        todo: list[Any] = [kind.__pydantic_core_schema__]
        while todo:
            node = todo.pop()
            if isinstance(node, dict):
                serialization = node.get("serialization")
                if isinstance(serialization, dict) and serialization.get("type") in _OWN_SERIALIZER_KINDS:
                    return False
                if node.get("computed_fields"):
                    return False
                todo.extend(node.values())
            elif isinstance(node, (list, tuple)):
                todo.extend(node)
        return True
    except Exception:  # noqa: BLE001 - a class that cannot be inspected is read off the loop
        return False
