"""Both validation backends (jsonschema-rs and the pure-Python fallback) explain violations alike."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contractgen.manifest import load_contracts
from contractgen.runtime import Contract, Timeout, guard
from contractgen.runtime.schema_check import SchemaCheck, did_you_mean
from contractgen.runtime.wording import (
    _common_start,
    _common_subsequence,
    one_edit_apart,
    similarity,
)

ROOT = Path(__file__).resolve().parents[1]
CONTRACTS = {f"{t.contract.name}-{t.contract.version}": t.contract
             for t in load_contracts([ROOT / "contracts"]).contracts.tools}

BAD_CALLS: list[tuple[str, Any]] = [
    ("book_meeting-2.0.0", {"titel": "x", "start_date": 5, "time_zone": "Europe/Paris",
                            "duration_minutes": "60", "attendees": [{"email": "a@b.c", "extra": 1}, {}]}),
    ("refund_payment-1.0.0", {"payment_id": "pay_x", "amount_cents": 0, "currency": "YEN",
                              "reason": "duplicate", "approval_code": "12"}),
    ("search_documents-1.0.0", {"query": "q", "filters": {"kinds": ["doc", "doc", "zip"], "ownr": 1},
                                "limit": 51}),
]


def summary(check: SchemaCheck, value: Any) -> list[tuple[str, str, Any]]:
    return sorted((v.field, v.constraint, v.attempted if isinstance(v.attempted, (str, int)) else None)
                  for v in check.violations(value))


@pytest.mark.parametrize("name,arguments", BAD_CALLS, ids=[c[0] for c in BAD_CALLS])
def test_backends_agree_on_violations(name: str, arguments: Any) -> None:
    schema = CONTRACTS[name].input_schema
    fast, reference = SchemaCheck(schema), SchemaCheck(schema, prefer_fast=False)
    assert reference.backend == "jsonschema"
    assert not fast.is_valid(arguments) and not reference.is_valid(arguments)
    assert summary(fast, arguments) == summary(reference, arguments)
    assert len(summary(fast, arguments)) >= 3


def test_redaction_holds_on_the_reference_backend() -> None:
    check = SchemaCheck(CONTRACTS["refund_payment-1.0.0"].input_schema, prefer_fast=False)
    found = {v.field: v for v in check.violations({"approval_code": "12", "customer_email": 7})}
    assert found["/approval_code"].attempted == "[redacted]"
    assert found["/customer_email"].attempted == "[redacted]"


def test_format_assertion_is_the_default_and_can_be_turned_off() -> None:
    contract = Contract(name="t", version="1.0.0", summary="s", description="d",
                        input_schema={"type": "object", "properties": {"when": {"type": "string",
                                                                                "format": "date"}}},
                        output_schema={}, timeout=Timeout(None))
    error = guard(contract, lambda a: {})({"when": "soon"})["error"]
    assert (error["field"], error["constraint"]) == ("/when", "format")
    assert guard(contract, lambda a: {}, formats=False)({"when": "soon"})["status"] == "ok"  # 2020-12: annotation
    for prefer_fast in (True, False):
        check = SchemaCheck(contract.input_schema, formats=True, prefer_fast=prefer_fast)
        assert not check.is_valid({"when": "soon"}) and check.is_valid({"when": "2026-01-31"})


@pytest.mark.parametrize("typed,known,meant", [
    ("qeury", ["query", "limit"], "query"), ("startDate", ["start_date"], "start_date"),
    ("titel", ["title"], "title"), ("tite", ["title"], "title"), ("titles", ["title"], "title"),
    ("duration", ["duration_minutes"], "duration_minutes"), ("zzz", ["title"], None),
    ("anything", [], None)])
def test_did_you_mean(typed: str, known: list[str], meant: str | None) -> None:
    assert did_you_mean(typed, known) == meant


def _table_lcs(a: str, b: str) -> int:
    """The longest common subsequence by the textbook table, to check the bit-parallel one against."""
    row = [0] * (len(b) + 1)
    for char in a:
        diagonal, row[0] = 0, 0
        for j, other in enumerate(b, 1):
            diagonal, row[j] = row[j], diagonal + 1 if char == other else max(row[j], row[j - 1])
    return row[-1]


NAMES = st.text(alphabet=st.sampled_from("abcde_éZ\U0001f600"), max_size=80)


@settings(max_examples=400, deadline=None)
@given(a=NAMES, b=NAMES)
def test_name_similarity_counts_the_longest_common_subsequence(a: str, b: str) -> None:
    """Patterns longer than a machine word included: the bits are Python integers."""
    assert _common_subsequence(a, b) == _common_subsequence(b, a) == _table_lcs(a, b)
    assert similarity(a, b) == (2 * _table_lcs(a, b) / (len(a) + len(b)) if a or b else 1.0)


@settings(max_examples=300, deadline=None)
@given(key=st.text(alphabet=st.sampled_from("abcdeq_ruy"), min_size=1, max_size=20),
       known=st.lists(st.text(alphabet=st.sampled_from("abcdeq_ruy"), min_size=1, max_size=20), min_size=1,
                      max_size=6, unique=True),
       cutoff=st.sampled_from([0.5, 0.6, 0.75, 0.8]))
def test_did_you_mean_names_the_most_similar_name_and_misses_none_difflib_would_find(
        key: str, known: list[str], cutoff: float) -> None:
    """A guess is at least ``cutoff`` similar and none of the names is more similar; and where difflib's
    matcher (whose matching blocks are a common subsequence, so never longer than the longest one)
    finds a name close enough, a name is guessed too."""
    import difflib

    guess = did_you_mean(key, known, cutoff)

    def norm(name: str) -> str:
        return name.lower().replace("_", "")

    if not any(norm(n) == norm(key) or one_edit_apart(norm(key), norm(n)) for n in known):  # no cheap tier
        scores = [similarity(key, name) for name in known]
        assert guess == (known[scores.index(max(scores))] if max(scores) >= cutoff else None)
    if difflib.get_close_matches(key, known, n=1, cutoff=cutoff):
        assert guess is not None



def _one_edit_reference(a: str, b: str) -> bool:
    """One insertion, deletion, substitution or swap of neighbours turns ``a`` into ``b``, by trying them all."""
    if a == b:
        return False
    deletions = {a[:i] + a[i + 1:] for i in range(len(a))}
    insertions = {b[:i] + b[i + 1:] for i in range(len(b))}
    differ = [i for i, (x, y) in enumerate(zip(a, b)) if x != y] if len(a) == len(b) else []
    swapped = len(differ) == 2 and differ[1] == differ[0] + 1 and a[differ[0]] == b[differ[1]] \
        and a[differ[1]] == b[differ[0]]
    return b in deletions or a in insertions or len(differ) == 1 or swapped


@settings(max_examples=500, deadline=None)
@given(a=st.text(alphabet=st.sampled_from("abc\u00e9"), max_size=40), b=st.text(alphabet=st.sampled_from("abc\u00e9"), max_size=40),
       cut=st.integers(0, 40))
def test_one_edit_apart_and_the_shared_start_read_as_written(a: str, b: str, cut: int) -> None:
    """Short names (a character loop) and longer texts (halving) alike; ``b`` is also tried as ``a``
    with one edit made after ``cut`` shared characters."""
    import os.path

    for other in (b, a[:cut] + b[:1] + a[cut + 1:], a[:cut] + a[cut + 1:], a[:cut] + a[cut + 1:cut + 2] + a[cut:cut + 1] + a[cut + 2:]):
        assert _common_start(a, other) == len(os.path.commonprefix([a, other]))
        assert one_edit_apart(a, other) == _one_edit_reference(a, other), (a, other)


def _reference_guess(key: str, known: list[str], cutoff: float | None) -> str | None:
    """did_you_mean's tiers as written down, name by name: the first name equal modulo case and
    separators, else the first one edit away, else the most similar at ``cutoff`` or above."""
    def norm(name: str) -> str:
        return name.lower().replace("_", "").replace("-", "")

    for tier in (lambda name: norm(name) == norm(key), lambda name: _one_edit_reference(norm(key), norm(name))):
        found = [name for name in known if tier(name)]
        if found:
            return found[0]
    if cutoff is None or len(key) > 64:
        return None
    best, best_score = None, cutoff
    for name in known:
        total = len(key) + len(name)
        if 2 * min(len(key), len(name)) < cutoff * total:
            continue
        score = similarity(key, name)
        if score > best_score or best is None and score >= cutoff:
            best, best_score = name, score
    return best


@settings(max_examples=600, deadline=None)
@given(key=st.text(alphabet=st.sampled_from("abcqeurY_-Z\u00e9\U0001f6005"), min_size=1, max_size=20),
       known=st.lists(st.text(alphabet=st.sampled_from("abcqeury_Z\u00e9\U0001f600lmitod-"), min_size=1, max_size=20),
                      min_size=1, max_size=6, unique=True),
       cutoff=st.sampled_from([None, 0.5, 0.6, 0.8]))
def test_did_you_mean_answers_as_its_tiers_read_name_by_name(key: str, known: list[str], cutoff: float | None) -> None:
    """The names kept per declared tuple (within one edit by length, similar enough by length) and the
    bound on common letters change no answer (ASCII and other keys and names, calls repeated)."""
    assert did_you_mean(key, known, cutoff) == _reference_guess(key, known, cutoff)
    assert did_you_mean(key, tuple(known), cutoff) == _reference_guess(key, known, cutoff)


def test_a_name_sharing_too_few_letters_is_not_compared(monkeypatch: pytest.MonkeyPatch) -> None:
    """A misspelt name is compared (longest common subsequence) only with the declared names whose
    letters could make it similar enough: here 'query' alone (it was all four)."""
    from contractgen.runtime import wording

    compared: list[str] = []
    common = wording._common_subsequence

    def counting(pattern: str, text: str) -> int:
        compared.append(pattern)
        return common(pattern, text)

    monkeypatch.setattr(wording, "_common_subsequence", counting)
    assert did_you_mean("qeury12345", ["query", "limit", "order", "include_archived"]) is None
    assert did_you_mean("qeury12", ["query", "limit", "order", "include_archived"]) == "query"
    assert compared == ["query", "query"]


NAME_RULES: list[Any] = [{"pattern": "^[a-z_]+$"}, {"maxLength": 3}, {"enum": ["ab", "b_", "ZZ"]},
                         {"pattern": "^[a-z]", "maxLength": 4}, False, {"$ref": "#/$defs/name"}]


@settings(max_examples=60, deadline=None)
@given(rule=st.sampled_from(NAME_RULES), nested=st.booleans(),
       names=st.lists(st.text(alphabet="abZ_-/~", min_size=1, max_size=6), min_size=1, max_size=8, unique=True))
def test_a_name_property_names_refuses_is_named_alike_by_both_backends(rule: Any, nested: bool,
                                                                      names: list[str]) -> None:
    """Each member name ``propertyNames`` refuses (per the reference validator, name by name) gets a
    violation at that member which quotes it, and no other name does; jsonschema-rs reports the name
    inside its error, jsonschema as the name's own failed keyword: both read the same. Before, the
    violation was at the object ("violates the 'propertyNames' constraint", or from the reference
    backend "the arguments must be a string matching ..."), naming no key."""
    import jsonschema

    object_schema = {"type": "object", "propertyNames": rule}
    schema: dict[str, Any] = {"$defs": {"name": {"maxLength": 2}}}
    schema.update({"type": "object", "properties": {"tags": object_schema}} if nested else object_schema)
    value = {name: 1 for name in names}
    arguments = {"tags": value} if nested else value
    rule_schema = {**rule, "$defs": schema["$defs"]} if isinstance(rule, dict) else rule
    refused = [name for name in names if not jsonschema.Draft202012Validator(rule_schema).is_valid(name)]
    prefix = "/tags" if nested else ""
    wanted = {prefix + "/" + name.replace("~", "~0").replace("/", "~1") for name in refused}
    for check in (SchemaCheck(schema), SchemaCheck(schema, prefer_fast=False)):
        assert check.is_valid(arguments) == (not refused)
        if not refused:
            continue
        violations = check.violations(arguments)
        assert {v.field for v in violations} == wanted, (check.backend, violations)
        for v in violations:
            assert v.constraint == "propertyNames"
            name = next(n for n in refused if v.field.endswith("/" + n.replace("~", "~0").replace("/", "~1")))
            assert f"argument name '{name}'" in v.message, v.message
            assert ("in 'tags'" in v.message) == nested


def test_a_refused_name_of_a_secret_object_is_not_shown() -> None:
    """Names of an object marked sensitive, or refused by a ``propertyNames`` marked sensitive, are
    part of the secret: the violation is at the object and names none of them."""
    for schema, arguments, field in [
        ({"type": "object", "properties": {"creds": {"type": "object", "writeOnly": True,
                                                     "propertyNames": {"pattern": "^[a-z]+$"}}}},
         {"creds": {"Hunter2Secret": 1}}, "/creds"),
        ({"type": "object", "propertyNames": {"writeOnly": True, "pattern": "^[a-z]+$"}},
         {"Hunter2Secret": 1}, ""),
    ]:
        for check in (SchemaCheck(schema), SchemaCheck(schema, prefer_fast=False)):
            violations = check.violations(arguments)
            assert [v.field for v in violations] == [field]
            assert "Hunter2Secret" not in repr(violations)
            if not field:
                assert violations[0].message.startswith("the arguments do not match the schema")
