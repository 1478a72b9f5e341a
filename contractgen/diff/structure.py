"""The structural diff: walk two normalized schemas side by side and keep every node pair that differs.

Rules never walk schemas themselves; they look at these pairs. A pair's ``pointer`` is logical (the
path through ``properties``/``items``/branches after ``$ref``s are followed), so moving a schema into
``$defs`` changes nothing, while ``old.source``/``new.source`` still locate it in each manifest.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from functools import cached_property, lru_cache
from typing import Any

from ..ir import ToolVersion
from ..prover import ITEM, Step, regex_samples
from ..runtime.patterns import matches_any
from ..runtime.pointer import escape_token
from .model import Direction
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
    #: for a property renamed by a migration: its old name (``name`` is the new one)
    old_name: str | None = None

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
        name = self.old_name or self.name
        return name is not None and self.parent is not None and self.parent.old is not None and \
            name in self.parent.old.get("required", ())

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
        return tuple(walk(Direction.INPUT, "/input", self.old_input, self.new_input, self.renames))

    @cached_property
    def renames(self) -> tuple[tuple[str, str], ...]:
        """(old, new) input parameter names a migration of the new version renames for the old one."""
        from packaging.specifiers import InvalidSpecifier, SpecifierSet
        from packaging.version import InvalidVersion, Version

        try:
            old_version = Version(self.old.version)
        except InvalidVersion:
            return ()
        found: list[tuple[str, str]] = []
        for migration in self.new.contract.migrations:
            try:
                applies = SpecifierSet(migration.from_versions).contains(old_version, prereleases=True)
            except InvalidSpecifier:
                applies = False
            if applies:
                found.extend(migration.renamed)
        return tuple(found)

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


def walk(direction: Direction, pointer: str, old: Node, new: Node,
         renames: tuple[tuple[str, str], ...] = ()) -> Iterator[SchemaPair]:
    root = SchemaPair(direction, pointer, old, new)
    yield from _walk(root)
    yield from _walk_renamed(root, renames)


def _walk_renamed(root: SchemaPair, renames: tuple[tuple[str, str], ...]) -> Iterator[SchemaPair]:
    """A renamed top-level property is compared with its new name's schema, at the new pointer (the
    removal and the addition are still reported, and the migration text checked, as before)."""
    old_props: Mapping[str, Node] = root.old.get("properties", {}) if root.old is not None else {}
    new_props: Mapping[str, Node] = root.new.get("properties", {}) if root.new is not None else {}
    for old_name, new_name in renames:
        if old_name in old_props and old_name not in new_props and new_name in new_props and \
                new_name not in old_props:
            yield from _walk(SchemaPair(root.direction, f"{root.pointer}/properties/{escape_token(new_name)}",
                                        old_props[old_name], new_props[new_name],
                                        root.child_steps(old_name, old_props[old_name]), name=new_name,
                                        parent=root, old_name=old_name))


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
    if object_shared:
        yield from _walk_members(pair)
    if "array" in shared:
        yield from _walk_items(pair)
    for keyword in ("anyOf", "oneOf"):
        yield from _walk_branches(pair, keyword)
    old_all, new_all = old.get("allOf", []), new.get("allOf", [])
    if len(old_all) == len(new_all):
        for index, (a, b) in enumerate(zip(old_all, new_all)):
            yield from _walk(SchemaPair(pair.direction, f"{pair.pointer}/allOf/{index}", a, b, pair.steps,
                                        parent=pair))


def _walk_members(pair: SchemaPair) -> Iterator[SchemaPair]:
    """Members no property declares: each ``patternProperties`` schema both sides hold under the same
    regex, then ``additionalProperties`` where both sides give it a schema. The instance step is a
    name the schema applies to on both sides (a sample of the regex, or a name nothing else
    describes); without one the change stays the object's."""
    assert pair.old is not None and pair.new is not None
    old, new = pair.old, pair.new
    declared = set(old.get("properties", {})) | set(new.get("properties", {}))
    old_patterns: Mapping[str, Any] = old.get("patternProperties", {})
    new_patterns: Mapping[str, Any] = new.get("patternProperties", {})
    for regex in sorted(set(old_patterns) & set(new_patterns)):
        a, b = old_patterns[regex], new_patterns[regex]
        name = next((n for n in regex_samples(regex, 8) if n not in declared), None)
        if isinstance(a, Node) and isinstance(b, Node) and name is not None:
            yield from _walk(SchemaPair(pair.direction, f"{pair.pointer}/patternProperties/{escape_token(regex)}",
                                        a, b, pair.child_steps(name, a), parent=pair))
    a, b = old.get("additionalProperties"), new.get("additionalProperties")
    if isinstance(a, Node) and isinstance(b, Node) and _describes(a) and _describes(b):
        patterns = [*old_patterns, *new_patterns]
        name = next((n for n in _EXTRA_NAMES if n not in declared and matches_any(patterns, n) is False), None)
        if name is not None:
            yield from _walk(SchemaPair(pair.direction, f"{pair.pointer}/additionalProperties", a, b,
                                        pair.child_steps(name, a), parent=pair))


def _describes(schema: Node) -> bool:
    """An ``additionalProperties`` schema that says something of its members: not ``{}`` (anything),
    not ``false`` (closing the object is input-additional-properties-closed's)."""
    return bool(schema) and not (list(schema) == ["not"] and schema["not"] == {})


#: names tried for a member only ``additionalProperties`` describes (one no pattern matches)
_EXTRA_NAMES = ("extra", "x", "other", "z9", "_", "ZZ")


def _walk_items(pair: SchemaPair) -> Iterator[SchemaPair]:
    """Array members: each tuple slot (``prefixItems/i``) both sides declare, at its own index, then
    ``items``: every item, or in the tuple form the tail past the slots (only where both sides have as
    many slots, so the tail starts at the same index)."""
    assert pair.old is not None and pair.new is not None
    old_slots: list[Any] = list(pair.old.get("prefixItems", ()))
    new_slots: list[Any] = list(pair.new.get("prefixItems", ()))
    for index, (a, b) in enumerate(zip(old_slots, new_slots)):
        if isinstance(a, Node) and isinstance(b, Node):
            step = Step(ITEM, a, index=index, before=tuple(old_slots[:index]))
            yield from _walk(SchemaPair(pair.direction, f"{pair.pointer}/prefixItems/{index}", a, b,
                                        (*pair.steps, step), parent=pair))
    if ("items" in pair.old or "items" in pair.new) and len(old_slots) == len(new_slots):
        old_items, new_items = pair.old.get("items", Node()), pair.new.get("items", Node())
        if isinstance(old_items, Node) and isinstance(new_items, Node):
            step = Step(ITEM, old_items, index=len(old_slots), before=tuple(old_slots))
            yield from _walk(SchemaPair(pair.direction, f"{pair.pointer}/items", old_items, new_items,
                                        (*pair.steps, step), parent=pair))


def _walk_branches(pair: SchemaPair, keyword: str) -> Iterator[SchemaPair]:
    """Branches are paired by meaning wherever they sit (see ``match_branches``), never by position."""
    assert pair.old is not None and pair.new is not None
    old_branches: list[Node] = pair.old.get(keyword, [])
    new_branches: list[Node] = pair.new.get(keyword, [])
    matched, _, _ = match_branches(old_branches, new_branches)
    for i, j in matched:
        if canonical(old_branches[i]) != canonical(new_branches[j]):
            yield from _walk(SchemaPair(pair.direction, f"{pair.pointer}/{keyword}/{j}", old_branches[i],
                                        new_branches[j], pair.steps, parent=pair))


def match_branches(old: list[Node], new: list[Node]) -> tuple[list[tuple[int, int]], list[int], list[int]]:
    """Pairs (old index, new index), then the unpaired old and new indexes.

    Equal branches pair first; then, greedily, the pair that is closest in meaning: containment both
    ways (the same values), one way (one relaxed or narrowed the other), then the share of keywords
    they have in common. Branches with nothing in common stay unpaired (removed and added).
    """
    matched, free_old, free_new = _matched(tuple(canonical(b) for b in old), tuple(canonical(b) for b in new))
    return list(matched), list(free_old), list(free_new)


@lru_cache(maxsize=1024)
def _matched(old_keys: tuple[str, ...], new_keys: tuple[str, ...]) -> tuple[tuple[tuple[int, int], ...],
                                                                            tuple[int, ...], tuple[int, ...]]:
    """``match_branches`` on the branches' canonical texts (every rule asks about the same branches)."""
    pairs: list[tuple[int, int]] = []
    free_old, free_new = list(range(len(old_keys))), list(range(len(new_keys)))
    for i in list(free_old):
        j = next((j for j in free_new if new_keys[j] == old_keys[i]), None)
        if j is not None:
            pairs.append((i, j))
            free_old.remove(i)
            free_new.remove(j)
    candidates = _candidates(old_keys, new_keys, free_old, free_new)
    scored = sorted(((_closeness(old_keys[i], new_keys[j]), i, j) for i, j in candidates), reverse=True)
    for score, i, j in scored:
        if score <= (0, 0.0) or i not in free_old or j not in free_new:
            continue
        pairs.append((i, j))
        free_old.remove(i)
        free_new.remove(j)
    return tuple(sorted(pairs, key=lambda p: p[1])), tuple(free_old), tuple(free_new)


#: above this many unpaired (old, new) branch pairs, each old branch is weighed (two proofs) only against
#: the few new ones whose text is most alike: 100 branches on each side would be 20,000 proofs
ALL_PAIRS_LIMIT = 64
CANDIDATES = 3


def _candidates(old_keys: tuple[str, ...], new_keys: tuple[str, ...], free_old: list[int],
                free_new: list[int]) -> list[tuple[int, int]]:
    if len(free_old) * len(free_new) <= ALL_PAIRS_LIMIT:
        return [(i, j) for i in free_old for j in free_new]
    out: list[tuple[int, int]] = []
    for i in free_old:
        alike = sorted(free_new, key=lambda j: (-SequenceMatcher(None, old_keys[i], new_keys[j]).ratio(), abs(i - j)))
        out.extend((i, j) for j in alike[:CANDIDATES])
    return out


def _closeness(old_key: str, new_key: str) -> tuple[int, float]:
    import json

    from ..prover import Verdict, contains

    a, b = json.loads(old_key), json.loads(new_key)
    forward = contains(b, a).verdict is Verdict.COVERS
    backward = contains(a, b).verdict is Verdict.COVERS
    items_a = {canonical({k: v}) for k, v in a.items()} if isinstance(a, dict) else set()
    items_b = {canonical({k: v}) for k, v in b.items()} if isinstance(b, dict) else set()
    shared_types = types_of(a if isinstance(a, dict) else {}) & types_of(b if isinstance(b, dict) else {})
    overlap = len(items_a & items_b) / max(1, len(items_a | items_b))
    if not shared_types and not (forward or backward):
        return (0, 0.0)
    return (int(forward) + int(backward), overlap + 0.01)


def unmatched_branches(pair: SchemaPair, keyword: str) -> tuple[list[Node], list[Node]]:
    """Branches only on one side that ``match_branches`` could not pair with anything: (removed, added)."""
    old_branches: list[Node] = list(pair.old.get(keyword, [])) if pair.old is not None else []
    new_branches: list[Node] = list(pair.new.get(keyword, [])) if pair.new is not None else []
    if not new_branches and pair.new is not None:
        # `anyOf: [A, B]` became plain `A`: the new schema itself is the one branch left
        new_branches = [Node({k: v for k, v in pair.new.items() if k not in ("anyOf", "oneOf", "default")})]
    if not old_branches and pair.old is not None:
        old_branches = [Node({k: v for k, v in pair.old.items() if k not in ("anyOf", "oneOf", "default")})]
    _, removed, added = match_branches(old_branches, new_branches)
    return [old_branches[i] for i in removed], [new_branches[j] for j in added]
