"""JSON Schema 2020-12 checks for one contract schema: a fast yes/no, then rich, ranked violations.

The fast path is jsonschema-rs; the ``jsonschema`` package (compiler extra) serves only a schema
that jsonschema-rs cannot compile.
Both run the same 2020-12 semantics (no coercion: "5" is not 5; ``format`` is an annotation unless
asked for). Violations are computed only when a value is invalid, so the happy path costs one
``is_valid`` call.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import itertools
import json
import math
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from .install_hint import install_hint
from .jsonvalue import (
    INT_CEILING,
    INT_DIGITS_CAP,
    INT_FLOOR,
    MAX_DEPTH,
    MISSING,
    json_type,
    larger_than,
    lone_surrogate,
    members_up_to,
    non_json_path,
    oversized_int,
    oversized_int_in,
    shortened,
    thaw,
    too_deep,
)
from .pointer import cap_pointer, escape_token, pointer, pointer_parts, resolve_pointer
from .redaction import (
    ATTEMPTED_CAP,
    REDACTED,
    cap_value,
    echo_at,
    echo_unmarked,
    redact,
    sensitive_at,
    sensitive_name,
)
from .schema_resolve import first_marked, lists_secrets, marked_below, nodes_at
from .schema_walk import (
    child_nodes,
    expand,
    extra_keys,
    holds_scalars_only,
    known_properties,
    number_judging_names,
    property_node,
)
from .visible import escaped
from .wording import (
    ARGUMENTS,
    EXPECTED_CAP,
    HIDDEN_DETAILS,
    LIST_CAP,
    NEAR_MISS_CUTOFF,
    RANK,
    Subject,
    Violation,
    clip,
    close_budget,
    describe,
    did_you_mean,
    field_label,
    first_lines,
    keyword_message,
    listed,
    near_miss_notice,
    open_budget,
    rank_of,
    similarity_budget,
)

_rs: Any
try:  # optional accelerator; the runtime works without it
    import jsonschema_rs as _rs
except ImportError:  # pragma: no cover - exercised in the no-extra install
    _rs = None

JSON = Any
#: what other modules import from here (kept stable when helpers moved to their own modules)
__all__ = [
    "ATTEMPTED_CAP",
    "EXPECTED_CAP",
    "MISSING",
    "REDACTED",
    "SchemaCheck",
    "Violation",
    "cap_pointer",
    "cap_value",
    "child_nodes",
    "describe",
    "did_you_mean",
    "expand",
    "field_label",
    "first_lines",
    "json_type",
    "pointer",
    "redact",
    "resolve_pointer",
    "thaw",
]

_UNKNOWN_KEY_KEYWORDS = frozenset({"additionalProperties", "unevaluatedProperties"})
#: why a key the schema declares somewhere is still refused by each of them
_NOT_APPLYING = {
    "unevaluatedProperties": "a shape it belongs to does not match: see that shape's problem",
    "additionalProperties": "additionalProperties reads only the properties beside it, not those "
                            "inside allOf/anyOf/oneOf or a $ref",
}
_DETAILED = frozenset({"required", "additionalProperties", "unevaluatedProperties", "anyOf", "oneOf"})
_MEMO_LIMIT = 4096
#: Raw errors enumerated per value at most, and violations explained in detail at most.
COUNT_CAP = 1000
EXPLAIN_CAP = 50
#: Members of one array or object examined in detail when explaining; past them only the fast
#: yes/no looked.
ITEM_CAP = 1000
#: Bound on (members examined per container) x (schema weight): the validator's errors for one
#: member grow with the subschemas that may apply to it (every anyOf/oneOf branch is a Python error
#: object) and with the enums its messages list, so a heavy schema examines fewer members. 2,000
#: wrong items of a 50-branch oneOf took 2 s to enumerate; now 20 members are. A schema without
#: branches or long enums keeps ITEM_CAP.
DETAIL_WORK = 4000
_NEEDS_ALL_MEMBERS = frozenset({"minItems", "contains", "minContains", "required", "minProperties",
                                "dependentRequired", "dependentSchemas"})
#: Keywords a schema may hold for its errors to be read from jsonschema-rs ``evaluate()`` (flat
#: leaf errors, each located by a schema and an instance pointer, about a third of the cost of
#: ``iter_errors()``, which builds an exception object per error). Combinators and conditional
#: applicators are not among them: their errors are explained branch by branch, from the grouped
#: errors only ``iter_errors()`` gives. ``x-`` extension keys are ignored by both.
_FLAT_KEYWORDS = frozenset({
    "type", "enum", "const", "required", "properties", "additionalProperties", "items", "prefixItems",
    "minLength", "maxLength", "pattern", "format", "minimum", "maximum", "exclusiveMinimum",
    "exclusiveMaximum", "multipleOf", "minItems", "maxItems", "uniqueItems", "minProperties",
    "maxProperties", "$defs", "definitions", "$ref", "$schema", "$comment",
    "title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly",
    "contentEncoding", "contentMediaType", "nullable"})
#: Values with more members than this are explained through the lazy ``iter_errors()`` (which
#: stops after COUNT_CAP errors) rather than ``evaluate()``, which lists every error at once.
FLAT_VALUE_CAP = 200
NOTICE_SCAN = 50  # undeclared keys looked at for near misses (a call may send 100,000)
NOTICE_CAP = 5


class Mistake(NamedTuple):
    """A flat call's errors as ``evaluate()`` gives them (None where the signature was read member by
    member: ``explain`` asks for them if it needs them), and the signature of its mistake: what its
    explanation depends on besides the values it echoes (``SchemaCheck.mistake``)."""

    signature: tuple[Any, ...]
    evaluated: list[dict[str, Any]] | None
    #: the names its signature holds a placeholder for (``SchemaCheck._unknown_names``)
    unknown: list[str]


class Plan(NamedTuple):
    """How a recipe explained calls of one signature: per violation (the name whose value it echoes,
    or None for one shown as made, or _AN_UNKNOWN_NAME for one made anew; the enum node guessed
    against, or the closed node refusing the unknown name; the violation the recipe made), and
    whether any step guesses (did-you-mean work, bounded per call)."""

    steps: tuple[tuple[Any, Any, Violation], ...]
    guesses: bool


def _refuses_long_integers(validator: Any, name: str) -> bool:
    """Whether ``validator`` refuses, at the top-level member ``name``, an integer too long to read of
    either sign (see ``SchemaCheck._refuses_long_integers_at``)."""
    for probe in (INT_CEILING, INT_FLOOR):  # 4,301 digits: one more than the runtime reads
        try:
            errors = list(itertools.islice(validator.iter_errors({name: probe}), COUNT_CAP))
        except Exception:  # noqa: BLE001 - unproven: the member stays searched
            return False
        if not any(list(error.instance_path) == [name] for error in errors):
            return False
    return True


@functools.lru_cache(maxsize=4096)
def _self_contained_member_refuses_long_integers(member_text: str, dialect: Any, formats: bool) -> bool:
    """``_refuses_long_integers`` for a member schema that refers to nothing, decided once per text:
    a probe costs about a millisecond (the backend reads the 4,301 digits), and a server's tools
    repeat the same few member shapes (``{"type": "integer", "minimum": 1}``) across a thousand tools."""
    root: dict[str, Any] = {"properties": {"m": json.loads(member_text)}}
    if isinstance(dialect, str):
        root["$schema"] = dialect
    try:
        validator = _rs.validator_for(root, validate_formats=formats or None)
    except Exception:  # noqa: BLE001 - unproven: the member stays searched
        return False
    return _refuses_long_integers(validator, "m")


class SchemaCheck:
    """A compiled schema: ``is_valid`` for the fast path and ``violations`` for the details.

    ``resources`` maps absolute URIs to schemas that ``$ref`` may point at (nothing is ever fetched
    over the network). ``formats=True`` turns ``format`` into an assertion. ``subject`` words the
    messages for the caller's arguments (the default) or for a tool's result (``wording.RESULT``).
    """

    def __init__(self, schema: Any, *, resources: Mapping[str, Any] | None = None,
                 formats: bool = False, prefer_fast: bool = True, subject: Subject = ARGUMENTS) -> None:
        self.schema = thaw(schema)
        self.subject = subject
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
        #: per closed object node: what the violation of an unknown name there reads of it (_root_unknown_name)
        self._root_words: dict[int, tuple[list[str], tuple[str, ...], frozenset[str], str | None]] = {}
        self._enum_texts: dict[int, tuple[str, ...]] = {}  # per enum node: its texts (_enum_guess)
        self._explained: dict[tuple[Any, ...], tuple[list[Violation], int]] = {}
        self._located: dict[str, tuple[str, Any]] = {}  # evaluate()'s schema locations, read once
        #: per (keyword, instance path, node, JSON type sent): a violation to reword for a new value
        self._templates: dict[tuple[Any, ...], tuple[Violation, bool]] = {}
        #: per places of a flat call's errors (see _recipe): how to explain a new call of that shape,
        #: or None where the templates do not reproduce the full explanation
        self._recipes: dict[tuple[Any, ...], tuple[tuple[int, Violation, Any], ...] | None] = {}
        self._places_seen: set[tuple[Any, ...]] = set()  # learnt from the second call of its places
        #: per shape of a nested call with a ``value_key`` (``_shape``): whether the full path cuts nothing of it
        self._uncut_shapes: dict[Any, bool] = {}
        #: per signature of a flat call's mistake (``Mistake``): the recipe that explained it, with
        #: the name each filled-in violation echoes (see ``echoes``)
        self._plans: dict[tuple[Any, ...], Plan] = {}
        #: top-level names of an open object schema (unknown keys pass it), for near-miss notices;
        #: None when the root is closed or declares nothing
        self.open_names: frozenset[str] | None = _open_root_names(self.schema) if subject is ARGUMENTS else None
        #: errors can be read from evaluate(): jsonschema-rs compiled it and it is made of flat keywords
        self._flat = self._rs is not None and _flat_schema(self.schema)
        #: the names of a closed flat root whose unknown names are all worded alike (see ``_places``)
        self._closed_names = _closed_root_names(self.schema) if self._flat else None
        #: per declared name of a flat root whose members are judged one by one: its schema's scalar
        #: rules (see ``_member_failures``); None where a call's errors are read off evaluate(). Compiled
        #: at the first bad call (_UNREAD till then): a tool of 10,000 names pays only if it is misused
        self._member_rules: Any = _UNREAD if self._flat else None
        #: where a value the backend accepts may hide an integer too long to read (jsonschema-rs reads
        #: one inside a value as 0): () nowhere, top-level names, or None for anywhere
        self.number_names = number_judging_names(self.schema)
        if self.number_names and self._rs is not None:  # the hot path searches each name left here
            self.number_names = tuple(name for name in self.number_names
                                      if not self._refuses_long_integers_at(name))
        #: members of one container examined in detail when explaining (see DETAIL_WORK)
        self.member_cap = max(2, min(ITEM_CAP, DETAIL_WORK // _schema_weight(self.schema)))
        #: the backend's bare yes/no, for a caller that binds it on its hot path: it raises ValueError
        #: on values that are not plain JSON and does not see the integers ``number_names`` points at
        #: (``is_valid`` does both)
        self.bare_is_valid: Callable[[Any], bool] = (
            self._rs.is_valid if self._rs is not None else self._py.is_valid)

    def _refuses_long_integers_at(self, name: str) -> bool:
        """Whether jsonschema-rs refuses every integer too long to read at the top-level member
        ``name``, which then needs no search for one: the member accepts scalars only (no container
        could hide one deeper), and the backend refuses, at the member itself, what it makes of a long
        integer of either sign. It makes the same of each (none turns into text; it reads 0), so one
        probe per sign stands for all; a minimum of 1, say, refuses them all. The member's verdict
        depends on its own value alone: a keyword relating members makes ``number_names`` None."""
        properties = self.schema.get("properties") if isinstance(self.schema, Mapping) else None
        member = properties.get(name) if isinstance(properties, Mapping) else None
        if not holds_scalars_only(member, self.schema):
            return False
        try:
            text: str | None = json.dumps(member, sort_keys=True, allow_nan=False)
        except (TypeError, ValueError):
            text = None
        if text is not None and '"$' not in text:  # no reference, anchor or dialect: the text decides
            return _self_contained_member_refuses_long_integers(text, self.schema.get("$schema"), self.formats)
        return _refuses_long_integers(self._rs, name)

    @property
    def backend(self) -> str:
        return "jsonschema-rs" if self._rs is not None else "jsonschema"

    def _retrieve_rs(self, uri: str) -> Any:
        if uri in self.resources:
            return self.resources[uri]
        raise ValueError("remote references are not fetched; pass them as resources")

    def _python_validator(self) -> Any:
        try:
            import jsonschema  # type: ignore[import-untyped,unused-ignore]
        except ImportError as exc:  # a runtime-only install: jsonschema comes with the compiler extra
            raise ImportError("jsonschema-rs cannot compile this schema and the reference validator "
                              f"is not installed: {install_hint('compiler')}") from exc
        import referencing
        import referencing.exceptions
        from referencing.jsonschema import DRAFT202012

        resources = self.resources

        def retrieve(uri: str) -> Any:
            if uri in resources:
                return referencing.Resource.from_contents(resources[uri],
                                                          default_specification=DRAFT202012)
            raise referencing.exceptions.NoSuchResource(ref=uri)  # type: ignore[call-arg]

        from .reference_validator import validator_class  # needs jsonschema: imported here only

        # patterns read as jsonschema-rs reads them; one it cannot judge fails, as there
        cls = validator_class(jsonschema.validators.validator_for(
            self.schema, default=jsonschema.Draft202012Validator), strict=False)
        registry = referencing.Registry(retrieve=retrieve)  # type: ignore[call-arg]
        kwargs: dict[str, Any] = {"registry": registry}
        if self.formats:
            kwargs["format_checker"] = cls.FORMAT_CHECKER
        return cls(self.schema, **kwargs)

    # -- fast path --------------------------------------------------------------------------
    def is_valid(self, value: Any) -> bool:
        if self._rs is not None:
            try:
                valid = bool(self._rs.is_valid(value))
            except ValueError:  # not a JSON value (tuple, datetime, ...): retry on a plain copy
                plain = thaw(value)
                if plain is value or non_json_path(plain) is not None:
                    return False
                valid = bool(self._rs.is_valid(plain))
        else:
            try:
                valid = bool(self._py.is_valid(value))
            except ValueError:  # jsonschema turns an integer into text and CPython refuses a long one
                if oversized_int(value) is None:
                    raise
                return False
        return valid and oversized_int_in(value, self.number_names) is None

    # -- details ----------------------------------------------------------------------------
    def violations(self, value: Any) -> list[Violation]:
        """The violations, most useful first (unknown keys, missing, type, then constraints)."""
        return self.explain(value)[0]

    def explain(self, value: Any, *, key: Any = MISSING,
                mistake: Mistake | None = None) -> tuple[list[Violation], int]:
        """(the violations explained, how many more were found but not explained).

        The work is bounded whatever the value: only the first ``member_cap`` members of an array or
        object are examined in detail (``ITEM_CAP``, fewer for a heavy schema: ``DETAIL_WORK``) (the fast validator already said the value is invalid), at most
        ``COUNT_CAP`` raw errors are enumerated and ``EXPLAIN_CAP`` explained (the envelope's 4,000
        bytes hold fewer).

        The explanation is a function of the value alone, and a model often sends the same wrong
        call again: a small object of short scalars (what most arguments are) is its own memo key,
        so a repeated call is answered without asking the validator again. The list returned may be
        a kept one: read it, do not change it. ``key``: ``value_key(value)``, when the caller has it;
        ``mistake``: ``self.mistake(value, key)``, when the caller has it (its errors are not asked
        for again, and the recipe that explains it is kept under its signature: ``plan``).
        """
        if key is MISSING:
            key = value_key(value)
        raw: list[tuple[str, list[Any], Any, Any]] | None = None
        if key is not None:
            kept = self._explained.get(key)
            if kept is not None:
                return kept
            raw = self._flat_call_errors(value, None if mistake is None else mistake.evaluated)
            if raw is not None:
                recipe = self._recipe(value, raw)
                if recipe is not None:
                    quick = self._follow(recipe, value, raw)
                    self._keep(key, (quick, 0))
                    if mistake is not None:
                        self._keep_plan(mistake.signature, recipe, raw, quick)
                    return quick, 0
        with similarity_budget():
            token = _closest_work.set([CLOSEST_WORK])
            try:
                explanation = self._explain_value(value) if raw is None else self._explain_raw(value, raw, ())
            finally:
                _closest_work.reset(token)
        if key is not None:
            self._keep(key, explanation)
            if raw is not None and not explanation[1]:
                self._learn_recipe(value, raw, explanation[0])
        return explanation

    # -- a new call of a known shape --------------------------------------------------------------
    # A flat call (an object of short scalars) whose errors are templated values (``_from_template``)
    # or, on a flat schema, missing and unknown names, is explained by templates alone: which ones, in
    # which order, masked or not, is a function of its names and the places of its errors (keyword,
    # name, schema node, JSON type sent). That recipe is learnt from the full explanation of the
    # second call of those places, and kept only when following it gives that very explanation; a
    # new value at known places then skips the ranking, masking and de-duplication of the full path
    # (tests/test_argument_errors.py checks a warm guard against fresh ones over runs of such calls).

    def _flat_call_errors(self, value: dict[str, Any],
                          evaluated: list[dict[str, Any]] | None = None) -> list[tuple[str, list[Any], Any, Any]] | None:
        """The raw errors of a flat call, ranked as ``_explain_value`` ranks them; None where the full
        path would read the call otherwise (cut to ``member_cap``, or an integer too long to read).
        ``evaluated``: ``evaluate()``'s errors of the call, when the caller has them (``mistake``)."""
        if not self._cuts_nothing(value):
            return None
        for member in value.values():
            if type(member) is int and not INT_FLOOR < member < INT_CEILING:
                return None
        try:
            raw = _bounded(self._raw_errors(value) if evaluated is None else self._evaluated_errors(value, evaluated))
        except ValueError:  # a lone surrogate: the full path says where
            return None
        raw.sort(key=lambda item: RANK.get(item[0], 4))
        return raw

    def _cuts_nothing(self, value: dict[str, Any]) -> bool:
        """Whether the full path reads all of a call that has a ``value_key`` (``_explain_value`` cuts
        nothing of it): each of its scalars weighs 1 (``scalar_weight``), so only sizes can be cut."""
        if len(value) > self.member_cap:
            return False
        if _SCALAR_KEYS.issuperset(map(type, value.values())):
            return True
        shape = _shape(value)  # what shortened() reads of such a call: the sizes of its containers
        verdict = self._uncut_shapes.get(shape)
        if verdict is None:
            if len(self._uncut_shapes) >= _MEMO_LIMIT:
                self._uncut_shapes.clear()
            verdict = self._uncut_shapes[shape] = not shortened(
                value, self.member_cap, DETAIL_MEMBERS * self.member_cap, weigh=True)[1]
        return verdict

    def _recipe(self, value: dict[str, Any], raw: list[tuple[str, list[Any], Any, Any]]) -> tuple[tuple[int, Violation, Any], ...] | None:
        places = self._places(value, raw)
        return None if places is None else self._recipes.get(places)

    def _follow(self, recipe: tuple[tuple[int, Violation, Any], ...], value: dict[str, Any],
                raw: list[tuple[str, list[Any], Any, Any]]) -> list[Violation]:
        """The violations ``recipe`` makes of ``value``. A step is (the index of the raw error whose
        value a templated violation echoes, the template, an enum's node for its did-you-mean), or
        (_AS_SHOWN, the violation, None), or (_UNKNOWN_NAME_STEP, the learning call's violation, the node
        refusing the call's next unknown name: ``_unknown_names`` lists them in the order their
        violations come)."""
        guesses = any(node is not None for _, _, node in recipe)  # did-you-means, bounded as always
        unknown = iter(self._unknown_names(value))
        with similarity_budget() if guesses else contextlib.nullcontext():
            return [shown if index == _AS_SHOWN
                    else self._root_unknown_name(next(unknown), node)
                    if index == _UNKNOWN_NAME_STEP
                    else self._filled(shown, value[raw[index][1][0]], node)
                    for index, shown, node in recipe]

    def _filled(self, shown: Violation, sent: Any, node: Any) -> Violation:
        """``shown`` (a template) echoing ``sent``, as ``_from_template`` words it."""
        attempted, guess = self._echo(sent, node, shown.field)
        return Violation(shown.field, shown.constraint, shown.message, expected=shown.expected,
                         attempted=attempted, did_you_mean=guess)

    def _echo(self, sent: Any, node: Any, field: str) -> tuple[Any, str | None]:
        """(what a templated violation at ``field`` echoes of ``sent``, its enum's did-you-mean when
        ``node`` is one). A recipe fills in a container only where no secret can be inside
        (``_learn_recipe``): it is echoed as ``_explain_once`` echoes it, names like secrets hidden."""
        if type(sent) is list or type(sent) is dict:
            return self._echo_container(sent, field), None
        return cap_value(sent), None if node is None or not isinstance(sent, str) else self._enum_guess(node, sent)

    def _echo_container(self, sent: Any, field: str) -> Any:
        """``echo`` of an array or object sent at ``field``, as ``_explain_once`` echoes it: hidden at a
        sensitive position; where no mark reaches inside either (both kept per field), only what
        secret-looking names hold is hidden, with no schema walked per call."""
        if self.is_sensitive(field):
            return REDACTED
        if self.holds_secrets(field):
            return self.echo(sent, pointer_parts(field))
        return echo_unmarked(sent)

    def _enum_guess(self, node: Any, sent: str) -> str | None:
        """The text of ``node``'s enum that ``sent`` most likely meant, by the cheap tiers of did-you-mean
        only (same modulo case, or one typo away), kept per text sent (as ``_cached_key`` keeps)."""
        memo_key = ("enum-guess", id(node), sent)
        guess = self._key_memo.get(memo_key, MISSING)
        if guess is MISSING:
            texts = self._enum_texts.get(id(node))
            if texts is None:  # (the nodes of self.schema live as long as self: their ids are stable keys)
                texts = self._enum_texts[id(node)] = tuple(o for o in node["enum"] if isinstance(o, str))
            guess = self._kept_key(memo_key, did_you_mean(sent, texts, None))
        return guess  # type: ignore[no-any-return]

    # -- a new value at places explained before, straight to its echoes --------------------------
    # A flat call's signature (``mistake``) says everything its places say (``_places``), read off
    # evaluate()'s errors without making them raw ones. Once a recipe has explained a signature, a
    # new call of it needs only what its violations echo (``echoes``): the guard fills those into the
    # envelope it kept for the explanation's shape (argument_errors.ShapedErrors.known), and no
    # violation is made at all (tests/test_argument_errors.py checks the answers agree).

    def mistake(self, value: dict[str, Any], key: tuple[Any, ...]) -> Mistake | None:
        """For a flat call not explained before (``key``, its ``value_key``, is not None): evaluate()'s
        errors and the signature of its mistake (its names, each member's JSON type, and where each
        error sits in the schema and in the call). None where ``explain`` reads the call otherwise."""
        if not self._flat or key in self._explained or not self._cuts_nothing(value):
            return None
        kinds: tuple[Any, ...] = tuple(map(type, value.values()))
        if float in kinds:  # 1.0 is an integer, 1.5 a number: what a message says the call sent
            if not all(map(math.isfinite, (m for m in value.values() if type(m) is float))):
                return None
            kinds = tuple(json_type(m) if type(m) is float else kind for kind, m in zip(kinds, value.values()))
        if self._member_rules is _UNREAD:
            self._member_rules = self._compile_member_rules()
        names, unknown = self._names_read(value)
        if self._member_rules is not None:
            failures = self._member_failures(value)
            return None if failures is None else Mistake((names, kinds, _BY_MEMBER, failures), None, unknown)
        try:
            evaluated = self._rs.evaluate(value).errors()
        except ValueError:  # a lone surrogate: the full path says where
            return None
        return Mistake((names, kinds, *[(e["schemaLocation"], e["instanceLocation"]) for e in evaluated]),
                       evaluated, unknown)

    # A flat root whose members' schemas hold only rules a scalar can fail one by one (``type``, an
    # enum, bounds...) and whose own errors depend on the names sent alone (``required``, a closed
    # root's unknown names) fails a flat call exactly at the rules each member fails on its own. The
    # signature then reads each member with a validator per rule, asked only when the member's
    # validator refuses it: about a third of what evaluate() costs (it words every error) for the
    # bench's four-problem mistake. The first plan kept checks the rules agree with evaluate() there.

    def _compile_member_rules(self) -> dict[str, Any] | None:
        """Per declared name with rules: (its scalar rules' yes/no, (rule, that rule's yes/no) per rule, or
        (the rule,) for one rule); None where the members cannot be
        judged one by one (a root or a member schema with another keyword, a $ref, a rule the backend
        cannot compile alone)."""
        root = self.schema
        if not isinstance(root, dict) or not _ROOT_BY_NAMES.issuperset(k for k in root if not k.startswith("x-")) \
                or root.get("additionalProperties", True) not in (True, False) \
                or not isinstance(root.get("properties", {}), dict):
            return None
        rules: dict[str, Any] = {}
        try:
            for name, node in root.get("properties", {}).items():
                rule = self._member_rule(node)
                if rule is not None:
                    rules[name] = rule
        except _NotByMember:
            return None
        return rules

    def _member_rule(self, node: Any) -> Any:
        """One declared name's entry of ``_compile_member_rules`` (raises _NotByMember): None for a
        schema without rules; a schema of one rule is (its yes/no, (the rule,)), ``false`` one refusing
        every value."""
        if node is True or node is False:
            return None if node else (_refuses, _REFUSED_MEMBER)
        if not isinstance(node, dict):
            raise _NotByMember
        own = {k: v for k, v in node.items() if k in _SCALAR_RULES}
        if any(k not in _SCALAR_RULES and k not in _SCALAR_SILENT and not k.startswith("x-") for k in node):
            raise _NotByMember
        if not own:
            return None
        formats = self.formats or None
        try:
            each = tuple((k, _rs.validator_for({k: v}, validate_formats=formats).is_valid) for k, v in own.items())
            if len(each) == 1:  # (the member's yes/no is the rule's: the rule's name is what it fails)
                return each[0][1], (each[0][0],)
            return _rs.validator_for(own, validate_formats=formats).is_valid, each
        except Exception as exc:  # a rule the backend cannot compile alone: evaluate() reads it
            raise _NotByMember from exc

    def _member_failures(self, value: dict[str, Any]) -> tuple[Any, ...] | None:
        """(name, the rules its member fails) per member of ``value`` failing its declared schema, in the
        call's order; None where the backend cannot read a member (a lone surrogate)."""
        rules = self._member_rules
        assert rules is not None
        found = []
        try:
            for name, member in value.items():
                rule = rules.get(name)
                if rule is None:  # (an undeclared name is the root's error; a schema without rules takes all)
                    continue
                whole, each = rule
                if not whole(member):  # (a schema of one rule fails that rule)
                    found.append((name, each if type(each[0]) is str else
                                  tuple([keyword for keyword, ok in each if not ok(member)])))
        except ValueError:
            return None
        return tuple(found)

    def _members_agree(self, failures: tuple[Any, ...], raw: list[tuple[str, list[Any], Any, Any]]) -> bool:
        """Whether the raw errors evaluate() gave a call are those its signature read member by member:
        the same rules failed at the same names, and at the root only what the names decide."""
        at_root = {keyword for keyword, path, _, _ in raw if not path}
        by_member = sorted((path[0], keyword) for keyword, path, _, _ in raw if path)
        return at_root <= {"required", "additionalProperties"} and all(len(path) <= 1 for _, path, _, _ in raw) \
            and by_member == sorted((name, keyword) for name, keywords in failures for keyword in keywords)

    def _keep_plan(self, signature: tuple[Any, ...], recipe: tuple[tuple[int, Violation, Any], ...],
                   raw: list[tuple[str, list[Any], Any, Any]], followed: list[Violation]) -> None:
        """Keep how ``recipe`` explained a call of ``signature`` (``followed``, the violations it made)."""
        if signature not in self._plans:
            if signature[2:3] == (_BY_MEMBER,) and not self._members_agree(signature[3], raw):
                self._member_rules = None  # read off evaluate() from now on
                return
            if len(self._plans) >= _MEMO_LIMIT:
                self._plans.clear()
            steps = tuple(
                (None, None, made) if index == _AS_SHOWN else (_AN_UNKNOWN_NAME, node, made)
                if index == _UNKNOWN_NAME_STEP else (raw[index][1][0], node, made)
                for (index, _, node), made in zip(recipe, followed))
            self._plans[signature] = Plan(steps, any(node is not None for _, node, _ in steps))

    def plan(self, signature: tuple[Any, ...]) -> Plan | None:
        """How a recipe explained calls of ``signature`` (a ``Mistake``'s), or None if none has."""
        return self._plans.get(signature)

    @staticmethod
    def made_anew(plan: Plan) -> tuple[bool, ...]:
        """Which violations of ``plan`` ``echoes`` makes whole: those naming the call's unknown names."""
        return tuple(name is _AN_UNKNOWN_NAME for name, _, _ in plan.steps)

    def echoes(self, plan: Plan, value: dict[str, Any],
               unknown_names: list[str] | None = None) -> list[tuple[Any, str | None] | Violation]:
        """(attempted, did_you_mean) of each violation explaining ``value`` by ``plan``, as ``explain``
        would make them; the whole violation where it names one of the call's unknown names (``made_anew``;
        ``unknown_names``: ``_unknown_names(value)``, when the caller has them from its ``Mistake``)."""
        unknown = iter(self._unknown_names(value) if unknown_names is None else unknown_names)
        echoes: list[tuple[Any, str | None] | Violation] = []
        budget = open_budget() if plan.guesses else None  # did-you-means, bounded as always
        try:
            for name, node, shown in plan.steps:
                if name is None:
                    echoes.append((shown.attempted, shown.did_you_mean))
                elif name is _AN_UNKNOWN_NAME:
                    echoes.append(self._root_unknown_name(next(unknown), node))
                else:
                    sent = value[name]
                    if type(sent) is str and len(sent) <= ATTEMPTED_CAP:  # (_echo's answer: a short text is its own echo)
                        echoes.append((sent, None if node is None else self._enum_guess(node, sent)))
                    else:
                        echoes.append(self._echo(sent, node, shown.field))
        finally:
            if budget is not None:
                close_budget(budget)
        return echoes

    def _learn_recipe(self, value: dict[str, Any], raw: list[tuple[str, list[Any], Any, Any]],
                      explained: list[Violation]) -> None:
        """Keep the recipe of ``value``'s places when following it gives ``explained``: each violation
        a templated error shows is filled in afresh, every other one (a missing or unknown name, a
        masked value) is the same for every call of these places."""
        places = self._places(value, raw)
        if places is None or places in self._recipes:
            return
        if places not in self._places_seen:  # most places never come back (a new unknown name is one)
            if len(self._places_seen) >= _MEMO_LIMIT:
                self._places_seen.clear()
            self._places_seen.add(places)
            return
        fills: dict[tuple[str, str, str], tuple[int, Violation, Any]] = {}
        for index, (keyword, path, node, _) in enumerate(raw):
            if keyword not in _TEMPLATED:
                continue
            template = self._templates.get((keyword, tuple(path), id(node), json_type(value[path[0]])))
            if template is None:
                return  # explained afresh (a long enum...): no recipe for these places
            shown, sensitive = template
            if sensitive and type(value[path[0]]) in (list, dict):
                return  # what of it is shown depends on what it holds: explained afresh
            if not sensitive and self.masked(shown) is shown:  # else nothing of the value is shown
                fills.setdefault((shown.field, shown.constraint, shown.message),
                                 (index, shown, node if keyword == "enum" else None))
        named = {pointer([name]) for name in self._unknown_names(value)}
        unknown_at = next((node for keyword, path, node, _ in raw if keyword == "additionalProperties" and not path), None)
        recipe = tuple(
            (_UNKNOWN_NAME_STEP, v, unknown_at) if v.constraint == "additionalProperties" and v.field in named
            and unknown_at is not None else fills.get((v.field, v.constraint, v.message), (_AS_SHOWN, v, None))
            for v in explained)
        follows = self._follow(recipe, value, raw) == explained
        if len(self._recipes) >= _MEMO_LIMIT:
            self._recipes.clear()
        self._recipes[places] = recipe if follows else None

    def _places(self, value: dict[str, Any], raw: list[tuple[str, list[Any], Any, Any]]) -> tuple[Any, ...] | None:
        """What a flat call's explanation depends on besides the values it echoes: its names, and each
        error's keyword, name, schema node and the JSON type sent there (1.0 is an integer). None
        unless every error is a templated one at a name or, where no combinator can make a name's
        schema depend on a value (``_flat``), a missing or unknown name of the call."""
        places: list[Any] = [self._names_worded(value)]
        for keyword, path, node, _ in raw:
            if len(path) == 1 and keyword in _TEMPLATED:
                places.append((keyword, path[0], id(node), json_type(value[path[0]])))  # as templates are kept
            elif not path and self._flat and keyword in _KEY_NAMING:
                places.append((keyword, None, id(node), dict))
            else:
                return None
        return tuple(places)

    def _names_worded(self, value: dict[str, Any]) -> tuple[Any, ...]:
        """A flat call's names as its explanation depends on them: the unknown names of a closed root
        (``_unknown_names``) are one placeholder each, since their violations say the same of every
        name (``_unknown_name``): a model's misspelt name is new call after call."""
        return self._names_read(value)[0]

    def _unknown_names(self, value: dict[str, Any]) -> list[str]:
        """The names ``_names_worded`` holds a placeholder for, in the call's order (which is the order
        their violations are listed in): not declared by the closed root, nor named like a secret."""
        return self._names_read(value)[1]

    def _names_read(self, value: dict[str, Any]) -> tuple[tuple[Any, ...], list[str]]:
        """(``_names_worded(value)``, ``_unknown_names(value)``), read in one pass."""
        closed = self._closed_names
        if closed is None or closed.issuperset(value):  # (the usual call names none: asked in C)
            return tuple(value), []
        names: list[Any] = []
        unknown: list[str] = []
        for name in value:
            if name in closed or sensitive_name(name):
                names.append(name)
            else:
                names.append(_AN_UNKNOWN_NAME)
                unknown.append(name)
        return tuple(names), unknown

    def _explain_value(self, value: Any) -> tuple[list[Violation], int]:
        whole_value = value
        value, cut = shortened(value, self.member_cap, DETAIL_MEMBERS * self.member_cap, weigh=True)
        deep = too_deep(value)
        if deep is not None:  # a validator walking it could overflow its stack
            return [nested_too_deep(deep)], 0
        huge = oversized_int(whole_value)  # one pass, depth-bounded
        if huge is not None:  # anywhere: the backend's errors around it were read off a 0
            return [integer_too_long(huge, self.subject)], 0
        try:
            raw = _bounded(self._raw_errors(value))
        except ValueError:  # not plain JSON: convert read-only mappings and tuples, or say where
            broken = lone_surrogate(value)
            if broken is not None:  # jsonschema-rs reads some strings as UTF-8 and raises there
                return [text_not_unicode(broken, self.subject)], 0
            bad = non_json_path(thaw(value))
            if bad is not None:
                where = pointer(bad[0])
                verb = "is" if where else "are"
                return [Violation(where, "type",
                                  f"{field_label(where, self.subject)} {verb} not a JSON value (got {bad[1]})",
                                  expected="a JSON value")], 0
            value = thaw(value)
            raw = _bounded(self._raw_errors(value))
        proven: list[Violation] = []
        hints: list[Violation] = []
        if cut:
            proven, hints = self._whole_array_claims(whole_value, value, cut, raw)
            raw = list(itertools.islice(_claimable(raw, cut, whole_value), COUNT_CAP))
        raw.sort(key=lambda item: RANK.get(item[0], 4))  # explain the most useful ones first
        violations, omitted = self._explain_raw(value, raw, cut)
        if proven or hints:
            violations = [v for v in violations if (v.field, v.constraint) != ("", "false")] + proven
            violations = violations or hints  # a hint only where nothing else explains the call
        return violations, omitted

    def _whole_array_claims(self, whole_value: Any, value: Any, cut: frozenset[tuple[Any, ...]],
                            raw: list[tuple[str, list[Any], Any, Any]]) -> tuple[list[Violation], list[Violation]]:
        """(what a cut array's ``uniqueItems`` proves of the whole array: two equal items, by index;
        what its ``contains`` can say: that none of the items examined matches, a hint only, since a
        later item may). Without these a bad call got only "not accepted by the schema", or no
        explanation at all."""
        proven: list[Violation] = []
        hints: list[Violation] = []
        examined = {tuple(path) for keyword, path, _, _ in raw if keyword == "contains"}
        unique_known = {tuple(path) for keyword, path, _, _ in raw if keyword == "uniqueItems"}
        left = _EQUAL_ITEMS_CAP  # items hashed in all: a call may hold many big arrays
        for path in sorted(cut, key=lambda cut_path: (len(cut_path), pointer(cut_path))):  # stable order
            whole = _at(whole_value, list(path))
            if type(whole) is not list:
                continue
            where = pointer(path)
            label = field_label(where, self.subject)
            if left > 0 and path not in unique_known and any(isinstance(node, Mapping) and node.get("uniqueItems") is True
                                                for node in nodes_at(self.schema, path, self.resources)):
                pair = _equal_items(whole, left)
                left -= len(whole)
                if pair is not None:
                    proven.append(Violation(where, "uniqueItems", f"{label} must not contain duplicate "
                                            f"items (items {pair[0]} and {pair[1]} are equal)"))
            if path in examined:
                shown = _at(value, list(path))
                count = len(shown) if isinstance(shown, list) else 0
                hints.append(Violation(where, "contains", f"{label} must contain at least one matching "
                                       f"item; none of its first {count} items matches"))
        return proven, hints

    def _explain_raw(self, value: Any, raw: list[tuple[str, list[Any], Any, Any]],
                     cut: Any) -> tuple[list[Violation], int]:
        """The explanation of ``value`` from its ranked raw errors (``cut``: the paths shortened)."""
        keys = [_explanation_key(value, *item) for item in raw]
        whole = tuple(keys) if raw and not cut and None not in keys \
            and not any(_echoes_container(key) for key in keys if key is not None) else None
        if whole is not None:  # the same mistakes as an earlier call: the same explanation
            kept = self._explained.get(whole)
            if kept is not None:
                return kept
        found: list[Violation] = []
        omitted = 0
        for item, key in zip(raw, keys):
            explained, skipped = self._explain(value, *item, room=EXPLAIN_CAP - len(found), key=key)
            found.extend(explained)
            omitted += skipped
        if not found and not self.is_valid(value):
            found.append(Violation("", "false", f"{self.subject.whole} are not accepted by the schema"
                                   if self.subject is ARGUMENTS else f"{self.subject.whole} is not accepted by the schema"))
        seen: set[tuple[str, str, str]] = set()
        unique = []
        for v in map(self.masked, found):
            key = (v.field, v.constraint, v.message)
            if key not in seen:
                seen.add(key)
                unique.append(v)
        unique.sort(key=rank_of)
        if whole is not None:
            self._keep(whole, (unique, omitted))
        return unique, omitted

    def _keep(self, key: tuple[Any, ...], explanation: tuple[list[Violation], int]) -> None:
        if len(self._explained) >= _MEMO_LIMIT:  # bounded: odd inputs cannot grow it forever
            self._explained.clear()
        self._explained[key] = explanation

    def _raw_errors(self, value: Any) -> Iterator[tuple[str, list[Any], Any, Any]]:
        """(keyword, instance path, the schema node holding the keyword, details) per raw error."""
        if self._flat and not larger_than(value, FLAT_VALUE_CAP):
            yield from self._evaluated_errors(value)
            return
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
                path = list(e.instance_path)
                holder = self._node_at(e.schema_path)
                if name == "propertyNames":
                    holder, details = _name_error_details(kind, holder)
                elif name == "falseSchema" and _through_property_names(e.schema_path):
                    # `propertyNames: false` is one error at the object: every name of it is refused
                    names = _at(value, path)
                    for refused in names if isinstance(names, Mapping) else ():
                        yield "propertyNames", path, False, {"name": refused, "keyword": "falseSchema"}
                    continue
                elif name == "falseSchema" and _flat_keyword(list(e.schema_path), holder) == "additionalProperties":
                    # jsonschema-rs names `additionalProperties: false` beside no `properties` a false
                    # schema at the object: it is an unknown key ("the arguments are not allowed here");
                    # read as evaluate() is read, so a property *named* additionalProperties stays one
                    name = "additionalProperties"
                    if path and not isinstance(_at(value, path), Mapping):  # reported at the member
                        details, path = {"unexpected": [path[-1]]}, path[:-1]
                yield name, path, holder, details
            return
        for e in self._py.iter_errors(value):
            yield from self._python_error(e)

    def _evaluated_errors(self, value: Any,
                          evaluated: list[dict[str, Any]] | None = None) -> Iterator[tuple[str, list[Any], Any, Any]]:
        """The raw errors of a flat schema from ``evaluate()`` (``evaluated``: its errors, when the
        caller has them): the same tuples ``iter_errors()`` gives, with the details that need it (a
        missing or unknown name) left for ``_explain`` to read off the value
        (tests/test_guard_paths.py proves the explanations equal)."""
        listed_here: set[tuple[str, int]] = set()
        located = self._located
        for error in self._rs.evaluate(value).errors() if evaluated is None else evaluated:
            where = error["schemaLocation"]
            found = located.get(where)
            if found is None:  # schema locations are the schema's own pointers: a finite set
                location = pointer_parts(where)
                holder = self._node_at(location) if location else self.schema
                found = located[where] = (_flat_keyword(location, holder), holder)
            keyword, holder = found
            at = error["instanceLocation"]
            if keyword == "required":
                # one error per missing name here, one per name in iter_errors: _explain lists
                # every missing name of the object from the value, once
                if (at, id(holder)) in listed_here:
                    continue
                listed_here.add((at, id(holder)))
            yield keyword, _instance_path(value, pointer_parts(at)) if at else [], holder, {}

    def _python_error(self, e: Any) -> Iterator[tuple[str, list[Any], Any, Any]]:
        keyword = str(e.validator)
        details: dict[str, Any] = {}
        if isinstance(e.instance, str) and _through_property_names(e.relative_schema_path):
            # jsonschema reports a refused name as the name's own error (a failed "pattern" at the
            # object), which read as "the object must be a string matching..."
            yield "propertyNames", list(e.absolute_path), e.schema, {
                "name": e.instance, "keyword": "falseSchema" if e.validator is None else keyword}
            return
        if keyword == "required" and isinstance(e.instance, Mapping):
            # jsonschema yields one error per missing name; recover the name from the error itself
            missing = [p for p in e.validator_value if p not in e.instance]
            for name in missing:
                if repr(name) in e.message:
                    details = {"property": name}
                    break
        elif keyword in _UNKNOWN_KEY_KEYWORDS and isinstance(e.instance, Mapping):
            details = {"unexpected": extra_keys(e.instance, e.schema, keyword)}
        elif keyword in ("anyOf", "oneOf") and e.context:
            by_branch: dict[int, list[Any]] = {}  # jsonschema lists the failing branches' errors flat
            for c in e.context:
                by_branch.setdefault(c.relative_schema_path[0] if c.relative_schema_path else 0, []).append(c)
            details = {"context": [by_branch[i] for i in sorted(by_branch)], "branches": sorted(by_branch)}
        yield keyword, list(e.absolute_path), e.schema, details

    def _explain(self, value: Any, keyword: str, path: list[Any], node: Any, details: Any,
                 room: int, key: Any = MISSING) -> tuple[list[Violation], int]:
        """(up to ``room`` violations for one raw error, how many more it holds).

        An explanation is a function of the error and of the value where it sits; when that value
        is a short scalar (or, for a missing or unknown key, the object's key names) it is kept, so
        a model that repeats a mistake is answered without explaining it again.
        """
        if room <= 0:
            return self._explain_once(value, keyword, path, node, details, room)
        if key is MISSING:
            key = _explanation_key(value, keyword, path, node, details)
        if key is None:
            return self._explain_once(value, keyword, path, node, details, room)
        kept = self._explained.get(key)
        if kept is None:
            kept = self._from_template(value, keyword, path, node, details)
            if not _echoes_container(key):
                self._keep(key, kept)
        violations, skipped = kept
        return violations[:room], skipped + max(len(violations) - room, 0)

    def _from_template(self, value: Any, keyword: str, path: list[Any], node: Any,
                       details: Any) -> tuple[list[Violation], int]:
        """The explanation of a short scalar's failed keyword. Where the message and the expectation
        depend on the sent value's JSON type alone (``_TEMPLATED``), the violation first made at a place
        is kept as a template, and only what echoes the value (``attempted``, an enum's did-you-mean) is
        made afresh: a new wrong value at a known place costs no wording."""
        if keyword not in _TEMPLATED or not isinstance(node, Mapping) or keyword == "enum" and (
                not isinstance(node.get("enum"), list) or len(node["enum"]) > LIST_CAP):
            return self._explain_once(value, keyword, path, node, details, EXPLAIN_CAP)
        sent = value
        for part in path:  # the caller made a memo key of it: the path exists
            sent = sent[part]
        place = (keyword, tuple(path), id(node), json_type(sent))
        template = self._templates.get(place)
        if template is None:
            made = self._explain_once(value, keyword, path, node, details, EXPLAIN_CAP)
            if len(made[0]) == 1 and not made[1]:
                if len(self._templates) >= _MEMO_LIMIT:
                    self._templates.clear()
                field = made[0][0].field
                self._templates[place] = (made[0][0], self.is_sensitive(field) or self.holds_secrets(field))
            return made
        shown, sensitive = template
        if type(sent) is list or type(sent) is dict:  # echoed redacted where it is not hidden whole
            return [Violation(shown.field, keyword, shown.message, expected=shown.expected,
                              attempted=self._echo_container(sent, shown.field))], 0
        if sensitive:  # nothing of the value is echoed: the template is the whole answer
            return [shown], 0
        guess = None
        if keyword == "enum" and isinstance(sent, str):  # as _explain_once guesses
            guess = self._enum_guess(node, sent)
        return [Violation(shown.field, keyword, shown.message, expected=shown.expected, attempted=cap_value(sent),
                          did_you_mean=guess)], 0

    def _explain_once(self, value: Any, keyword: str, path: list[Any], node: Any, details: Any,
                      room: int) -> tuple[list[Violation], int]:
        if room <= 0:
            unexpected = details.get("unexpected") if isinstance(details, Mapping) else None
            return [], len(unexpected) if isinstance(unexpected, (list, tuple)) and unexpected else 1
        here = pointer(path)
        expected: str | None  # what the violation says the place takes, where anything can be said
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
                unexpected = extra_keys(sent, node, keyword)
            known = self._known(node)
            unexpected = list(unexpected or [])
            out = [self._unknown_name(key, keyword, path, here, node, known) for key in unexpected[:room]]
            return out, max(len(unexpected) - room, 0)
        if keyword == "required":
            name = details.get("property") if isinstance(details, Mapping) else None
            names = [name] if name is not None else [
                p for p in (node or {}).get("required", []) if isinstance(sent, Mapping) and p not in sent]
            out = []
            for name in names:
                prop = property_node(node, name, self.schema)
                where = "" if not path else f" in {field_label(here, self.subject)}"
                field = here + pointer([name])
                # the property's own node may not carry its mark (dependentSchemas, if/then add it)
                expected = None if prop is None else describe(prop, self.schema, hidden=True) \
                    if self.is_sensitive(field) else self.describe(prop)
                out.append(Violation(field, "required",
                                     f"missing required {self.subject.noun} '{clip(str(name))}'{where}",
                                     expected=expected))
            return out[:room], max(len(out) - room, 0)
        if keyword == "propertyNames" and isinstance(details, Mapping) and isinstance(sent, Mapping):
            name = details.get("name")
            if isinstance(name, str) and name in sent:
                return [self._refused_name(here, path, node, name, details.get("keyword"))], 0
        sensitive = self.is_sensitive(here)
        if sensitive:
            attempted = REDACTED
        elif isinstance(sent, (dict, list)):
            attempted = self.echo(sent, [str(p) for p in path])
        else:  # a scalar where a value holding secrets belongs may be one of them, sent astray
            attempted = REDACTED if self.holds_secrets(here) else cap_value(sent)
        if keyword in ("anyOf", "oneOf") and isinstance(details, Mapping) and details.get("context"):
            closest = self._closest_branch(value, keyword, here, node, details)
            if closest is not None:
                closest.attempted = attempted
                return [closest], 0
        # allowed values holding secrets inside (an enum of objects with a marked member) are not listed
        sensitive = sensitive or keyword in ("enum", "const") and lists_secrets(node, self.schema, self.resources)
        guess = None
        if sensitive:  # no allowed value and no ranking by what was sent: either may tell the secret
            expected = describe(node, self.schema, hidden=True) if isinstance(node, Mapping) else None
        elif keyword == "enum" and isinstance(node, Mapping) and isinstance(node.get("enum"), list):
            enum = node["enum"]
            # a long list keeps the values closest to what was sent, in the expectation too
            expected = describe(node, self.schema, sent) if len(enum) > LIST_CAP else self.describe(node)
            if isinstance(sent, str):  # the cheap tiers only: same modulo case, or one typo away
                guess = self._enum_guess(node, sent)
        else:
            expected = self.describe(node) if isinstance(node, Mapping) else None
        return [Violation(here, keyword, keyword_message(keyword, here, node, sent, details, self.subject,
                                                         hidden=sensitive),
                          expected=expected, attempted=attempted, did_you_mean=guess)], 0

    def _known(self, node: Any) -> list[str]:
        """The names ``node`` declares (through ``$ref`` too), in their order."""
        return self._cached("known", node, lambda: known_properties(node, self.schema))  # type: ignore[no-any-return]

    def _root_unknown_name(self, name: str, node: Any) -> Violation:
        """The violation of a call's name the closed root ``node`` does not take (a recipe's or plan's
        step made anew for each call): ``_unknown_name``'s, with what it reads of ``node`` read once."""
        words = self._root_words.get(id(node))
        if words is None:  # (the nodes of self.schema live as long as self: their ids are stable keys)
            known = self._known(node)
            expected = None if len(known) > 12 else "no other keys" if not known else \
                f"only these keys: {listed(known, cap=12, quoted=False)}"
            words = self._root_words[id(node)] = (known, tuple(known), frozenset(known), expected)
        known, names, declared, expected = words
        if expected is None or name in declared:  # a list ranked by the name, or a name declared elsewhere
            return self._unknown_name(name, "additionalProperties", [], "", node, known)
        return self._guessed(name, "additionalProperties", "", "", node, names, expected)

    def _unknown_name(self, key: Any, keyword: str, path: list[Any], here: str, node: Any,
                      known: list[str]) -> Violation:
        """The violation of a name ``node`` (at ``here``) does not take: unknown, with the declared
        name it most likely misspells."""
        key_text = str(key)
        where = "" if not path else f" in {field_label(here, self.subject)}"
        allowed = self._cached("allowed", node, lambda: listed(known, cap=12, quoted=False)) \
            if len(known) <= 12 else listed(known, key_text, cap=12, quoted=False)
        expected = f"only these keys: {allowed}" if known else "no other keys"
        if key_text in known:
            # declared, but only by a part of the schema that does not count here: a shape the value
            # fails (unevaluatedProperties), or one additionalProperties does not read. "unknown 'a';
            # did you mean 'a'?" told the caller to drop a right key.
            return Violation(here + pointer([key]), keyword,
                             f"{self.subject.noun} '{clip(key_text)}'{where} is declared only by a part of the "
                             f"schema that does not apply here ({_NOT_APPLYING[keyword]})", expected=expected,
                             secondary=True)
        return self._guessed(key_text, keyword, here, where, node, known, expected)

    def _guessed(self, name: str, keyword: str, here: str, where: str, node: Any, known: Sequence[str],
                 expected: str) -> Violation:
        """The violation of an unknown ``name``, naming the declared name it most likely misspells."""
        memo_key = ("guess", id(node), name)  # (as ``_cached_key`` keeps it, without a closure per call)
        guess = self._key_memo.get(memo_key, MISSING)
        if guess is MISSING:
            guess = self._kept_key(memo_key, did_you_mean(name, known))
        hint = f"; did you mean '{escaped(guess)}'?" if guess else ""
        token = escape_token(name) if "~" in name or "/" in name else name  # (pointer([name]), written out)
        return Violation(f"{here}/{token}", keyword, f"unknown {self.subject.noun} '{clip(name)}'{where}{hint}",
                         expected=expected, did_you_mean=guess)

    def _refused_name(self, here: str, path: list[Any], node: Any, name: str, keyword: Any) -> Violation:
        """The violation of a member name ``propertyNames`` refuses, at the member, naming it and the
        rule it broke (as an unknown name is named). A name of a value whose names are secret is
        masked by the caller like any violation inside it."""
        where = "" if not path else f" in {field_label(here, self.subject)}"
        label = f"{self.subject.noun} name '{clip(name)}'{where}"
        message = keyword_message(str(keyword), here, node, name, {}, self.subject, label=label)
        return Violation(here + pointer([name]), "propertyNames", message,
                         expected=self.describe(node) if isinstance(node, Mapping) else None)

    def _closest_branch(self, value: Any, keyword: str, here: str, node: Any,
                        details: Mapping[str, Any]) -> Violation | None:
        """The anyOf/oneOf violation explained against the branch the value came closest to: the
        branch with no shape mismatch (type, const, enum) where it sits, then the fewest problems."""
        branches = node.get(keyword) if isinstance(node, Mapping) else None
        if not isinstance(branches, list):
            return None
        indexes = details.get("branches") or range(len(details["context"]))
        best: tuple[tuple[bool, int], int, list[Violation]] | None = None
        work = _closest_work.get()
        for index, errors in zip(indexes, details["context"]):
            raw = list(itertools.islice(self._branch_errors(errors), COUNT_CAP))
            if not raw:
                return None  # a branch matched: oneOf failed on several matches, not on closeness
            shape_wrong = any(k in ("type", "const", "enum", "false") and pointer(p) == here for k, p, _, _ in raw)
            score = (shape_wrong, len(raw))
            if best is None or score < best[0]:
                if work is not None:  # nested branches explain their own: bounded per call, not per level
                    if work[0] < len(raw):
                        work[0] = 0
                        return None  # the plain keyword message instead
                    work[0] -= len(raw)
                explained = [self.masked(v) for item in raw for v in self._explain(value, *item, room=EXPLAIN_CAP)[0]]
                explained.sort(key=rank_of)
                best = (score, index, explained)
        if best is None or not best[2] or not 0 <= best[1] < len(branches):
            return None
        (shape_wrong, _), index, explained = best
        label = field_label(here, self.subject)
        verb = "match" if not here and self.subject is ARGUMENTS else "matches"
        head = f"{label} {verb} none of the allowed shapes ({keyword})"
        if shape_wrong:  # no branch has the value's shape: name them all instead of guessing one
            names = [_shape_name(b, self.schema) or "?" for b in branches]
            expected = " or ".join(dict.fromkeys(clip(n, 40) for n in names))
            sent = resolve_pointer(value, here)
            return Violation(here, keyword, f"{head}: expected {expected} (got {json_type(sent)})",
                             expected=expected)
        branch = branches[index]
        name = _shape_name(branch, self.schema)
        shape = f"shape {index + 1} of {len(branches)}" + (f" ({clip(name, 40)})" if name else "")
        more = len(explained) - 1
        tail = f" ({more} more problem{'s' if more > 1 else ''} there)" if more else ""
        return Violation(here, keyword, f"{head}; closest is {shape}: {explained[0].message}{tail}",
                         expected=describe(branch, self.schema, hidden=True) if self.is_sensitive(here)
                         else self.describe(branch),
                         did_you_mean=next((v.did_you_mean for v in explained if v.did_you_mean), None))

    def _branch_errors(self, errors: Any) -> Iterator[tuple[str, list[Any], Any, Any]]:
        for e in errors:
            if self._rs is not None and hasattr(e, "kind"):
                name = e.kind.name
                details: Any = {}
                if name in _DETAILED:
                    try:
                        details = e.kind.as_dict()
                    except Exception:  # noqa: BLE001
                        details = {}
                holder = self._node_at(e.schema_path)
                if name == "propertyNames":
                    holder, details = _name_error_details(e.kind, holder)
                yield name, list(e.instance_path), holder, details
            else:
                yield from self._python_error(e)

    def notices(self, arguments: Mapping[str, Any]) -> list[dict[str, str]]:
        """For valid ``arguments`` on an open schema: a notice per undeclared top-level key that is a
        near miss of a declared name the caller did not send (``ownr`` for ``owner``). Bounded work:
        at most NOTICE_SCAN undeclared keys are looked at and NOTICE_CAP notices made."""
        names = self.open_names
        if not names:
            return []
        known = self._cached("known", self.schema, lambda: sorted(names))
        found: list[dict[str, str]] = []
        undeclared = [k for k in itertools.islice((k for k in arguments if k not in names), NOTICE_SCAN)
                      if isinstance(k, str) and len(k) <= 64]
        for key in extra_keys(dict.fromkeys(undeclared), self.schema, "additionalProperties"):
            meant = self._cached_key("near", self.schema, key,
                                     functools.partial(did_you_mean, key, known, NEAR_MISS_CUTOFF))
            if meant is not None and meant not in arguments:
                found.append(near_miss_notice(key, meant))
                if len(found) >= NOTICE_CAP:
                    break
        return found

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
            value = self._kept_key(memo_key, compute())
        return value

    def _kept_key(self, memo_key: tuple[str, int, str], value: Any) -> Any:
        """``value`` kept under ``memo_key`` by ``_cached_key``'s bound."""
        if len(self._key_memo) >= _MEMO_LIMIT:
            self._key_memo.clear()
        self._key_memo[memo_key] = value
        return value

    def describe(self, node: Any) -> str | None:
        return self._cached("describe", node, lambda: describe(node, self.schema))  # type: ignore[no-any-return]

    def _node_at(self, schema_path: Sequence[Any]) -> Any:
        """The schema node holding the keyword at the end of ``schema_path``."""
        node: Any = self.schema
        for part in schema_path[:-1]:
            if isinstance(node, dict):
                node = node.get(part, MISSING) if isinstance(part, str) else MISSING
            elif isinstance(node, list) and (isinstance(part, int) or part.isdigit()) \
                    and 0 <= int(part) < len(node):  # evaluate() gives indexes as text
                node = node[int(part)]
            else:
                return None
            if node is MISSING:
                return None
        return node

    def is_sensitive(self, ptr: str) -> bool:
        """Whether the value at ``ptr`` is marked writeOnly / x-sensitive (at any depth) or
        carries a secret-looking name."""
        return self._cached_key("sensitive", None, ptr, lambda: self._sensitive(ptr))  # type: ignore[no-any-return]

    def holds_secrets(self, ptr: str) -> bool:
        """Whether a schema marked sensitive applies somewhere inside a value at ``ptr``."""
        return self._cached_key("holds", None, ptr, lambda: marked_below(  # type: ignore[no-any-return]
            nodes_at(self.schema, pointer_parts(ptr), self.resources), self.schema, self.resources))

    def _sensitive(self, ptr: str) -> bool:
        parts = pointer_parts(ptr)
        return sensitive_at(self.schema, parts, self.resources)

    def masked(self, violation: Violation) -> Violation:
        """``violation`` as it may be shown: one found below a sensitive position (a key or index
        inside a writeOnly / x-sensitive value, or under a secret-looking name) becomes a violation of
        that position, naming nothing inside it; the member names of a secret value are part of it."""
        where = self._cached_key("masked-at", None, violation.field, lambda: self._masked_at(violation.field))
        if where is None:
            return violation
        verb = "do" if not where and self.subject is ARGUMENTS else "does"  # "the arguments do not"
        return Violation(where, violation.constraint,
                         f"{field_label(where, self.subject)} {verb} not match the schema ({HIDDEN_DETAILS})",
                         attempted=REDACTED, secondary=violation.secondary)

    def _masked_at(self, field: str) -> str | None:
        """The sensitive position a violation at ``field`` is shown at instead, or None to show it."""
        parts = pointer_parts(field)
        if not parts:
            return None
        depth = self._sensitive_depth(tuple(parts[:-1]))  # a violation at the position itself stays
        return None if depth is None else pointer(parts[:depth])

    def _sensitive_depth(self, parts: tuple[str, ...]) -> int | None:
        """How many leading ``parts`` reach the first sensitive position on the way, or None (a
        violation's parent path: shared by its siblings, so the walk is kept per path)."""
        by_name = next((i for i, part in enumerate(parts, 1) if sensitive_name(part)), None)
        by_mark = self._cached_key("marked-depth", None, pointer(parts),
                                   lambda: first_marked(self.schema, parts, self.resources))
        found = [d for d in (by_name, by_mark) if d is not None]
        return min(found) if found else None

    def echo(self, sent: Any, parts: Sequence[str], limit: int = ATTEMPTED_CAP) -> Any:
        """What may be echoed of ``sent`` at the instance position ``parts``: redacted by the
        resolved schema (remote documents included), capped at ``limit`` characters."""
        return echo_at(sent, parts, self.schema, self.resources, limit)


#: What the validator may spend producing one call's raw errors, in units of about 20 us here: an
#: error costs one, plus one per error in its anyOf/oneOf branches (each a Python object) and one per
#: 80 values of the enum its message lists. COUNT_CAP errors of a 50-branch oneOf, or of a
#: 10,000-value enum, took two seconds.
RAW_WORK_CAP = 3000
#: Members examined in detail in one whole value, in units of ``member_cap`` (the cap per container):
#: nested containers multiplied it (1,000 arrays of 1,000 wrong strings took 16 s to explain).
DETAIL_MEMBERS = 2
#: Raw errors that explaining failed anyOf/oneOf branches against the closest one may explain in
#: one call, all nesting levels together: each nested failed combinator explains its own branches,
#: so 10,000 strings in arrays nested three deep under a recursive anyOf took 13 s (past it, the
#: plain keyword message is given: "matches none of the allowed shapes").
CLOSEST_WORK = 400
_closest_work: contextvars.ContextVar[list[int] | None] = contextvars.ContextVar("closest_work", default=None)


def _through_property_names(schema_path: Iterable[Any]) -> bool:
    """Whether an error's schema path passes through a ``propertyNames`` keyword (not a property, a
    definition or a pattern of that name): its error is about a member name."""
    names_next = False  # whether the token read names a subschema rather than a keyword
    for token in schema_path:
        if token == "propertyNames" and not names_next:
            return True
        names_next = not names_next and token in _NAMING_SUBSCHEMAS
    return False


#: keywords whose next schema-path token is a name the author chose, not a keyword
_NAMING_SUBSCHEMAS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})


def _name_error_details(kind: Any, holder: Any) -> tuple[Any, dict[str, Any]]:
    """(the schema node, the details) of a jsonschema-rs ``propertyNames`` error: the name refused
    and the keyword of ``propertyNames``' schema it failed (a ``false`` one holds none)."""
    try:
        inner = kind.error
        name, keyword = inner.instance, inner.kind.name
    except Exception:  # noqa: BLE001 - then the plain keyword message
        return holder, {}
    if keyword == "falseSchema":
        holder = False
    return holder, {"name": name, "keyword": keyword}


def _bounded(errors: Iterator[tuple[str, list[Any], Any, Any]]) -> list[tuple[str, list[Any], Any, Any]]:
    """The first raw errors, at most COUNT_CAP of them and within RAW_WORK_CAP (always one)."""
    taken: list[tuple[str, list[Any], Any, Any]] = []
    work = 0
    for item in errors:
        taken.append(item)
        keyword, _, node, details = item
        work += 1
        if keyword in ("anyOf", "oneOf") and isinstance(details, Mapping):
            work += sum(len(branch) for branch in details.get("context") or ()
                        if isinstance(branch, (list, tuple)))
        elif keyword == "enum" and isinstance(node, Mapping) and isinstance(node.get("enum"), list):
            work += len(node["enum"]) // 80
        if len(taken) >= COUNT_CAP or work >= RAW_WORK_CAP:
            break
    return taken


def _claimable(raw: list[tuple[str, list[Any], Any, Any]], cut: frozenset[tuple[Any, ...]],
               whole_value: Any) -> Iterator[tuple[str, list[Any], Any, Any]]:
    """The raw errors of a shortened copy that hold of the whole value. What only a cut container's
    tail could settle is not claimed of it, except a missing name: the names the schema node requires
    of the whole object are looked up in it, one raw error per name missing there."""
    looked_up: set[tuple[tuple[Any, ...], int]] = set()
    for item in raw:
        keyword, path, node, _ = item
        if keyword not in _NEEDS_ALL_MEMBERS or tuple(path) not in cut:
            yield item
        elif keyword == "required" and isinstance(node, Mapping) and (tuple(path), id(node)) not in looked_up:
            looked_up.add((tuple(path), id(node)))  # jsonschema-rs: one error per name, dependentRequired's too
            whole = _at(whole_value, path)
            if isinstance(whole, Mapping):
                yield from ((keyword, path, node, {"property": name}) for name in _required_of(node, whole)
                            if name not in whole)


def _required_of(node: Mapping[str, Any], whole: Mapping[str, Any]) -> Iterator[str]:
    """The names ``node`` requires of the object ``whole``: its ``required``, and the
    ``dependentRequired`` names of each member ``whole`` holds."""
    required = node.get("required")
    yield from (name for name in required if isinstance(name, str)) if isinstance(required, list) else ()
    dependent = node.get("dependentRequired")
    if isinstance(dependent, Mapping):
        for trigger, names in dependent.items():
            if trigger in whole and isinstance(names, list):
                yield from (name for name in names if isinstance(name, str))


def integer_too_long(path: Sequence[Any], subject: Subject = ARGUMENTS) -> Violation:
    """The violation for an integer of more than INT_DIGITS_CAP digits at ``path``."""
    where = cap_pointer(pointer(path))
    return Violation(where, "type", f"{field_label(where, subject)} is an integer of more than {INT_DIGITS_CAP} "
                     "digits, too long to check", expected=f"an integer of at most {INT_DIGITS_CAP} digits")


def text_not_unicode(path: Sequence[Any], subject: Subject = ARGUMENTS) -> Violation:
    """The violation for a string or key holding a lone surrogate code point at ``path``, which the
    validator cannot read and no UTF-8 reply could quote."""
    where = cap_pointer(pointer(path))
    verb = "hold" if not where and subject is ARGUMENTS else "holds"
    return Violation(where, "type", f"{field_label(where, subject)} {verb} text that is not valid Unicode "
                     "(a lone surrogate code point, in a key or a string)",
                     expected="strings and keys of Unicode characters (UTF-8 encodable)")


def unreadable_arguments() -> Violation:
    """The violation for arguments that raise when read (a mapping or sequence of the caller's own
    type whose methods fail): they are not JSON, and nothing of them is echoed."""
    return Violation("", "type", "the arguments could not be read as a JSON value (an object in them "
                     "failed when read)", expected="a JSON object of plain values")


def nested_too_deep(path: Sequence[Any]) -> Violation:
    """The violation for a value nested past ``MAX_DEPTH`` levels (or a cycle) at ``path``."""
    where = cap_pointer(pointer(path))
    return Violation(where, "type", f"{field_label(where)} is nested more than {MAX_DEPTH} levels deep",
                     expected=f"a JSON value nested at most {MAX_DEPTH} levels deep")


def too_many_members(cap: int) -> Violation:
    """The violation for arguments holding more than ``cap`` members in all (counted per path)."""
    return Violation("", "type", f"the arguments hold more than {cap} values in all",
                     expected=f"arguments of at most {cap} values")


#: Keywords whose subschemas each add errors for one member: combinator branches (grouped into an
#: error's context), allOf's parts (each fails on its own: 100 parts over 1,000 items made 100,000
#: errors, 1.1 s) and dependent schemas (one per key present).
_BRANCHING = frozenset({"anyOf", "oneOf", "allOf", "dependentSchemas"})


def _schema_weight(schema: Any) -> int:
    """About how many error objects the validator may make for one member beyond its own, and how
    big: the subschemas inside anyOf/oneOf branches (each failing branch's errors become Python
    objects) and dependentSchemas; one per 80 values of each enum (its messages list them; a text
    counts once more per 100 characters); one per ``_RENDERED_MEMBERS_PER_UNIT`` members of a
    ``const`` or of an enum's objects and arrays; one per ``_NAMES_PER_UNIT`` names a ``required`` or
    ``dependentRequired`` lists; ``_PROPERTY_NAMES_WEIGHT`` per ``propertyNames``. 1 for a schema
    with none of these, whose members keep the full ITEM_CAP."""
    weight = 1
    names = 0  # summed before dividing: 100 one-name lists (in allOf parts) are 100 names
    todo: list[tuple[Any, bool]] = [(schema, False)]
    while todo and weight + names // _NAMES_PER_UNIT < DETAIL_WORK:
        node, branched = todo.pop()
        if isinstance(node, Mapping):
            weight += branched
            enum = node.get("enum")
            if isinstance(enum, list):  # a long text renders like many short ones
                weight += sum(1 + len(option) // 100 if isinstance(option, str) else 1 for option in enum) // 80
                weight += sum(_literal_members(option) for option in enum) // _RENDERED_MEMBERS_PER_UNIT
            if "const" in node:  # every error renders it whole
                weight += _literal_members(node["const"]) // _RENDERED_MEMBERS_PER_UNIT
            names += _names_listed(node)
            if "propertyNames" in node:  # one error per bad name, each carrying the whole object
                weight += _PROPERTY_NAMES_WEIGHT
            todo.extend((v, branched or k in _BRANCHING) for k, v in node.items()
                        if k not in ("enum", "const", "default", "examples"))
        elif isinstance(node, list):
            todo.extend((v, branched) for v in node)
    return weight + names // _NAMES_PER_UNIT


#: Members of a ``const`` or of an enum's objects and arrays per unit of schema weight: each error
#: renders the whole value in its message (a 1,000-member const, 1,000 wrong items: 0.33 s).
_RENDERED_MEMBERS_PER_UNIT = 60


def _literal_members(literal: Any) -> int:
    """The members a literal holds at any depth, counted up to what already makes the heaviest weight."""
    return members_up_to(literal, DETAIL_WORK * _RENDERED_MEMBERS_PER_UNIT)


#: Names a ``required``/``dependentRequired`` may list per unit of schema weight. Each name missing is
#: an error carrying a copy of the whole object (jsonschema-rs builds them all at once, about 11 us
#: each): 200 names each requiring 200 others, sent with those 200 names, made 40,000 errors of a
#: 200-member object (4 s); 100 names required of each item of an array, sent 5,000 one-member
#: objects (60 KB), made 100,000 (1.3 s). (members examined) x (names listed) stays under
#: DETAIL_WORK x this. Of the 185 corpus input schemas, two list enough names to examine fewer
#: than ITEM_CAP members (400 and 800).
_NAMES_PER_UNIT = 2
#: The weight of a ``propertyNames``: each name it refuses is an error carrying a copy of the object,
#: so the work grows with the square of the members examined (1,000 short names: 0.6 s; of 5,000
#: characters each: 14 s). This keeps about 60 members of an object.
_PROPERTY_NAMES_WEIGHT = 64


def _names_listed(node: Mapping[str, Any]) -> int:
    """How many missing-name errors ``node``'s ``required`` and ``dependentRequired`` can make."""
    required = node.get("required")
    dependent = node.get("dependentRequired")
    listed = len(required) if isinstance(required, list) else 0
    if isinstance(dependent, Mapping):
        listed += sum(len(names) for names in dependent.values() if isinstance(names, list))
    return listed


def _flat_schema(schema: Any) -> bool:
    """Whether every keyword of ``schema`` (and of its subschemas) is in ``_FLAT_KEYWORDS`` and every
    ``$ref`` points inside the document (``#/...``)."""
    todo = [schema]
    seen = 0
    while todo:
        node = todo.pop()
        seen += 1
        if seen > 10_000:
            return False
        if isinstance(node, bool):
            continue
        if not isinstance(node, dict):
            return False
        for key, member in node.items():
            if key.startswith("x-"):
                continue
            if key not in _FLAT_KEYWORDS:
                return False
            if key == "$ref" and not (isinstance(member, str) and member.startswith("#/")):
                return False
            if key in ("properties", "$defs", "definitions") and isinstance(member, dict):
                todo.extend(member.values())
            elif key in ("items", "additionalProperties"):
                todo.append(member)
            elif key == "prefixItems" and isinstance(member, list):
                todo.extend(member)
    return True


#: Keywords whose message and expectation, for a short scalar, depend on where it is and its JSON type
#: alone (an enum's only while it is listed whole): see SchemaCheck._from_template.
_TEMPLATED = frozenset({"type", "enum", "const", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
                        "multipleOf", "minLength", "maxLength", "pattern", "format", "false", "falseSchema"})
#: Keywords whose explanation names the object's missing or unknown keys and echoes no value.
_KEY_NAMING = frozenset({"required", "additionalProperties", "unevaluatedProperties"})
_SCALAR_KEYS = frozenset({str, int, float, bool, type(None)})
#: Strings longer than this, and objects with more keys, are explained afresh every time.
_KEPT_TEXT = 256
#: Integers this long or longer are explained the full way, where their weight bounds the work.
_KEPT_INT = 10 ** 240
#: Objects with more members are not kept whole (their errors may still be, one by one).
_KEPT_MEMBERS = 32


def _explanation_key(value: Any, keyword: str, path: list[Any], node: Any, details: Any) -> tuple[Any, ...] | None:
    """What an explanation depends on, as a dict key; None when it must be computed afresh (a
    combinator's, which weighs the branches against the whole value, or a large value's)."""
    if keyword in ("anyOf", "oneOf"):
        return None
    sent = value
    for part in path:
        try:
            sent = sent[part]
        except (KeyError, IndexError, TypeError):
            return None
    kind = type(sent)
    if kind in _SCALAR_KEYS:
        if kind is str and len(sent) > _KEPT_TEXT:
            return None
        shown: Any = sent.hex() if kind is float else sent  # -0.0 == 0.0, but each echoes its sign
    elif kind is dict and keyword == "required" and not details and isinstance(node, Mapping) \
            and isinstance(node.get("required"), list):
        try:  # its explanation names the missing names alone, whatever else was sent
            shown = ("missing", *(name for name in node["required"] if name not in sent))
        except TypeError:
            return None
    elif kind is dict and keyword in _KEY_NAMING and len(sent) <= _KEPT_TEXT:
        shown = tuple(sent)
    elif (kind is list or kind is dict) and keyword in _TEMPLATED:  # (an array where a text belongs)
        shown = _nested_key(sent, [_KEPT_MEMBERS], _KEPT_DEPTH)
        if shown is None:
            return None
    else:
        return None
    frozen: Any = ()
    if details:
        try:
            frozen = tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in details.items())
            hash(frozen)
        except (TypeError, AttributeError):
            return None
    return keyword, tuple(path), id(node), kind, shown, frozen


def _echoes_container(key: tuple[Any, ...]) -> bool:
    """Whether the violation kept under ``key`` (an ``_explanation_key``) echoes an array or object:
    it is not kept by error, so that no two calls share that echo (a caller may change what it gets;
    a whole call's explanation is kept under its ``value_key``, and the guard copies what it hands out)."""
    return key[0] in _TEMPLATED and (key[3] is list or key[3] is dict)


def value_key(value: Any) -> tuple[Any, ...] | None:
    """``value`` as a memo key of its whole explanation: an object of at most ``_KEPT_MEMBERS`` members
    with string names, each a scalar (strings of at most ``_KEPT_TEXT`` characters, integers of at most
    240 digits) or a small array or object of such scalars (``_nested_key``); None otherwise.
    Each member carries its type (``1``, ``1.0`` and ``True`` are equal keys otherwise) and a float
    its exact bits (``-0.0 == 0.0``), as explanations echo what was sent; so does the order of the
    names, in which unknown ones are listed."""
    if type(value) is not dict or len(value) > _KEPT_MEMBERS:
        return None
    parts = []
    room = [_KEPT_MEMBERS]  # members of nested arrays and objects, over the whole call
    for name, member in value.items():
        kind = type(member)
        if type(name) is not str or len(name) > _KEPT_TEXT:
            return None
        if kind not in _SCALAR_KEYS:
            nested = _nested_key(member, room, _KEPT_DEPTH)
            if nested is None:
                return None
            parts.append((name, kind, nested))
            continue
        if kind is str:
            if len(member) > _KEPT_TEXT:
                return None
        elif kind is int:
            if not -_KEPT_INT < member < _KEPT_INT:  # weighed by shortened() instead (scalar_weight)
                return None
        elif kind is float:
            member = member.hex()
        parts.append((name, kind, member))
    return ("value", *parts)


def _shape(value: Any) -> Any:
    """The sizes of ``value``'s containers (a dict or list), nested as they are (a scalar member is 0)."""
    members = value.values() if type(value) is dict else value
    if _SCALAR_KEYS.issuperset(map(type, members)):
        return len(value)
    return len(value), tuple([0 if type(m) in _SCALAR_KEYS else _shape(m) for m in members])


#: Nesting a memo key follows at most (the arguments of a realistic tool nest two or three deep).
_KEPT_DEPTH = 6


def _nested_key(value: Any, room: list[int], depth: int) -> tuple[Any, ...] | None:
    """A nested array or object of ``value_key``'s scalars as a key (each member with its type, an
    object's names in their order), spending ``room[0]`` (members left for the whole call); None past
    it, past ``depth`` levels, or for anything else. A nested bad call repeated (a model's usual
    retry) is then answered from what was kept for it, as a flat one is."""
    kind = type(value)
    if depth <= 0 or (kind is not list and kind is not dict):
        return None
    room[0] -= len(value)
    if room[0] < 0:
        return None
    names: tuple[str, ...] | None = None
    members: Any = value
    if kind is dict:
        names = tuple(value)
        if not _STR_ONLY.issuperset(map(type, names)) or max(map(len, names), default=0) > _KEPT_TEXT:
            return None
        members = value.values()
    kinds = tuple(map(type, members))
    if _LIGHT_KINDS.issuperset(kinds) and max(map(sys.getsizeof, members), default=0) <= _LIGHT_BYTES:
        return kind, names, kinds, tuple(members)  # short texts and integers, read in C
    shown: list[Any] = []
    for member, member_kind in zip(members, kinds):
        if member_kind is str:
            if len(member) > _KEPT_TEXT:
                return None
        elif member_kind is int:
            if not -_KEPT_INT < member < _KEPT_INT:
                return None
        elif member_kind is float:
            member = member.hex()
        elif member_kind not in _SCALAR_KEYS:
            member = _nested_key(member, room, depth - 1)
            if member is None:
                return None
        shown.append(member)
    return kind, names, kinds, tuple(shown)


#: Scalars a nested key holds as they are, when small (a float holds its bits: ``-0.0 == 0.0``); an
#: integer of at most 128 bytes is shorter than ``_KEPT_INT``, a text of at most 128 than ``_KEPT_TEXT``
_LIGHT_KINDS = frozenset({str, int, bool, type(None)})
_LIGHT_BYTES = 128
_STR_ONLY = frozenset({str})


#: items looked at for two equal ones in one explanation (hashing each once)
_EQUAL_ITEMS_CAP = 100_000


def _equal_items(items: list[Any], cap: int) -> tuple[int, int] | None:
    """The indices of the first two items equal as JSON values (1 and 1.0 are, True and 1 are not;
    objects whatever their key order), among the first ``cap``; None if there are none."""
    seen: dict[Any, int] = {}
    try:
        for index, item in enumerate(itertools.islice(items, cap)):
            key = _json_identity(item)
            if key in seen:
                return seen[key], index
            seen[key] = index
    except (TypeError, RecursionError):  # not JSON, or nested too deep to read: nothing claimed
        return None
    return None


def _json_identity(value: Any) -> Any:
    """A hashable stand-in equal for equal JSON values (``uniqueItems`` equality)."""
    kind = type(value)
    if kind is list:
        return ("array", tuple(map(_json_identity, value)))
    if kind is dict:
        return ("object", frozenset((k, _json_identity(v)) for k, v in value.items()))
    if kind is int or kind is float:
        return ("number", value)  # 1 == 1.0, and they hash alike
    return (kind.__name__, value)  # a bool is not a number here; str and None as they are


def _at(value: Any, path: list[Any]) -> Any:
    """The member of ``value`` at an instance path the validator gave (MISSING if it is not there)."""
    for part in path:
        try:
            value = value[part]
        except (KeyError, IndexError, TypeError):
            return MISSING
    return value


def _flat_keyword(location: list[str], holder: Any) -> str:
    """The keyword ``iter_errors()`` names for an ``evaluate()`` error at schema ``location``: its
    last token, or ``falseSchema`` where that token names a ``false`` subschema."""
    if not location:
        return "falseSchema"
    names_next = False  # whether the token read names a subschema rather than a keyword
    for token in location[:-1]:
        names_next = not names_next and token in ("properties", "$defs", "definitions", "prefixItems")
    last = location[-1]
    if names_next:
        return "falseSchema"
    if last != "additionalProperties" and isinstance(holder, dict) and holder.get(last) is False:
        return "falseSchema"  # ``items: false``
    return last


def _instance_path(value: Any, tokens: list[str]) -> list[Any]:
    """The path of unescaped pointer tokens, with array indexes as ints (as iter_errors gives)."""
    path: list[Any] = []
    node = value
    for token in tokens:
        if isinstance(node, (list, tuple)) and token.isdigit():
            index = int(token)
            path.append(index)
            node = node[index] if index < len(node) else None
        else:
            path.append(token)
            node = node.get(token) if isinstance(node, Mapping) else None
    return path


def _closed_root_names(schema: Any) -> frozenset[str] | None:
    """The declared names of a root object that refuses every other name, or None."""
    if not isinstance(schema, Mapping) or schema.get("additionalProperties") is not False or "$ref" in schema:
        return None
    declared = schema.get("properties")
    return frozenset(declared) if isinstance(declared, Mapping) else None


#: Keywords of a root whose errors depend on the names sent alone (see ``_compile_member_rules``).
_ROOT_BY_NAMES = frozenset({"type", "properties", "required", "additionalProperties", "title", "description",
                            "$schema", "$comment", "default", "examples", "deprecated", "$defs", "definitions"})
#: Keywords of a member's schema a scalar fails each on its own, whatever its siblings say.
_SCALAR_RULES = frozenset({"type", "enum", "const", "minLength", "maxLength", "pattern", "format", "minimum",
                           "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"})
#: Keywords of a member's schema that no scalar fails: annotations, and rules of arrays and objects.
_SCALAR_SILENT = frozenset({"title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly",
                            "$comment", "items", "prefixItems", "minItems", "maxItems", "uniqueItems",
                            "properties", "additionalProperties", "required", "minProperties", "maxProperties"})
_UNREAD = object()  # member rules not compiled yet


def _refuses(member: Any) -> bool:
    """The yes/no of a ``false`` member schema."""
    return False


_REFUSED_MEMBER = ("falseSchema",)  # what a ``false`` member schema fails (as _flat_keyword names it)
_BY_MEMBER = object()  # marks a signature read member by member (``SchemaCheck._member_failures``)


class _NotByMember(Exception):
    """A member schema ``SchemaCheck._member_rule`` cannot judge one rule at a time."""


#: what ``SchemaCheck._names_worded`` puts in place of each unknown name
_AN_UNKNOWN_NAME = object()
#: the index of a recipe's step that is not a templated violation echoing a raw error's value
_AS_SHOWN = -1  # a violation shown as it was made (a missing name, a masked value)
_UNKNOWN_NAME_STEP = -2  # the violation of the call's next unknown name (``_unknown_name``)


def _open_root_names(schema: Any) -> frozenset[str] | None:
    if not isinstance(schema, Mapping) or schema.get("additionalProperties") is False \
            or schema.get("unevaluatedProperties") is False:
        return None
    names = frozenset(known_properties(schema, schema))
    return names or None


def _shape_name(branch: Any, root: Any) -> str | None:
    """A branch's title, else its type (through $ref): how a message names a shape."""
    for node in expand(branch, root):
        if isinstance(node, Mapping):
            if isinstance(node.get("title"), str):
                return str(node["title"])
            typ = node.get("type")
            if isinstance(typ, str) or isinstance(typ, list) and all(isinstance(t, str) for t in typ):
                return typ if isinstance(typ, str) else " or ".join(typ)
    return None


Retriever = Callable[[str], Any]
