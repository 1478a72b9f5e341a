"""The structural diff: walk two normalized schemas side by side and keep every node pair that differs.

Rules never walk schemas themselves; they look at these pairs. A pair's ``pointer`` is logical (the
path through ``properties``/``items``/branches after ``$ref``s are followed), so moving a schema into
``$defs`` changes nothing, while ``old.source``/``new.source`` still locate it in each manifest.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ..ir import ToolVersion
from ..runtime.pointer import escape_token
from .model import ITEM, Direction, Step
from .normalize import Node, Normalizer, canonical, types_of


@dataclass(frozen=True, eq=False)
class SchemaPair:
    """One schema position in both versions. ``old``/``new`` is None where the position is absent."""

    direction: Direction
    pointer: str
    old: Node | None
    new: Node | None
    steps: tuple[Step, ...] = ()
    #: for a property position: its name and the object pairs holding it
    name: str | None = None
    parent: SchemaPair | None = None

    def changed(self, keyword: str) -> bool:
        return canonical(_get(self.old, keyword)) != canonical(_get(self.new, keyword))

    def has(self, side: str, keyword: str) -> bool:
        node = self.old if side == "old" else self.new
        return node is not None and keyword in node

    @property
    def both(self) -> bool:
        return self.old is not None and self.new is not None

    @property
    def shared_types(self) -> frozenset[str]:
        """JSON types both sides admit here (keywords for other types cannot matter to callers)."""
        return types_of(self.old) & types_of(self.new) if self.both else frozenset()

    def child_steps(self, name: str, schema: Any) -> tuple[Step, ...]:
        return (*self.steps, Step(name, schema))

    @property
    def old_required(self) -> bool:
        return self.name is not None and self.parent is not None and self.parent.old is not None and \
            self.name in self.parent.old.get("required", ())

    @property
    def new_required(self) -> bool:
        return self.name is not None and self.parent is not None and self.parent.new is not None and \
            self.name in self.parent.new.get("required", ())


def _get(node: Mapping[str, Any] | None, keyword: str) -> Any:
    return None if node is None else node.get(keyword)


@dataclass(frozen=True, eq=False)
class ToolPair:
    """Two versions of one tool (or of a renamed tool) to compare, with their structural diff."""

    old: ToolVersion
    new: ToolVersion
    old_label: str = ""
    new_label: str = ""

    @cached_property
    def old_input(self) -> Node:
        return Normalizer(self.old.contract.input_schema, "/input").normalize()

    @cached_property
    def new_input(self) -> Node:
        return Normalizer(self.new.contract.input_schema, "/input").normalize()

    @cached_property
    def old_output(self) -> Node:
        return Normalizer(self.old.contract.output_schema, "/output").normalize()

    @cached_property
    def new_output(self) -> Node:
        return Normalizer(self.new.contract.output_schema, "/output").normalize()

    @cached_property
    def input_pairs(self) -> tuple[SchemaPair, ...]:
        return tuple(walk(Direction.INPUT, "/input", self.old_input, self.new_input))

    @cached_property
    def output_pairs(self) -> tuple[SchemaPair, ...]:
        return tuple(walk(Direction.OUTPUT, "/output", self.old_output, self.new_output))

    def pairs(self, direction: Direction) -> tuple[SchemaPair, ...]:
        return self.input_pairs if direction is Direction.INPUT else self.output_pairs


@dataclass(frozen=True)
class ToolChange:
    """A tool present in only one tree, or renamed (``old`` and ``new`` with different names)."""

    old: ToolVersion | None
    new: ToolVersion | None
    #: the tool still has other versions on the new side (a version line was dropped)
    other_versions: tuple[str, ...] = field(default=())


def walk(direction: Direction, pointer: str, old: Node, new: Node) -> Iterator[SchemaPair]:
    root = SchemaPair(direction, pointer, old, new)
    yield from _walk(root)


def _walk(pair: SchemaPair) -> Iterator[SchemaPair]:
    old, new = pair.old, pair.new
    if old is None or new is None:
        yield pair
        return
    if canonical(old) == canonical(new):
        return
    yield pair
    shared = pair.shared_types
    object_shared = "object" in shared
    old_props: Mapping[str, Node] = old.get("properties", {}) if object_shared else {}
    new_props: Mapping[str, Node] = new.get("properties", {}) if object_shared else {}
    for name in sorted(set(old_props) | set(new_props)):
        child_old, child_new = old_props.get(name), new_props.get(name)
        child = SchemaPair(pair.direction, f"{pair.pointer}/properties/{escape_token(name)}", child_old, child_new,
                           pair.child_steps(name, child_old if child_old is not None else child_new),
                           name=name, parent=pair)
        if child_old is None or child_new is None:
            yield child
        else:
            yield from _walk(child)
    if ("items" in old or "items" in new) and "array" in shared:
        old_items, new_items = old.get("items", Node()), new.get("items", Node())
        if isinstance(old_items, Node) and isinstance(new_items, Node):
            yield from _walk(SchemaPair(pair.direction, f"{pair.pointer}/items", old_items, new_items,
                                        pair.child_steps(ITEM, old_items), parent=pair))
    for keyword in ("anyOf", "oneOf"):
        yield from _walk_branches(pair, keyword)
    old_all, new_all = old.get("allOf", []), new.get("allOf", [])
    if len(old_all) == len(new_all):
        for index, (a, b) in enumerate(zip(old_all, new_all)):
            yield from _walk(SchemaPair(pair.direction, f"{pair.pointer}/allOf/{index}", a, b, pair.steps,
                                        parent=pair))


def _walk_branches(pair: SchemaPair, keyword: str) -> Iterator[SchemaPair]:
    """Branches equal on both sides are matched wherever they sit; the rest pair up in order."""
    assert pair.old is not None and pair.new is not None
    old_branches: list[Node] = pair.old.get(keyword, [])
    new_branches: list[Node] = pair.new.get(keyword, [])
    new_keys = [canonical(b) for b in new_branches]
    old_keys = [canonical(b) for b in old_branches]
    unmatched_old = [i for i, key in enumerate(old_keys) if key not in new_keys]
    unmatched_new = [i for i, key in enumerate(new_keys) if key not in old_keys]
    for i, j in zip(unmatched_old, unmatched_new):
        yield from _walk(SchemaPair(pair.direction, f"{pair.pointer}/{keyword}/{j}", old_branches[i],
                                    new_branches[j], pair.steps, parent=pair))


def unmatched_branches(pair: SchemaPair, keyword: str) -> tuple[list[Node], list[Node]]:
    """Branches only on one side that the walk could not pair up: (removed, added)."""
    old_branches: list[Node] = list(pair.old.get(keyword, [])) if pair.old is not None else []
    new_branches: list[Node] = list(pair.new.get(keyword, [])) if pair.new is not None else []
    if not new_branches and pair.new is not None:
        # `anyOf: [A, B]` became plain `A`: the new schema itself is the one branch left
        new_branches = [Node({k: v for k, v in pair.new.items() if k not in ("anyOf", "oneOf", "default")})]
    if not old_branches and pair.old is not None:
        old_branches = [Node({k: v for k, v in pair.old.items() if k not in ("anyOf", "oneOf", "default")})]
    new_keys = [canonical(b) for b in new_branches]
    old_keys = [canonical(b) for b in old_branches]
    removed = [b for b, key in zip(old_branches, old_keys) if key not in new_keys]
    added = [b for b, key in zip(new_branches, new_keys) if key not in old_keys]
    paired = min(len(removed), len(added))
    return removed[paired:], added[paired:]
