"""Where a call's secrets sit, decided once per input schema: the positions redaction marks (through
references and combinators, resolved when a position is first reached), the marked member names,
whether a position hides a value whole; a call then only reads its own values (``scrub.output_scrub``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .jsonvalue import names_within
from .redaction import REDACTED, sensitive_name
from .schema_resolve import (
    applicable,
    declared_properties,
    describes_members,
    marked_below,
    marked_member_names,
    marked_member_patterns,
    marks_anything,
    member_nodes,
    names_marked,
)
from .schema_walk import is_marked

#: Containers, names and members of a call read here at most: far below every cap of the general
#: reading (``scrub._secrets_in``: 1,000 texts per value, 5,000 names), so both read a call whole.
MAX_NODES = 900
#: Where redaction stops walking and shows ``…`` (``redaction._redact``): a call reaching deeper is
#: read the general way.
MAX_DEPTH = 20
#: Member keys kept per position (the declared ones, and a few a model invents).
_MEMBERS_KEPT = 256
_SCALARS = frozenset({str, int, float, bool, type(None)})


class _Position:
    """The schemas that apply at one position of a call (as ``applicable`` resolves them) and what
    redaction decides there: marked (the value is a secret whole), or holding marks below, where a
    value of a shape the schemas do not describe is hidden whole (astray, or for marked names)."""

    __slots__ = ("arrays", "holds", "marked", "members", "nodes", "objects", "uniform_items")

    def __init__(self, nodes: list[Any], root: Any, resources: Mapping[str, Any] | None) -> None:
        self.nodes = nodes
        self.marked = any(is_marked(node) for node in nodes)
        self.holds = bool(nodes) and marked_below(nodes, root, resources)
        self.objects = describes_members(nodes, of_array=False) and not names_marked(nodes, root, resources)
        self.arrays = describes_members(nodes, of_array=True)
        # an item's schemas depend on its index only through prefixItems, patterns or a digit name
        self.uniform_items = not any(
            isinstance(node, Mapping) and ("prefixItems" in node or "patternProperties" in node
                                           or any(str(name).isdigit() for name in node.get("properties") or ()))
            for node in nodes)
        self.members: dict[str, tuple[bool, _Position | None]] = {}


class SecretPositions:
    """``plan(arguments)``: the values of ``arguments`` whose texts are secrets, as
    ``scrub.secrets_sent`` finds them (under a marked or secret-looking name anywhere, or at a
    marked position, unless the value there is ``[redacted]`` itself); [] when the call sent none.
    None when the call leaves what the plan reads (a value of a shape the schema does not describe
    where marks lie below, a deep or big call, a type that is not exact JSON): read it the general
    way."""

    def __init__(self, schema: Any, resources: Mapping[str, Any] | None = None) -> None:
        self.root, self.resources = schema, resources
        self.marks = marks_anything(schema, resources)
        self.wanted = marked_member_names(schema, resources)
        self.readable = not marked_member_patterns(schema, resources)
        #: names declared anywhere that neither look like a secret's nor are marked where declared
        self.plain_names = frozenset(name for properties in declared_properties(schema, resources)
                                     for name in properties if not sensitive_name(name)) - self.wanted
        self._positions: dict[tuple[int, ...], _Position | None] = {}
        self.top = self._position(applicable([schema], schema, resources)) if self.marks else None

    def _position(self, nodes: list[Any]) -> _Position | None:
        """The position of ``nodes``; None where nothing is marked there or below (only names count)."""
        key = tuple(map(id, nodes))
        if key not in self._positions:
            position = _Position(nodes, self.root, self.resources)
            self._positions[key] = position if position.marked or position.holds else None
        return self._positions[key]

    def _member(self, position: _Position, name: str) -> tuple[bool, _Position | None]:
        """(whether a schema describes the member ``name``, its position)."""
        found = position.members.get(name)
        if found is None:
            nodes = member_nodes(position.nodes, name, self.root, self.resources)
            found = (any(n is True or isinstance(n, Mapping) for n in nodes), self._position(nodes))
            if len(position.members) < _MEMBERS_KEPT:
                position.members[name] = found
        return found

    def __call__(self, arguments: Any) -> list[Any] | None:
        if not self.readable:
            return None
        if not self.marks:  # only a name can make a secret: [] unless one looks like a secret's
            return [] if names_within(arguments, self.plain_names, MAX_NODES) else None
        taken: list[Any] = []
        seen = 0
        todo: list[tuple[Any, _Position | None, int]] = [(arguments, self.top, 0)]
        while todo:
            value, position, depth = todo.pop()
            seen += 1
            kind = type(value)
            if position is not None:
                if position.marked:
                    if value != REDACTED:
                        taken.append(value)
                    continue
                if position.holds and not (kind is dict and position.objects or kind is list and position.arrays):
                    return None  # hidden whole by redaction
            if depth > MAX_DEPTH:
                return None
            if kind is dict:
                seen += len(value)
                if seen > MAX_NODES:
                    return None
                for name, member in value.items():
                    if type(name) is not str:
                        return None
                    if name in self.wanted or sensitive_name(name):
                        taken.append(member)  # whatever lies inside is taken with it
                        continue
                    child = None
                    if position is not None:
                        described, child = self._member(position, name)
                        if position.holds and not described:
                            return None  # an undeclared member beside a secret: astray
                    todo.append((member, child, depth + 1))
            elif kind is list:
                seen += len(value)
                if seen > MAX_NODES:
                    return None
                for index, member in enumerate(value):
                    child = None
                    if position is not None:
                        described, child = self._member(position, "0" if position.uniform_items else str(index))
                        if position.holds and not described:
                            return None
                    todo.append((member, child, depth + 1))
            elif kind not in _SCALARS or seen > MAX_NODES:
                return None
        return taken
