"""Names an object can never hold, where the schema still counts on them: dead branches and dead
properties.

A closed object (``additionalProperties: false``, or ``unevaluatedProperties: false``) refuses every
name it does not declare. A ``required`` list inside one of its branches (``allOf``/``anyOf``/
``oneOf``, ``if``/``then``/``else``, ``dependentSchemas``, a ``$ref``) that names such a name can never
hold (a ``dependentRequired`` there naming it never holds for a value holding its trigger): a
``then`` requiring it refuses every value its ``if`` matches, an ``anyOf`` branch never
matches, an ``if`` never matches. So does one requiring a name any object forbids (``a: false``). And a declared property can be dead in any object: ``propertyNames``
refuses its name, or a ``patternProperties`` schema matching its name admits no value its own schema
admits. validators say nothing of either, and the description offers the model what no call can send.
Every verdict here is sound: a place is reported only when no value can pass it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..runtime import reference_validator
from ..runtime.patterns import matches_any, pattern_matches
from ..runtime.pointer import escape_token
from .closed_objects import declared_through_applicators
from .describe import show
from .report import Reporter
from .satisfiable import inverted
from .schema_walk import deref, resolve_local_ref

#: what a branch that can never hold means, by the applicator that holds it (the innermost one that
#: is not an unconditional allOf or $ref)
_CONSEQUENCE = {
    None: "no value can pass",
    "anyOf": "this branch never matches",
    "oneOf": "this branch never matches",
    "then": "every value the `if` beside it matches is refused",
    "else": "every value the `if` beside it does not match is refused",
    "if": "this `if` never matches, so the `then` beside it never applies",
    "dependentSchemas": "every value holding the name that triggers it is refused",
}
#: the same, for a ``dependentRequired`` naming a name the object refuses: the branch fails only the
#: values holding the name that triggers it
_CONSEQUENCE_HELD = {
    None: "no such value can pass",
    "anyOf": "this branch never matches such a value",
    "oneOf": "this branch never matches such a value",
    "then": "every such value the `if` beside it matches is refused",
    "else": "every such value the `if` beside it does not match is refused",
    "if": "this `if` never matches such a value, so the `then` beside it never applies to one",
    "dependentSchemas": "every such value also holding the name that triggers it is refused",
}
#: keys of an applicator node that make an ``unevaluatedProperties: false`` above it see more names
#: than the branches declare: give up there rather than guess
_EVALUATES_ANY = ("additionalProperties", "unevaluatedProperties", "$dynamicRef")


def names_checked_beside(node: dict[str, Any]) -> bool:
    """Whether ``required-not-declared`` judges ``node``'s own ``required`` (schema_checks): it
    declares ``properties`` and no branch or pattern may declare a name beside them."""
    return isinstance(node.get("properties"), dict) and "patternProperties" not in node and not any(
        isinstance(node.get(k), list) for k in ("allOf", "anyOf", "oneOf"))


def check_dead_branches(report: Reporter, base: str, pointer: str, node: dict[str, Any], root: Any) -> None:
    """Report each name ``node`` or a branch of it requires that the object refuses: undeclared in a
    closed object, or declared with a schema no value passes (``a: false``) in any object."""
    if inverted(pointer):
        return
    closer = _closer(node)
    own = node["properties"] if isinstance(node.get("properties"), dict) else {}
    forbidden = {name for name, schema in own.items() if _admits_nothing(schema)}
    if closer is None and not forbidden:
        return
    patterns = list(node["patternProperties"]) if isinstance(node.get("patternProperties"), dict) else []
    through = list(declared_through_applicators(node, root, base, pointer))
    elsewhere = {name for _, name in through}
    if closer == "unevaluatedProperties":
        branches = list(_branches(node, root, base, pointer))
        if any(key in branch for branch, _, _ in branches[1:] for key in _EVALUATES_ANY):
            return
        patterns += [p for branch, _, _ in branches[1:] if isinstance(branch.get("patternProperties"), dict)
                     for p in branch["patternProperties"]]

    def refused(name: str, own_list: bool, keyword: str) -> tuple[str, str] | None:
        """Why the object refuses ``name`` and what to do, or None when it may hold it."""
        if name in forbidden:
            return ("whose schema under `properties` there admits no value",
                    f"drop {show(name)} from this `{keyword}`, or give the property a schema its values pass")
        if closer is None or own_list or name in own or name in elsewhere \
                or patterns and matches_any(patterns, name) is not False:
            return None  # declared, or declared in a branch (closed-object-hides-member says so)
        return (f"which its `{closer}: false` refuses",
                f"declare {show(name)} under `properties` at {base}{pointer}, or drop it from this `{keyword}`")

    reported: set[str] = set()
    for branch, where, step in _branches(node, root, base, pointer):
        # the node's own lists beside plain properties are required-not-declared's, but for a name forbidden
        own_list = branch is node and names_checked_beside(node)
        for at, name, trigger in _names_counted_on(branch, where):
            keyword = "required" if trigger is None else "dependentRequired"
            found = refused(name, own_list, keyword)
            if at in reported or found is None:
                continue
            if trigger is not None and refused(trigger, False, keyword) is not None:
                continue  # no value holds the trigger: the dependency never applies, so it takes nothing away
            reported.add(at)
            why, hint = found
            if trigger is None:
                listed, cost = "required name", f"so this schema never holds: {_CONSEQUENCE[step]}"
            else:
                listed = f"name `dependentRequired` lists for {show(trigger)}"
                cost = f"so this schema refuses every value holding {show(trigger)}: {_CONSEQUENCE_HELD[step]}"
            report.error(
                at,
                f"expected each {listed} to be one the object at {base}{pointer} accepts (got {show(name)}, "
                f"{why}, {cost})",
                "branch-never-holds",
                hint=hint + (" (or drop the condition)" if step in ("if", "then", "else") else ""),
            )


def _names_counted_on(branch: dict[str, Any], where: str) -> Iterator[tuple[str, str, str | None]]:
    """(pointer, name, the name whose presence requires it, or None) for each name ``branch``'s
    ``required`` and ``dependentRequired`` lists: a value lacking one fails the branch."""
    required = branch.get("required")
    if isinstance(required, list):
        yield from ((f"{where}/required/{i}", name, None) for i, name in enumerate(required) if isinstance(name, str))
    dependent = branch.get("dependentRequired")
    if isinstance(dependent, dict):
        for trigger, needs in dependent.items():
            if isinstance(needs, list):
                yield from ((f"{where}/dependentRequired/{escape_token(trigger)}/{i}", name, trigger)
                            for i, name in enumerate(needs) if isinstance(name, str))


def _admits_nothing(schema: Any) -> bool:
    """Whether a property's schema is one no value passes (``false``, ``not: {}``): the name is forbidden."""
    return schema is False or isinstance(schema, dict) and set(schema) <= {"not", "description", "title"} \
        and schema.get("not") in ({}, True)


def _closer(node: dict[str, Any]) -> str | None:
    """The keyword that closes ``node`` to undeclared names, if one does."""
    if node.get("additionalProperties") is False:
        return "additionalProperties"
    if node.get("unevaluatedProperties") is False and "additionalProperties" not in node:
        return "unevaluatedProperties"
    return None


def _branches(node: dict[str, Any], root: Any, base: str,
              pointer: str) -> Iterator[tuple[dict[str, Any], str, str | None]]:
    """(branch, its pointer, the applicator that makes it conditional) for ``node`` and every schema
    judging the same object through applicators and local ``$ref``s; ``not`` is not entered (a
    branch that never holds there takes nothing away)."""
    todo: list[tuple[Any, str, str | None]] = [(node, base + pointer, None)]
    seen: set[int] = set()
    while todo:
        current, at, step = todo.pop()
        if not isinstance(current, dict) or id(current) in seen:
            continue
        seen.add(id(current))
        yield current, at, step
        for key in ("allOf", "anyOf", "oneOf"):
            if isinstance(current.get(key), list):
                inner = step if key == "allOf" else key
                todo.extend((branch, f"{at}/{key}/{i}", inner) for i, branch in enumerate(current[key]))
        if "if" in current:
            todo.extend((current[key], f"{at}/{key}", key) for key in ("if", "then", "else") if key in current)
        if isinstance(current.get("dependentSchemas"), dict):
            todo.extend((branch, f"{at}/dependentSchemas/{escape_token(name)}", "dependentSchemas")
                        for name, branch in current["dependentSchemas"].items())
        ref = current.get("$ref")
        if isinstance(ref, str):
            target = resolve_local_ref(root, ref)
            if target.found and ref.startswith("#/"):
                todo.append((target.value, base + ref[1:], step))


def check_dead_properties(report: Reporter, base: str, pointer: str, node: dict[str, Any], root: Any) -> None:
    """Report each property ``node`` declares (or requires) that no call can send: ``propertyNames``
    refuses its name, or a ``patternProperties`` schema matching it admits none of its values."""
    if inverted(pointer):
        return
    own = node["properties"] if isinstance(node.get("properties"), dict) else {}
    required = node["required"] if isinstance(node.get("required"), list) else []
    judge = _Judge(root)
    if "propertyNames" in node:
        places = [(f"properties/{escape_token(n)}", n, True) for n in own]
        places += [(f"required/{i}", n, False) for i, n in enumerate(required) if isinstance(n, str) and n not in own]
        for where, name, key in places:
            if judge.refuses(node["propertyNames"], name):
                report.error(
                    f"{base}{pointer}/{where}",
                    f"expected each declared property to be one a call can send (got {show(name)}, which "
                    "`propertyNames` here refuses: every call sending it fails"
                    + (", and it is required, so no value passes)" if name in required else ")"),
                    "property-never-accepted",
                    hint="rename the property to a name `propertyNames` accepts, or widen `propertyNames`",
                    key=key,
                )
    patterns = node.get("patternProperties")
    if not isinstance(patterns, dict):
        return
    for name, declared in own.items():
        if declared is False:
            continue  # `name: false` forbids the name on purpose
        for pattern, matched in patterns.items():
            if pattern_matches(pattern, name) is not True or not judge.disjoint(declared, matched):
                continue
            report.error(
                f"{base}{pointer}/properties/{escape_token(name)}",
                f"expected the schemas `properties` and `patternProperties` give {show(name)} to accept a value "
                f"together (got {_shown(declared, root)} here and {_shown(matched, root)} under the pattern "
                f"{show(pattern)}: both judge {show(name)}, so no value passes and every call sending it fails"
                + (", and it is required, so no value passes at all)" if name in required else ")"),
                "property-never-accepted",
                hint=f"make the two schemas agree, or write the pattern so it does not match {show(name)}",
                key=True,
            )
            break


def _shown(schema: Any, root: Any) -> str:
    target = deref(root, schema)
    if target is False:
        return "`false`"
    if isinstance(target, dict):
        for key in ("type", "const", "enum"):
            if key in target:
                return f"`{key}: {show(target[key])}`"
    return "a schema"


_NUMBERS = frozenset({"number", "integer"})


class _Judge:
    """Sound verdicts on names and values, read by the reference validator against the whole schema
    (so ``$ref`` resolves); anything it cannot decide counts as passing."""

    def __init__(self, root: Any) -> None:
        self.root = root
        self._validator: Any = None

    def passes(self, schema: Any, value: Any) -> bool:
        if self._validator is None:
            self._validator = reference_validator.validator(self.root, formats=False)
        try:
            return not any(True for _ in self._validator.evolve(schema=schema).iter_errors(value))
        except Exception:  # noqa: BLE001 - a pattern it cannot judge (PatternUndecided), an unresolvable
            return True  # $ref, a recursion too deep and the like: no verdict that could be wrong

    def refuses(self, schema: Any, value: Any) -> bool:
        return not self.passes(schema, value)

    def disjoint(self, first: Any, second: Any) -> bool:
        """Whether no value passes both schemas, as far as their types and listed values tell."""
        one, other = deref(self.root, first), deref(self.root, second)
        if one is False or other is False:
            return True
        if not isinstance(one, dict) or not isinstance(other, dict):
            return False
        kinds, others = _types(one), _types(other)
        if kinds is not None and others is not None and not kinds & others \
                and not (kinds & _NUMBERS and others & _NUMBERS):
            return True
        return any(values and all(self.refuses(against, v) for v in values)
                   for values, against in ((_listed(one), second), (_listed(other), first)))


def _types(schema: dict[str, Any]) -> set[str] | None:
    declared = schema.get("type")
    if isinstance(declared, str):
        return {declared}
    if isinstance(declared, list) and all(isinstance(t, str) for t in declared):
        return set(declared)
    return None


def _listed(schema: dict[str, Any]) -> list[Any]:
    """The values ``schema`` lists; none when it lists none (an empty ``enum`` is satisfiable's error)."""
    if "const" in schema:
        return [schema["const"]]
    return schema["enum"] if isinstance(schema.get("enum"), list) else []
