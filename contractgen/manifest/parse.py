"""Parse one manifest file (YAML 1.2-style scalars, or JSON) into plain JSON values plus positions.

PyYAML speaks YAML 1.1, which turns ``yes``/``on`` into booleans and ``2027-06-30`` into dates;
manifests hold JSON Schema, so we resolve only JSON-compatible scalars and keep everything else a
string. Each value's 1-based (line, column) is recorded under its JSON pointer, and each mapping
key's position under the pointer of its value (for "unknown key" diagnostics).

Hostile input is bounded: a size cap, a nesting-depth cap, and a cap on the number of values after
YAML alias expansion (a "billion laughs" file stops at the cap instead of hanging).

Speed: a file is composed with libyaml's C parser when PyYAML has it (about 10x faster) and the
result is kept only when it is clean; any problem re-parses with the pure-Python parser, so every
diagnostic (wording, line, column) is the pure-Python one.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from ..diagnostics import Diagnostic
from ..runtime.pointer import escape_token
from .caps import (
    INT_HINT,
    MAX_DEPTH,
    MAX_INT_DIGITS,
    MAX_MANIFEST_BYTES,
    MAX_VALUES,
    CapExceeded,
    check_tree,
    loads_json,
)

TOO_LARGE_HINT = (
    "split the tool's schemas into smaller pieces with $defs, or check that this is a manifest"
)
EMPTY_HINT = (
    "a manifest needs at least name, version, summary, description, input and output "
    "(see docs/manifest.md)"
)

#: how a Git LFS pointer file begins (https://github.com/git-lfs/git-lfs/blob/main/docs/spec.md)
LFS_POINTER = "version https://git-lfs.github.com/spec/"
LFS_HINT = (
    "fetch the content with `git lfs pull` (for diff --against: `git lfs fetch` that revision), "
    "or keep manifests out of LFS: they are small text files"
)


class _TooBig(Exception):
    """Raised inside construction when a cap is hit; turned into one diagnostic."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


class _JsonCompatibleLoader(yaml.SafeLoader):
    """SafeLoader with only YAML 1.2 core-schema implicit types: null, bool, int, float."""


_YAML_TAG = "tag:yaml.org,2002:"
#: the scalar tags a JSON value can carry, each with the text it reads (YAML 1.2 core schema)
_SCALAR_TAGS: dict[str, re.Pattern[str]] = {}
_JsonCompatibleLoader.yaml_implicit_resolvers = {}
for _tag, _pattern, _first in (
    (_YAML_TAG + "null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
    (_YAML_TAG + "bool", r"^(?:true|True|TRUE|false|False|FALSE)$", list("tTfF")),
    (_YAML_TAG + "int", r"^[-+]?(?:0|[1-9][0-9]*)$", list("-+0123456789")),
    (
        _YAML_TAG + "float",
        r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$|^[-+]?\.(?:inf|Inf|INF)$|^\.(?:nan|NaN|NAN)$",
        list("-+.0123456789"),
    ),
):
    _SCALAR_TAGS[_tag] = re.compile(_pattern)
    _JsonCompatibleLoader.add_implicit_resolver(_tag, _SCALAR_TAGS[_tag], _first)
#: the one tag each kind of node may carry besides the scalar ones (``!!binary``, ``!!set``,
#: ``!!python/object``... mean something JSON cannot hold, so they are diagnosed, never dropped)
_COLLECTION_TAGS = {"MappingNode": _YAML_TAG + "map", "SequenceNode": _YAML_TAG + "seq"}
_PLAIN_TAGS = frozenset([*_SCALAR_TAGS, *_COLLECTION_TAGS.values(), _YAML_TAG + "str"])
TAG_HINT = "remove the tag and write the value as JSON has it: a string, number, true/false, null, list or mapping"

_FastLoader: type[Any] | None = None
if getattr(yaml, "__with_libyaml__", False):

    class _CJsonCompatibleLoader(yaml.CSafeLoader):
        """The same resolvers on libyaml's parser (the C parser calls the Python resolver)."""

    _CJsonCompatibleLoader.yaml_implicit_resolvers = _JsonCompatibleLoader.yaml_implicit_resolvers
    _FastLoader = _CJsonCompatibleLoader

#: off: parse with the pure-Python parser only (the benchmark's and the tests' reference)
USE_LIBYAML = True
#: characters the pure-Python reader rejects; libyaml accepts some of them, so such text skips it
_NON_PRINTABLE = yaml.reader.Reader.NON_PRINTABLE


@dataclass
class ParsedFile:
    path: str
    value: Any = None
    positions: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: pointer of a mapping value -> position of its key
    key_positions: dict[str, tuple[int, int]] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    _budget: int = MAX_VALUES


def too_large(path: str, size: int) -> ParsedFile:
    """The result for a file over the size cap, which is never read or parsed."""
    message = f"expected a manifest of at most {MAX_MANIFEST_BYTES:,} bytes (got {size:,} bytes)"
    diagnostic = Diagnostic(path, "", message, code="file-too-large", hint=TOO_LARGE_HINT)
    return ParsedFile(path, diagnostics=[diagnostic])


def parse_manifest_text(path: str, raw: bytes, *, fast: bool | None = None) -> ParsedFile:
    """Parse one file; ``fast=False`` skips libyaml (default: ``USE_LIBYAML``)."""
    if len(raw) > MAX_MANIFEST_BYTES:
        return too_large(path, len(raw))
    result = ParsedFile(path)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        result.diagnostics.append(
            Diagnostic(
                path,
                "",
                f"expected UTF-8 text (got byte 0x{raw[exc.start]:02x} at offset {exc.start})",
                line=line,
                code="not-utf8",
                hint="save the file as UTF-8",
            )
        )
        return result
    text = text.removeprefix("\ufeff")
    if not text.strip():
        result.diagnostics.append(
            Diagnostic(
                path,
                "",
                "expected a manifest mapping (got an empty file)",
                line=1,
                code="empty-file",
                hint=EMPTY_HINT,
            )
        )
        return result
    if text.startswith(LFS_POINTER):
        result.diagnostics.append(
            Diagnostic(path, "", "expected a manifest (got a Git LFS pointer: the text is in LFS storage)",
                       line=1, code="lfs-pointer", hint=LFS_HINT)
        )
        return result
    if path.endswith(".json"):
        try:
            result.value = loads_json(text)
        except CapExceeded as exc:
            result.diagnostics.append(Diagnostic(path, exc.pointer, exc.message, code=exc.code, hint=exc.hint))
            return result
        except json.JSONDecodeError as exc:
            result.diagnostics.append(
                Diagnostic(
                    path,
                    "",
                    f"expected valid JSON ({exc.msg})",
                    line=exc.lineno,
                    column=exc.colno,
                    code="malformed-json",
                )
            )
            return result
    # In valid JSON a raw tab is whitespace outside strings; YAML rejects it as indentation.
    # One space per tab keeps every column, so JSON positions survive.
    yaml_text = text.replace("\t", " ") if result.value is not None else text
    if result.value is None:  # the JSON path checked its value already
        return _checked(_parse_yaml(path, yaml_text, result, fast))
    return _parse_yaml(path, yaml_text, result, fast)


def _checked(result: ParsedFile) -> ParsedFile:
    """The YAML path's value through the checks every value passes (``check_tree``): its own
    construction caps depth and size as it goes, but a lone surrogate (``"\\ud800"``) got through."""
    if result.value is None or result.diagnostics:
        return result
    try:
        check_tree(result.value)
    except CapExceeded as exc:
        line, column = result.positions.get(exc.pointer, result.key_positions.get(exc.pointer, (None, None)))
        result.diagnostics.append(Diagnostic(result.path, exc.pointer, exc.message, line=line, column=column,
                                             code=exc.code, hint=exc.hint))
        result.value = None
    return result


def _parse_yaml(path: str, yaml_text: str, result: ParsedFile, fast: bool | None) -> ParsedFile:
    if (USE_LIBYAML if fast is None else fast) and _fast_parse(yaml_text, result):
        return result
    try:
        node = yaml.compose(yaml_text, Loader=_JsonCompatibleLoader)
    except RecursionError:
        result.value = None
        result.diagnostics.append(_too_deep(path, None))
        return result
    except yaml.YAMLError as exc:
        if (
            result.value is not None
        ):  # valid JSON that YAML 1.1 cannot read: keep it, without positions
            return result
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        result.diagnostics.append(
            Diagnostic(
                path,
                "",
                f"expected valid YAML ({problem})",
                line=mark.line + 1 if mark else None,
                column=mark.column + 1 if mark else None,
                code="malformed-yaml",
            )
        )
        return result
    if node is None:  # only comments or a bare document marker
        result.diagnostics.append(
            Diagnostic(
                path,
                "",
                "expected a manifest mapping (got an empty document)",
                line=1,
                code="empty-file",
                hint=EMPTY_HINT,
            )
        )
        return result
    try:
        value = _construct(node, "", result, 0, frozenset())
    except _TooBig as exc:
        result.value = None
        result.positions.clear()
        result.key_positions.clear()
        result.diagnostics.append(exc.diagnostic)
        return result
    if result.value is None:
        result.value = value
    return result


class _Unclean(Exception):
    """The libyaml tree holds something only the pure-Python path reports (or places) exactly."""


#: Where libyaml accepts what PyYAML's scanner rejects, found by differential fuzzing
#: (tests/test_check_fast_paths.py); text or trees showing any of them take the pure-Python path.
#: A tag token (PyYAML reads tag handles more strictly):
_TAG_START = re.compile(r"(?:^|[\s\[\]{},:?|>&*-])!")
#: In a flow collection PyYAML ends a plain scalar at these (libyaml reads on through ``a?``):
_FLOW_BREAKS = frozenset(",?[]{}:#")
#: A block scalar header (``|``, ``>-``, ``|2+``) must end in a blank for PyYAML (not ``|#``):
_BLOCK_HEADER = re.compile(r"[|>][-+1-9]{0,2}(?:[ \r\n\x85\u2028\u2029]|$)")


def _fast_parse(text: str, result: ParsedFile) -> bool:
    """Parse with libyaml; True (with ``result`` filled) only for a file without any problem.

    Everything else (malformed YAML, caps, duplicate keys, an empty document, a construct where
    libyaml is more lenient) returns False with ``result`` untouched, and the pure-Python parser
    produces the diagnostics.
    """
    # Tabs: libyaml accepts them in places the pure-Python scanner rejects (JSON's are spaces now).
    if (
        _FastLoader is None
        or "\t" in text
        or _NON_PRINTABLE.search(text)
        or ("!" in text and _TAG_START.search(text))
    ):
        return False
    try:
        node = yaml.compose(text, Loader=_FastLoader)
    except Exception:  # noqa: BLE001 - any failure is re-parsed by the parser that reports it
        return False
    if node is None:
        return False
    positions: dict[str, tuple[int, int]] = {}
    key_positions: dict[str, tuple[int, int]] = {}
    budget = MAX_VALUES

    def scalar(node: yaml.Node, flow: bool) -> Any:
        """A plain scalar's value; raises where PyYAML would read the text differently."""
        if not isinstance(node, yaml.ScalarNode) or _long_int(node):
            raise _Unclean
        style, value = node.style, node.value
        if not style:
            if not value:  # an empty plain value: libyaml places it elsewhere than PyYAML
                raise _Unclean
            if flow and not _FLOW_BREAKS.isdisjoint(value):
                raise _Unclean
        elif style in "|>" and not _BLOCK_HEADER.match(text, node.start_mark.index):
            raise _Unclean
        return _scalar(node)

    def build(node: yaml.Node, pointer: str, depth: int, active: frozenset[int], flow: bool) -> Any:
        """``_construct`` for a tree expected to be clean: the same values and positions, but
        anything that would be a diagnostic raises ``_Unclean``."""
        nonlocal budget
        budget -= 1
        if budget < 0 or depth > MAX_DEPTH:
            raise _Unclean
        if pointer not in positions:
            mark = node.start_mark
            positions[pointer] = (mark.line + 1, mark.column + 1)
        if node.tag not in _PLAIN_TAGS:  # an explicit tag: the text check above should have seen it
            raise _Unclean
        if isinstance(node, yaml.ScalarNode):
            return scalar(node, flow)
        if id(node) in active:
            raise _Unclean
        active = active | {id(node)}
        flow = flow or bool(getattr(node, "flow_style", False))  # (collection nodes have one)
        if isinstance(node, yaml.MappingNode):
            mapping: dict[str, Any] = {}
            for key_node, value_node in node.value:
                key = scalar(key_node, flow)
                if not isinstance(key, str):
                    key = _plain_key(key_node, key)
                if key is None or key in mapping:
                    raise _Unclean
                child = (
                    f"{pointer}/{key}"
                    if "~" not in key and "/" not in key
                    else f"{pointer}/{escape_token(key)}"
                )
                if child not in key_positions:
                    key_mark = key_node.start_mark
                    key_positions[child] = (key_mark.line + 1, key_mark.column + 1)
                mapping[key] = build(value_node, child, depth + 1, active, flow)
            return mapping
        if isinstance(node, yaml.SequenceNode):
            return [
                build(item, f"{pointer}/{i}", depth + 1, active, flow)
                for i, item in enumerate(node.value)
            ]
        raise _Unclean

    try:
        value = build(node, "", 0, frozenset(), False)
    except (_Unclean, RecursionError):
        return False
    if result.value is None:
        result.value = value
    result.positions = positions
    result.key_positions = key_positions
    return True


def _too_deep(path: str, node: yaml.Node | None) -> Diagnostic:
    return Diagnostic(
        path,
        "",
        f"expected mappings and lists nested at most {MAX_DEPTH} deep (got deeper)",
        line=node.start_mark.line + 1 if node else None,
        column=node.start_mark.column + 1 if node else None,
        code="too-deep",
        hint="flatten the schema with $defs and $ref",
    )


def _construct(
    node: yaml.Node, pointer: str, out: ParsedFile, depth: int, active: frozenset[int]
) -> Any:
    out._budget -= 1
    if out._budget < 0:
        raise _TooBig(
            Diagnostic(
                out.path,
                "",
                f"expected at most {MAX_VALUES:,} values after expanding YAML aliases (got more)",
                line=node.start_mark.line + 1,
                column=node.start_mark.column + 1,
                code="too-many-values",
                hint="avoid nested YAML anchors and aliases (&name / *name); write the values out",
            )
        )
    if depth > MAX_DEPTH:
        raise _TooBig(_too_deep(out.path, node))
    out.positions.setdefault(pointer, (node.start_mark.line + 1, node.start_mark.column + 1))
    if isinstance(node, (yaml.MappingNode, yaml.SequenceNode)):
        if id(node) in active:  # an alias pointing at one of its own ancestors
            raise _TooBig(
                Diagnostic(
                    out.path,
                    pointer,
                    "expected a tree of values (got a YAML alias that contains itself)",
                    line=node.start_mark.line + 1,
                    column=node.start_mark.column + 1,
                    code="recursive-alias",
                    hint="remove the alias (*name) inside its own anchor (&name)",
                )
            )
        active = active | {id(node)}
    tag_problem = _tag_problem(node)
    if tag_problem is not None:
        _report_once(out, _node_diagnostic(out.path, pointer, node, tag_problem, "yaml-tag", TAG_HINT))
    if isinstance(node, yaml.MappingNode):
        mapping: dict[str, Any] = {}
        for key_node, value_node in node.value:
            key = _scalar(key_node)
            written = key
            if not isinstance(key, str):
                written = _plain_key(key_node, key)
                key = written or (key_node.value if isinstance(key_node, yaml.ScalarNode) else "null")
            child = f"{pointer}/{escape_token(key)}"
            if written is None:
                where = child if isinstance(key_node, yaml.ScalarNode) else pointer
                _report_once(out, _key_diagnostic(out.path, where, key_node))
            elif (key_tag := _tag_problem(key_node)) is not None:
                _report_once(out, _node_diagnostic(out.path, child, key_node, key_tag, "yaml-tag", TAG_HINT))
            if key in mapping:
                _report_once(
                    out,
                    Diagnostic(
                        out.path,
                        child,
                        f"expected each key once (got {key!r} again)",
                        line=key_node.start_mark.line + 1,
                        column=key_node.start_mark.column + 1,
                        code="duplicate-key",
                        hint="remove or merge the repeated key",
                    )
                )
            out.key_positions.setdefault(
                child, (key_node.start_mark.line + 1, key_node.start_mark.column + 1)
            )
            mapping[key] = _construct(value_node, child, out, depth + 1, active)
        return mapping
    if isinstance(node, yaml.SequenceNode):
        return [
            _construct(item, f"{pointer}/{i}", out, depth + 1, active)
            for i, item in enumerate(node.value)
        ]
    if _long_int(node):
        raise _TooBig(
            Diagnostic(
                out.path,
                pointer,
                f"expected an integer of at most {MAX_INT_DIGITS} digits "
                f"(got {len(node.value.lstrip('+-'))} digits)",
                line=node.start_mark.line + 1,
                column=node.start_mark.column + 1,
                code="number-too-long",
                hint=INT_HINT,
            )
        )
    return _scalar(node)


def _tag_problem(node: yaml.Node) -> str | None:
    """What is wrong with a node's tag, or None: a tag JSON has no value for, or a scalar whose tag
    cannot read its text (``!!bool yes``, ``!!int 0x10``: YAML 1.1 readings this loader does not have)."""
    tag = node.tag
    allowed = _COLLECTION_TAGS.get(type(node).__name__)
    if allowed is not None:
        kind = "mapping" if isinstance(node, yaml.MappingNode) else "list"
        return None if tag == allowed else f"expected a plain YAML {kind} (got the tag {_short_tag(tag)}, which JSON has no value for)"
    if tag == _YAML_TAG + "str":
        return None
    pattern = _SCALAR_TAGS.get(tag)
    if pattern is None:
        return f"expected a plain YAML value (got the tag {_short_tag(tag)}, which JSON has no value for)"
    if not pattern.match(node.value):
        return f"expected a value the tag {_short_tag(tag)} can hold (got {node.value!r})"
    return None


def _report_once(out: ParsedFile, diagnostic: Diagnostic) -> None:
    """A node reached again through an alias (``*name``) is reported at its first place only."""
    place = (diagnostic.line, diagnostic.column, diagnostic.code)
    if not any((d.line, d.column, d.code) == place for d in out.diagnostics):
        out.diagnostics.append(diagnostic)


def _short_tag(tag: str) -> str:
    return "!!" + tag[len(_YAML_TAG):] if tag.startswith(_YAML_TAG) else tag


def _plain_key(key_node: yaml.Node, key: Any) -> str | None:
    """A non-string key as a string, when it is written as its own JSON spelling (``1``, ``true``,
    ``null``); None when it is not (``1e3`` reads as 1000.0, ``~`` as null, ``01`` as 1.0, a list)."""
    if not isinstance(key_node, yaml.ScalarNode):
        return None
    spelt = json.dumps(key) if key is not None else "null"
    return spelt if spelt == key_node.value else None


def _key_diagnostic(path: str, pointer: str, key_node: yaml.Node) -> Diagnostic:
    """A key YAML reads as something else than the text written (``1e3``, ``~``) or a collection."""
    if isinstance(key_node, yaml.ScalarNode):
        value = _scalar(key_node)
        reading = "null" if value is None else json.dumps(value)
        message = f"expected a string key (got {key_node.value!r}, which YAML reads as {reading})"
        hint = f"quote the key: {json.dumps(key_node.value)}:"
    else:
        kind = "mapping" if isinstance(key_node, yaml.MappingNode) else "list"
        message, hint = f"expected a string key (got a {kind})", "write the key as a string"
    return _node_diagnostic(path, pointer, key_node, message, "non-string-key", hint)


def _node_diagnostic(path: str, pointer: str, node: yaml.Node, message: str, code: str, hint: str) -> Diagnostic:
    mark = node.start_mark
    return Diagnostic(path, pointer, message, line=mark.line + 1, column=mark.column + 1, code=code, hint=hint)


def _long_int(node: yaml.Node) -> bool:
    return (
        node.tag == "tag:yaml.org,2002:int"
        and isinstance(node.value, str)
        and len(node.value.lstrip("+-")) > MAX_INT_DIGITS
    )


def _scalar(node: yaml.Node) -> Any:
    if not isinstance(node, yaml.ScalarNode):
        return None
    tag, text = node.tag, node.value
    if tag == "tag:yaml.org,2002:null":
        return None
    if tag == "tag:yaml.org,2002:bool":
        return text.lower() == "true"
    if tag == "tag:yaml.org,2002:int":
        try:
            return int(text)
        except ValueError:
            return text
    if tag == "tag:yaml.org,2002:float":
        lowered = text.lower().lstrip("+")
        if lowered in (".inf", "-.inf"):
            return float("-inf") if lowered.startswith("-") else float("inf")
        if lowered == ".nan":
            return float("nan")
        try:
            return float(text)
        except ValueError:
            return text
    return text
