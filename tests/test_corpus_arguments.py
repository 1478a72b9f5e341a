"""Every real corpus tool, built and imported as a user would: full valid arguments (every declared
property filled, numbers including integers past 2**53, booleans, nested objects and arrays) reach the
implementation as the JSON that was sent, through the generated stub's guard and input model."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path
from typing import Any

from build_support import imported_package

from contractgen.prover import accepts, candidates

#: values offered to every leaf beside the schema's own candidates: what a float, a lax bool or a
#: rounded number would change
EDGE_VALUES = (2**60 + 1, 1.0, True, 0, "x", 12.5)


def _same_json(sent: Any, got: Any) -> bool:
    """JSON equality: a boolean is never a number, 1 and 1.0 are one number, no digit is lost."""
    if isinstance(sent, bool) or isinstance(got, bool):
        return type(sent) is type(got) and sent == got
    if isinstance(sent, (int, float)) and isinstance(got, (int, float)):
        return sent == got and (type(sent) is not int or type(got) is not float or abs(sent) < 2**53)
    if isinstance(sent, dict) and isinstance(got, dict):
        return sent.keys() == got.keys() and all(_same_json(sent[k], got[k]) for k in sent)
    if isinstance(sent, list) and isinstance(got, list):
        return len(sent) == len(got) and all(_same_json(a, b) for a, b in zip(sent, got))
    return type(sent) is type(got) and sent == got


def _resolved(node: Any, root: dict[str, Any]) -> Any:
    for _ in range(10):
        ref = node.get("$ref") if isinstance(node, dict) else None
        if not (isinstance(ref, str) and ref.startswith("#/")):
            break
        node = root
        for part in ref[2:].split("/"):
            node = node.get(part, {}) if isinstance(node, dict) else {}
    return node


def _filled(node: Any, root: dict[str, Any], rnd: random.Random, seed: int, depth: int = 0) -> Any:
    """A value for ``node`` with every declared property present, leaves drawn from valid candidates."""
    node = _resolved(node, root)
    if not isinstance(node, dict) or depth > 5:
        return None
    kind = node.get("type")
    properties = node.get("properties")
    if isinstance(properties, dict) and (kind in (None, "object") or isinstance(kind, list) and "object" in kind):
        return {name: _filled(sub, root, rnd, seed, depth + 1) for name, sub in properties.items()}
    if kind == "array" and isinstance(node.get("items"), dict):
        return [_filled(node["items"], root, rnd, seed, depth + 1) for _ in range(rnd.choice((1, 2)))]
    wrapped = {**node, "$defs": root.get("$defs", {}), "definitions": root.get("definitions", {})}
    pool = [c for c in [*EDGE_VALUES, *itertools.islice(candidates(wrapped), 12)] if accepts(wrapped, c)]
    # the first calls of each tool send the edge values the leaf accepts, the later ones its own
    return pool[min(seed, len(pool) - 1) if seed < len(EDGE_VALUES) else rnd.randrange(len(pool))] if pool else None


def _valid_arguments(schema: dict[str, Any], seed: int) -> dict[str, Any] | None:
    value = _filled(schema, schema, random.Random(seed), seed)
    if not isinstance(value, dict):
        return None
    value = {k: v for k, v in value.items() if v is not None or accepts(schema, {k: None})}
    if accepts(schema, value):
        return value
    for name in value:  # one member the filler got wrong (a dependency, a oneOf): drop it
        fewer = {k: v for k, v in value.items() if k != name}
        if accepts(schema, fewer):
            return fewer
    return None


def test_full_valid_arguments_reach_every_corpus_tool_unchanged(imported_corpus: Path) -> None:
    calls = 0
    problems = []
    with imported_package(imported_corpus) as generated:
        for name, stub in sorted(generated.STUBS.items()):
            received: list[Any] = []
            tool = stub.implement(lambda args, received=received: received.append(
                args.model_dump(mode="json", by_alias=True, exclude_unset=True)) or {})
            for seed in range(5):
                arguments = _valid_arguments(stub.contract.input_schema, seed)
                if arguments is None:
                    continue
                calls += 1
                received.clear()
                envelope = tool(arguments)
                sent = json.loads(json.dumps(arguments))
                if not received:
                    problems.append(f"{name}: valid {json.dumps(sent)[:200]} refused: {envelope.get('error')}")
                elif not _same_json(sent, received[0]):
                    problems.append(f"{name}: {json.dumps(sent)[:200]} arrived as {json.dumps(received[0], default=str)[:200]}")
    assert calls >= 500
    assert not problems, "\n".join(problems[:20])
