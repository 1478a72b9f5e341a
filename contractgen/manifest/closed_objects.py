"""Members a closed object declares where its ``additionalProperties`` cannot see them.

``additionalProperties`` reads only the ``properties`` and ``patternProperties`` beside it. A member
declared inside ``allOf``/``anyOf``/``oneOf``/``if``/``then``/``else``/``dependentSchemas`` or a
``$ref`` target of the same object is still "additional" to it: with ``additionalProperties: false``
every call that sends it is refused, while the description offers it to the model. The fix is
``unevaluatedProperties: false``, which sees those members, or declaring the member beside it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..runtime.patterns import matches_any
from ..runtime.pointer import escape_token
from .describe import show
from .report import Reporter
from .schema_walk import resolve_local_ref

#: keywords whose schemas judge the same object as the schema holding them
_SAME_OBJECT = ("allOf", "anyOf", "oneOf")
_SAME_OBJECT_ONE = ("if", "then", "else")
HINT = ("write `unevaluatedProperties: false` in place of `additionalProperties: false` (it sees members "
        "declared in allOf/anyOf/oneOf, if/then/else and $ref), or declare the member in `properties` beside it")


def check_closed_object(report: Reporter, base: str, pointer: str, node: dict[str, Any], root: Any) -> None:
    """Report each member ``node`` (at ``pointer`` of the schema ``root`` at ``base``) declares
    through an applicator that its own ``additionalProperties: false`` refuses."""
    if node.get("additionalProperties") is not False:
        return
    declared = node.get("properties")
    own: dict[str, Any] = declared if isinstance(declared, dict) else {}
    patterns = list(node["patternProperties"]) if isinstance(node.get("patternProperties"), dict) else []
    refused: dict[str, str] = {}
    for where, name in declared_through_applicators(node, root, base, pointer):
        if name in own or name in refused or patterns and matches_any(patterns, name) is not False:
            continue
        refused[name] = where
    for name, where in refused.items():
        report.error(f"{base}{pointer}/additionalProperties",
                     f"expected every declared member to be accepted (got {show(name)}, declared at {where}, "
                     "which `additionalProperties: false` here refuses: every call sending it fails)",
                     "closed-object-hides-member", hint=HINT)


def declared_through_applicators(node: dict[str, Any], root: Any, base: str,
                                  pointer: str) -> Iterator[tuple[str, str]]:
    """(where, name) for each member the applicators of ``node`` declare, through local ``$ref``s."""
    todo: list[tuple[Any, str]] = [(node, base + pointer)]
    seen: set[int] = set()
    first = True
    while todo:
        current, where = todo.pop()
        if not isinstance(current, dict) or id(current) in seen:
            continue
        seen.add(id(current))
        if not first and isinstance(current.get("properties"), dict):
            for name in current["properties"]:
                yield f"{where}/properties/{escape_token(name)}", name
        first = False
        for key in _SAME_OBJECT:
            if isinstance(current.get(key), list):
                todo.extend((branch, f"{where}/{key}/{i}") for i, branch in enumerate(current[key]))
        todo.extend((current[key], f"{where}/{key}") for key in _SAME_OBJECT_ONE if key in current)
        if isinstance(current.get("dependentSchemas"), dict):
            todo.extend((branch, f"{where}/dependentSchemas/{escape_token(name)}")
                        for name, branch in current["dependentSchemas"].items())
        ref = current.get("$ref")
        if isinstance(ref, str):
            target = resolve_local_ref(root, ref)
            if target.found:  # where it points, as a pointer of the manifest when it is one
                todo.append((target.value, base + ref[1:] if ref.startswith("#/") else ref))
