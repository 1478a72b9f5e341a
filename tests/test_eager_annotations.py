"""Generated tool modules run their annotations as they are imported (no ``from __future__ import
annotations``): pydantic then compiles no strings, a sixth of a 1,000-tool start-up. An annotation
that would name something else where it stands is quoted, so every model reads the same types as
before: proved here on hand-made traps and on every model of the shared corpus's build."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from contractgen.codegen.eager_annotations import FUTURE, eager

ROOT = Path(__file__).resolve().parents[1]

TRAPS = FUTURE + '''
import datetime
from typing import Annotated, NotRequired, TypedDict

from pydantic import BaseModel, Field

date = datetime.date


class Node(BaseModel):
    children: list[Node] | None = None
    leaf: Leaf | None = None
    label: Annotated[str, Field(description="café: «naïve» \\"quoted\\"")] = ""


class Leaf(BaseModel):
    date: date | None = None
    other: date | None = None
    size: int = 0


class NodeJson(TypedDict):
    children: NotRequired[list[NodeJson]]


def shaped(node: Node, leaf: Leaf) -> Later: ...


class Later(BaseModel):
    when: date
'''


def _module(source: str, name: str) -> Any:
    module = types.ModuleType(name)
    sys.modules[name] = module
    try:
        exec(compile(source, f"<{name}>", "exec"), module.__dict__)  # noqa: S102 - our own text
        for value in list(vars(module).values()):
            if isinstance(value, type) and issubclass(value, BaseModel) and value is not BaseModel:
                value.model_rebuild()
    finally:
        del sys.modules[name]
    return module


def _fields(module: Any) -> dict[str, dict[str, str]]:
    """Each model's fields as pydantic reads them: annotation, default, constraints."""
    return {name: {field: repr((info.annotation, info.default, info.metadata, info.description))
                   for field, info in value.model_fields.items()}
            for name, value in sorted(vars(module).items())
            if isinstance(value, type) and issubclass(value, BaseModel) and value is not BaseModel
            and value.__module__ == module.__name__}


def test_only_what_would_name_something_else_is_quoted() -> None:
    source = eager(TRAPS)
    assert FUTURE not in source
    assert "children: 'list[Node] | None' = None" in source  # itself
    assert "leaf: 'Leaf | None' = None" in source  # defined later
    assert "other: 'date | None' = None" in source  # the field above shadows the type
    assert "    date: date | None = None" in source  # not yet shadowed: runs in place
    assert "size: int = 0" in source and "when: date\n" in source
    assert "children: 'NotRequired[list[NodeJson]]'" in source
    assert "def shaped(node: Node, leaf: Leaf) -> 'Later'" in source
    assert "label: Annotated[str, Field(" in source  # nothing to quote, non-ASCII text kept as it was


def test_the_traps_give_the_models_they_gave_as_strings() -> None:
    # (a field named after its type, with a default, is left out: read as a string in the class's
    # namespace it names the default, and pydantic cannot build the string form at all)
    source = TRAPS.replace("    date: date | None = None\n    other: date | None = None\n", "")
    assert _fields(_module(eager(source), "traps")) == _fields(_module(source, "traps"))
    assert _fields(_module(eager(source), "traps"))["Node"]  # (the comparison compared something)


def test_the_bundled_modules_import_without_the_future_import() -> None:
    for module in sorted((ROOT / "generated").glob("*_v*.py")):
        text = module.read_text("utf-8")
        assert FUTURE not in text, module.name
        assert eager(text) == text


def test_every_corpus_model_reads_the_same_types_as_from_strings(imported_corpus: Path) -> None:
    """The shared corpus's build (realistic schemas: recursion, $defs, keywords as names): each
    module, imported as built and with the future import put back, gives identical fields."""
    modules = sorted((imported_corpus / "generated").glob("*_v*.py"))
    assert modules
    compared = 0
    for path in modules:
        built = path.read_text("utf-8")
        if "BaseModel" not in built:
            continue
        assert FUTURE not in built, path.name
        head, _, rest = built.partition('"""\n\n')  # after the module's docstring
        as_strings = head + '"""\n\n' + FUTURE + rest
        eager_fields = _fields(_module(built, f"probe_{path.stem}"))  # one name: the reprs name it
        assert eager_fields == _fields(_module(as_strings, f"probe_{path.stem}")), path.name
        compared += len(eager_fields)
    assert compared > 100

