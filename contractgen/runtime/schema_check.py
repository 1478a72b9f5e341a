"""JSON Schema 2020-12 checks for one contract schema: a fast yes/no, then rich, ranked violations.

The fast path is jsonschema-rs (the ``fast`` extra) when installed, else the ``jsonschema`` package.
Both run the same 2020-12 semantics (no coercion: "5" is not 5; ``format`` is an annotation unless
asked for). Violations are computed only when a value is invalid, so the happy path costs one
``is_valid`` call.
"""

from __future__ import annotations

import difflib
import functools
import json
import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

_rs: Any
try:  # optional accelerator; the runtime works without it
    import jsonschema_rs as _rs
except ImportError:  # pragma: no cover - exercised in the no-extra install
    _rs = None

JSON = Any
MISSING: Any = object()

#: Rank of each keyword when listing violations: what the caller most likely got wrong comes first.
_RANK = {"additionalProperties": 0, "unevaluatedProperties": 0, "propertyNames": 0,
         "required": 1, "dependentRequired": 1, "type": 2, "const": 3, "enum": 3,
         "anyOf": 5, "oneOf": 5, "allOf": 5, "not": 5, "if": 5, "then": 5, "else": 5,
         "$ref": 5, "$dynamicRef": 5, "false": 5}
_UNKNOWN_KEY_KEYWORDS = frozenset({"additionalProperties", "unevaluatedProperties"})
_DETAILED = frozenset({"required", "additionalProperties", "unevaluatedProperties", "anyOf", "oneOf"})
_MEMO_LIMIT = 4096
#: Names redacted even without ``writeOnly`` / ``x-sensitive``: echoing these is never worth it.
_SENSITIVE_NAME = re.compile(r"pass(word|wd|phrase)|secret|token|api[_-]?key|authorization|"
                             r"credential|private[_-]?key|cookie|session[_-]?id", re.IGNORECASE)
REDACTED = "[redacted]"
ATTEMPTED_CAP = 100  # characters of an echoed string value
EXPECTED_CAP = 240


@dataclass(slots=True)
class Violation:
    """One reason a value fails its schema, in model-facing terms."""

    field: str  # JSON pointer into the checked value
    constraint: str  # the JSON Schema keyword that failed
    message: str
    expected: str | None = None
    attempted: Any = MISSING  # already redacted and capped; MISSING when nothing was sent
    did_you_mean: str | None = None

    @property
    def rank(self) -> int:
        return _RANK.get(self.constraint, 4)


    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"field": cap_pointer(self.field), "constraint": self.constraint,
                               "message": self.message}
        if self.expected:
            out["expected"] = self.expected
        if self.attempted is not MISSING:
            out["attempted"] = self.attempted
        if self.did_you_mean:
            out["did_you_mean"] = self.did_you_mean
        return out


def _rank_of(violation: Violation) -> int:
    return _RANK.get(violation.constraint, 4)


def thaw(value: Any) -> Any:
    """Plain dicts and lists for a JSON value held in read-only mappings or tuples."""
    if isinstance(value, dict):
        return {k: thaw(v) for k, v in value.items()} if any(
            isinstance(v, (Mapping, tuple, list)) for v in value.values()) else value
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [thaw(v) for v in value]
    return value


POINTER_CAP = 200


def cap_pointer(ptr: str) -> str:
    """Pointers echo caller-chosen key names: keep them short enough to show."""
    return ptr if len(ptr) <= POINTER_CAP else ptr[: POINTER_CAP - 1] + "…"


def pointer(parts: Iterable[Any]) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def pointer_parts(ptr: str) -> list[str]:
    if not ptr:
        return []
    return [p.replace("~1", "/").replace("~0", "~") for p in ptr.lstrip("/").split("/")]


def resolve_pointer(document: Any, ptr: str) -> Any:
    """The value at ``ptr`` in ``document``, or MISSING."""
    node = document
    for part in pointer_parts(ptr):
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, (list, tuple)) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return MISSING
    return node


class SchemaCheck:
    """A compiled schema: ``is_valid`` for the fast path and ``violations`` for the details.

    ``resources`` maps absolute URIs to schemas that ``$ref`` may point at (nothing is ever fetched
    over the network). ``formats=True`` turns ``format`` into an assertion.
    """

    def __init__(self, schema: Any, *, resources: Mapping[str, Any] | None = None,
                 formats: bool = False, prefer_fast: bool = True) -> None:
        self.schema = thaw(schema)
        self.resources = {k: thaw(v) for k, v in (resources or {}).items()}
        self.formats = formats
        self._py: Any = None
        self._rs: Any = None
        if prefer_fast and _rs is not None:
            try:
                self._rs = _rs.validator_for(self.schema, validate_formats=formats or None,
                                             retriever=self._retrieve_rs)
            except Exception:  # noqa: BLE001 - a schema the accelerator cannot compile: use the reference one
                self._rs = None
        if self._rs is None:
            self._py = self._python_validator()
        #: the bare yes/no of the fast backend; raises ValueError on non-JSON values (use is_valid)
        self._memo: dict[tuple[str, int], Any] = {}  # per schema node: its description, its keys
        self._key_memo: dict[tuple[str, int, str], Any] = {}
        self.fast_is_valid: Callable[[Any], bool] = (
            self._rs.is_valid if self._rs is not None else self._py.is_valid)

    @property
    def backend(self) -> str:
        return "jsonschema-rs" if self._rs is not None else "jsonschema"

    def _retrieve_rs(self, uri: str) -> Any:
        if uri in self.resources:
            return self.resources[uri]
        raise ValueError("remote references are not fetched; pass them as resources")

    def _python_validator(self) -> Any:
        import jsonschema  # type: ignore[import-untyped]
        import referencing
        import referencing.exceptions
        from referencing.jsonschema import DRAFT202012

        resources = self.resources

        def retrieve(uri: str) -> Any:
            if uri in resources:
                return referencing.Resource.from_contents(resources[uri],
                                                          default_specification=DRAFT202012)
            raise referencing.exceptions.NoSuchResource(ref=uri)  # type: ignore[call-arg]

        cls = jsonschema.validators.validator_for(self.schema,
                                                  default=jsonschema.Draft202012Validator)
        registry = referencing.Registry(retrieve=retrieve)  # type: ignore[call-arg]
        kwargs: dict[str, Any] = {"registry": registry}
        if self.formats:
            kwargs["format_checker"] = cls.FORMAT_CHECKER
        return cls(self.schema, **kwargs)

    # -- fast path --------------------------------------------------------------------------
    def is_valid(self, value: Any) -> bool:
        if self._rs is not None:
            try:
                return bool(self._rs.is_valid(value))
            except ValueError:  # not a JSON value (tuple, datetime, ...): retry on a plain copy
                plain = thaw(value)
                if plain is value or _non_json_path(plain) is not None:
                    return False
                return bool(self._rs.is_valid(plain))
        return bool(self._py.is_valid(value))

    # -- details ----------------------------------------------------------------------------
    def violations(self, value: Any) -> list[Violation]:
        """Every violation, most useful first (unknown keys, missing, type, then constraints)."""
        try:
            raw = list(self._raw_errors(value))
        except ValueError:  # not plain JSON: convert read-only mappings and tuples, or say where
            bad = _non_json_path(thaw(value))
            if bad is not None:
                where = pointer(bad[0])
                verb = "is" if where else "are"
                return [Violation(where, "type", f"{_label(where)} {verb} not a JSON value (got {bad[1]})",
                                  expected="a JSON value")]
            value = thaw(value)
            raw = list(self._raw_errors(value))
        found: list[Violation] = []
        for item in raw:
            found.extend(self._explain(value, *item))
        if not found and not self.is_valid(value):
            found.append(Violation("", "false", "the arguments are not accepted by the schema"))
        seen: set[tuple[str, str, str]] = set()
        unique = []
        for v in found:
            key = (v.field, v.constraint, v.message)
            if key not in seen:
                seen.add(key)
                unique.append(v)
        unique.sort(key=_rank_of)
        return unique

    def _raw_errors(self, value: Any) -> Iterator[tuple[str, list[Any], Any, Any]]:
        """(keyword, instance path, the schema node holding the keyword, details) per raw error."""
        if self._rs is not None:
            for e in self._rs.iter_errors(value):
                kind = e.kind
                name = kind.name
                details = {}
                if name in _DETAILED:
                    try:
                        details = kind.as_dict()
                    except Exception:  # noqa: BLE001
                        details = {}
                yield name, list(e.instance_path), self._node_at(e.schema_path), details
            return
        for e in self._py.iter_errors(value):
            yield from self._python_error(e)

    def _python_error(self, e: Any) -> Iterator[tuple[str, list[Any], Any, Any]]:
        keyword = str(e.validator)
        details: dict[str, Any] = {}
        if keyword == "required" and isinstance(e.instance, Mapping):
            # jsonschema yields one error per missing name; recover the name from the error itself
            missing = [p for p in e.validator_value if p not in e.instance]
            for name in missing:
                if repr(name) in e.message:
                    details = {"property": name}
                    break
        elif keyword in _UNKNOWN_KEY_KEYWORDS and isinstance(e.instance, Mapping):
            details = {"unexpected": _extra_keys(e.instance, e.schema, keyword)}
        elif keyword in ("anyOf", "oneOf") and e.context:
            details = {"context": [[c] for c in e.context]}
        yield keyword, list(e.absolute_path), e.schema, details

    def _explain(self, value: Any, keyword: str, path: list[Any], node: Any,
                 details: Any) -> list[Violation]:
        here = pointer(path)
        sent = value
        for part in path:  # the instance path comes from the validator: it exists in the value
            try:
                sent = sent[part]
            except (KeyError, IndexError, TypeError):
                sent = MISSING
                break
        if keyword in _UNKNOWN_KEY_KEYWORDS or keyword == "additionalProperties":
            unexpected = details.get("unexpected") if isinstance(details, Mapping) else None
            if not unexpected and isinstance(sent, Mapping) and isinstance(node, Mapping):
                unexpected = _extra_keys(sent, node, keyword)
            known = self._cached("known", node, lambda: _known_properties(node, self.schema))
            out = []
            for key in unexpected or []:
                key_text = str(key)
                guess = self._cached_key("guess", node, key_text,
                                         functools.partial(did_you_mean, key_text, known))
                hint = f"; did you mean '{guess}'?" if guess else ""
                where = "" if not path else f" in {_label(here)}"
                allowed = ", ".join(known[:12])
                out.append(Violation(
                    here + pointer([key]), keyword,
                    f"unknown argument '{_clip(str(key))}'{where}{hint}",
                    expected=f"only these keys: {allowed}" if known else "no other keys",
                    did_you_mean=guess))
            return out
        if keyword == "required":
            name = details.get("property") if isinstance(details, Mapping) else None
            names = [name] if name is not None else [
                p for p in (node or {}).get("required", []) if isinstance(sent, Mapping) and p not in sent]
            out = []
            for name in names:
                prop = _property_node(node, name, self.schema)
                where = "" if not path else f" in {_label(here)}"
                out.append(Violation(here + pointer([name]), "required",
                                     f"missing required argument '{_clip(str(name))}'{where}",
                                     expected=self.describe(prop) if prop is not None else None))
            return out
        sensitive = self.is_sensitive(here)
        if sensitive:
            attempted = REDACTED
        elif isinstance(sent, (dict, list)):
            attempted = cap_value(redact(sent, node, self.schema))
        else:
            attempted = cap_value(sent)
        expected = self.describe(node) if isinstance(node, Mapping) else None
        return [Violation(here, keyword, _keyword_message(keyword, here, node, sent, details),
                          expected=expected, attempted=attempted)]

    def _cached(self, kind: str, node: Any, compute: Callable[[], Any]) -> Any:
        # nodes belong to self.schema, which lives as long as self: their ids are stable keys
        key = (kind, id(node))
        value = self._memo.get(key, MISSING)
        if value is MISSING:
            value = self._memo[key] = compute()
        return value

    def _cached_key(self, kind: str, node: Any, key: str, compute: Callable[[], Any]) -> Any:
        """Like _cached, for caller-chosen strings: bounded, so odd inputs cannot grow it forever."""
        memo_key = (kind, id(node), key)
        value = self._key_memo.get(memo_key, MISSING)  # one lookup: safe against a concurrent clear
        if value is MISSING:
            if len(self._key_memo) >= _MEMO_LIMIT:
                self._key_memo.clear()
            value = self._key_memo[memo_key] = compute()
        return value

    def describe(self, node: Any) -> str | None:
        return self._cached("describe", node, lambda: describe(node, self.schema))  # type: ignore[no-any-return]

    def _node_at(self, schema_path: Sequence[Any]) -> Any:
        """The schema node holding the keyword at the end of ``schema_path``."""
        node: Any = self.schema
        for part in schema_path[:-1]:
            if isinstance(node, dict):
                node = node.get(part, MISSING) if isinstance(part, str) else MISSING
            elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
                node = node[part]
            else:
                return None
            if node is MISSING:
                return None
        return node

    def _node(self, schema_ptr: str) -> Any:
        node = resolve_pointer(self.schema, schema_ptr)
        return None if node is MISSING else node

    def is_sensitive(self, ptr: str) -> bool:
        """Whether the value at ``ptr`` is marked writeOnly / x-sensitive (at any depth) or
        carries a secret-looking name."""
        return self._cached_key("sensitive", None, ptr, lambda: self._sensitive(ptr))  # type: ignore[no-any-return]

    def _sensitive(self, ptr: str) -> bool:
        parts = pointer_parts(ptr)
        if any(_SENSITIVE_NAME.search(p) for p in parts):
            return True
        nodes = [self.schema]
        for part in parts:
            nodes = [n for node in nodes for n in _expand(node, self.schema)]
            if any(_marked(n) for n in nodes):
                return True
            nxt = []
            for node in nodes:
                nxt.extend(_children(node, part))
            nodes = nxt
            if not nodes:
                return False
        nodes = [n for node in nodes for n in _expand(node, self.schema)]
        return any(_marked(n) for n in nodes)


# -- helpers ---------------------------------------------------------------------------------

def _norm(name: str) -> str:
    return name.lower().replace("_", "").replace("-", "")


def _one_edit_apart(a: str, b: str) -> bool:
    """One insertion, deletion, substitution or adjacent swap turns a into b."""
    if abs(len(a) - len(b)) > 1 or a == b:
        return False
    if len(a) > len(b):
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    if len(a) == len(b):
        return a[i + 1:] == b[i + 1:] or (
            i + 1 < len(a) and a[i] == b[i + 1] and a[i + 1] == b[i] and a[i + 2:] == b[i + 2:])
    return a[i:] == b[i + 1:]


def did_you_mean(key: str, known: Sequence[str]) -> str | None:
    """The known name the caller most likely meant: same name modulo case/separators, one typo
    away, or (slower, last) difflib's closest match."""
    if not known:
        return None
    norm = _norm(key)
    for name in known:
        if _norm(name) == norm:
            return name
    for name in known:
        if _one_edit_apart(norm, _norm(name)):
            return name
    if len(key) > 64:
        return None
    guess = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    return guess[0] if guess else None


def _marked(node: Any) -> bool:
    return isinstance(node, Mapping) and (node.get("writeOnly") is True or
                                          node.get("x-sensitive") is True)


def _local_ref(root: Any, ref: Any) -> Any:
    if isinstance(ref, str) and ref.startswith("#"):
        target = resolve_pointer(root, ref[1:])
        return None if target is MISSING else target
    return None


def _expand(node: Any, root: Any, depth: int = 0) -> list[Any]:
    """The node plus what it points at or combines (local $ref, allOf/anyOf/oneOf branches)."""
    if not isinstance(node, Mapping) or depth > 8:
        return [node]
    out = [node]
    target = _local_ref(root, node.get("$ref"))
    if target is not None:
        out.extend(_expand(target, root, depth + 1))
    for key in ("allOf", "anyOf", "oneOf"):
        for branch in node.get(key, ()) or ():
            out.extend(_expand(branch, root, depth + 1))
    for key in ("then", "else"):
        if isinstance(node.get(key), Mapping):
            out.extend(_expand(node[key], root, depth + 1))
    return out


def _children(node: Any, part: str) -> list[Any]:
    if not isinstance(node, Mapping):
        return []
    out = []
    props = node.get("properties")
    if isinstance(props, Mapping) and part in props:
        out.append(props[part])
    patterns = node.get("patternProperties")
    if isinstance(patterns, Mapping):
        for pat, sub in patterns.items():
            try:
                if re.search(pat, part):
                    out.append(sub)
            except re.error:
                pass
    if not out and isinstance(node.get("additionalProperties"), Mapping):
        out.append(node["additionalProperties"])
    if part.isdigit():
        prefix = node.get("prefixItems")
        if isinstance(prefix, (list, tuple)) and int(part) < len(prefix):
            out.append(prefix[int(part)])
        elif isinstance(node.get("items"), Mapping):
            out.append(node["items"])
    return out


def _known_properties(node: Any, root: Any) -> list[str]:
    names: list[str] = []
    for n in _expand(node, root):
        if isinstance(n, Mapping) and isinstance(n.get("properties"), Mapping):
            names.extend(k for k in n["properties"] if k not in names)
    return names


def _property_node(node: Any, name: str, root: Any) -> Any:
    for n in _expand(node, root):
        if isinstance(n, Mapping) and isinstance(n.get("properties"), Mapping) and name in n["properties"]:
            return n["properties"][name]
    return None


def _extra_keys(instance: Mapping[str, Any], schema: Any, keyword: str) -> list[str]:
    if not isinstance(schema, Mapping):
        return []
    props = schema.get("properties") or {}
    patterns = list((schema.get("patternProperties") or {}).keys())
    extra = []
    for key in instance:
        if key in props:
            continue
        try:
            if any(re.search(p, key) for p in patterns):
                continue
        except re.error:
            pass
        extra.append(key)
    return extra


def _non_json_path(value: Any, path: tuple[Any, ...] = ()) -> tuple[tuple[Any, ...], str] | None:
    """Where a value stops being JSON (and which Python type is there), or None."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return None
    if isinstance(value, dict):
        for k, v in value.items():
            if not isinstance(k, str):
                return path, "a non-string key"
            found = _non_json_path(v, path + (k,))
            if found is not None:
                return found
        return None
    if isinstance(value, list):
        for i, v in enumerate(value):
            found = _non_json_path(v, path + (i,))
            if found is not None:
                return found
        return None
    return path, f"a {type(value).__name__}"


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return "non-JSON value"


def _label(ptr: str) -> str:
    return f"'{_clip(ptr.lstrip('/'))}'" if ptr else "the arguments"


def _clip(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _short(value: Any, limit: int = 40) -> str:
    if type(value) is str and len(value) < limit - 2 and value.isascii() and value.isprintable() \
            and '"' not in value and "\\" not in value:
        return f'"{value}"'  # what json.dumps would give, without its cost
    if type(value) is int or value is None or type(value) is bool:
        return "null" if value is None else ("true" if value is True else "false" if value is False else str(value))
    text = json.dumps(value, ensure_ascii=False, default=lambda o: f"<{type(o).__name__}>")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _keyword_message(keyword: str, here: str, node: Any, sent: Any, details: Any) -> str:
    label = _label(here)
    node = node if isinstance(node, Mapping) else {}
    if keyword == "type":
        want = node.get("type")
        want_text = " or ".join(want) if isinstance(want, (list, tuple)) else str(want)
        return f"{label} must be of type {want_text} (got {json_type(sent)})"
    if keyword == "enum":
        options = ", ".join(_short(o, 30) for o in list(node.get("enum", ()))[:10])
        return f"{label} must be one of: {options}"
    if keyword == "const":
        return f"{label} must be exactly {_short(node.get('const'))}"
    bounds = {"minimum": ">= {}", "maximum": "<= {}", "exclusiveMinimum": "> {}",
              "exclusiveMaximum": "< {}", "multipleOf": "a multiple of {}",
              "minLength": "at least {} characters long", "maxLength": "at most {} characters long",
              "minItems": "at least {} items", "maxItems": "at most {} items",
              "minProperties": "at least {} keys", "maxProperties": "at most {} keys",
              "minContains": "at least {} matching items", "maxContains": "at most {} matching items",
              "pattern": "a string matching {}", "format": "a valid {}"}
    if keyword in bounds and keyword in node:
        limit = node[keyword]
        shown = _short(limit, 60) if keyword == "pattern" else str(limit)
        return f"{label} must be {bounds[keyword].format(shown)}"
    if keyword == "uniqueItems":
        return f"{label} must not contain duplicate items"
    if keyword == "anyOf":
        return f"{label} matches none of the allowed shapes (anyOf)"
    if keyword == "oneOf":
        return f"{label} must match exactly one of the allowed shapes (oneOf)"
    if keyword == "not":
        return f"{label} has a value that is explicitly not allowed (not)"
    if keyword == "contains":
        return f"{label} must contain at least one matching item"
    if keyword == "dependentRequired":
        return f"{label} is missing a key required together with another key (dependentRequired)"
    if keyword == "false" or keyword == "falseSchema":
        return f"{label} is not allowed here"
    return f"{label} violates the '{keyword}' constraint"


def describe(node: Any, root: Any = None) -> str | None:
    """What the schema expects at a node: type, enum/const, bounds, description and examples."""
    if node is True:
        return "any value"
    if node is False:
        return "no value (not allowed)"
    if not isinstance(node, Mapping):
        return None
    parts: list[str] = []
    merged: dict[str, Any] = {}
    for n in _expand(node, root) if root is not None else [node]:
        if isinstance(n, Mapping):
            for k, v in n.items():
                merged.setdefault(k, v)
    typ = merged.get("type")
    if typ is not None:
        parts.append(" or ".join(typ) if isinstance(typ, (list, tuple)) else str(typ))
    if "enum" in merged:
        parts.append("one of " + ", ".join(_short(o, 30) for o in list(merged["enum"])[:10]))
    if "const" in merged:
        parts.append("exactly " + _short(merged["const"]))
    for key, text in (("minimum", ">= {}"), ("exclusiveMinimum", "> {}"), ("maximum", "<= {}"),
                      ("exclusiveMaximum", "< {}"), ("multipleOf", "multiple of {}"),
                      ("minLength", "min length {}"), ("maxLength", "max length {}"),
                      ("minItems", "min {} items"), ("maxItems", "max {} items"),
                      ("pattern", "matching {}"), ("format", "format {}")):
        if key in merged and not isinstance(merged[key], (Mapping, list, tuple)):
            value = merged[key]
            parts.append(text.format(_short(value, 60) if key == "pattern" else value))
    if merged.get("uniqueItems") is True:
        parts.append("no duplicates")
    text = ", ".join(parts)
    description = merged.get("description")
    if isinstance(description, str) and description:
        text = f"{text}: {description}" if text else description
    examples = merged.get("examples")
    if isinstance(examples, (list, tuple)) and examples and not _marked(merged):
        text += f" (e.g. {_short(examples[0], 60)})"
    text = text.strip()
    if not text:
        return None
    return text if len(text) <= EXPECTED_CAP else text[: EXPECTED_CAP - 1] + "…"


def redact(value: Any, node: Any, root: Any, depth: int = 0) -> Any:
    """``value`` with every part its schema marks sensitive replaced by ``[redacted]``."""
    nodes = _expand(node, root) if node is not None else []
    if any(_marked(n) for n in nodes):
        return REDACTED
    if depth > 20:
        return "…"
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            if _SENSITIVE_NAME.search(str(k)):
                out[k] = REDACTED
                continue
            children = [c for n in nodes for c in _children(n, str(k))]
            sub = children[0] if len(children) == 1 else ({"allOf": children} if children else None)
            out[k] = redact(v, sub, root, depth + 1)
        return out
    if isinstance(value, (list, tuple)):
        result = []
        for i, v in enumerate(value):
            children = [c for n in nodes for c in _children(n, str(i))]
            sub = children[0] if len(children) == 1 else ({"allOf": children} if children else None)
            result.append(redact(v, sub, root, depth + 1))
        return result
    return value


def cap_value(value: Any, limit: int = ATTEMPTED_CAP) -> Any:
    """A copy of a JSON value short enough to echo: long strings cut, big containers summarised."""
    if isinstance(value, str):
        return value if len(value) <= limit else value[:limit] + f"… ({len(value)} characters)"
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)  # NaN and infinities are not JSON: echo them as text
    if isinstance(value, (bool, int, float)) or value is None:
        if isinstance(value, int) and not isinstance(value, bool) and len(str(value)) > limit:
            return f"an integer with {len(str(value))} digits"
        return value
    if isinstance(value, (Mapping, list, tuple)):
        try:
            text = json.dumps(value, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError):  # not JSON (NaN, sets...): summarise instead of echoing
            text = None
        if text is not None and len(text) <= limit:
            return value
        if isinstance(value, Mapping):
            keys = ", ".join(str(k) for k in list(value)[:5])
            return f"an object with {len(value)} keys ({keys}{', …' if len(value) > 5 else ''})"
        return f"an array of {len(value)} items"
    return f"a non-JSON value of type {type(value).__name__}"


def first_lines(violations: Sequence[Violation], limit: int) -> str:
    """A message naming the first violation and how many more there are, within ``limit``."""
    if not violations:
        return "The arguments do not match the tool's input schema."
    first = violations[0].message
    more = len(violations) - 1
    text = f"Invalid arguments: {first}" + ("" if first.endswith(("?", ".", "!")) else ".")
    if more:
        text += f" {more} more problem{'s' if more > 1 else ''} in 'violations'."
    text += " Fix the arguments and call again."
    return text if len(text) <= limit else text[: limit - 1] + "…"


Retriever = Callable[[str], Any]
