"""A value the schema accepts reaches the implementation as the JSON value it was: an integer in a
``number`` field keeps every digit, and a number is never read as a boolean, even where Python counts
them as equal (``1``, ``1.0`` and ``true``; ``0``, ``-0.0`` and ``false``), in an enum or in a field
that may be a boolean or a number."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest
from build_support import model_module
from conftest import CORPUS
from hypothesis import example, given, settings
from hypothesis import strategies as st

from contractgen.codegen.exact_values import TYPED_FORMATS
from contractgen.codegen.models import ModelRequest, generate_models
from contractgen.runtime import Contract, guard, reference_validator

ENUMS = [
    [1, True, "1", 0, False, None, 1.5],
    [True, 1.0],
    [False, 0, "x"],
    [0.0, False, [1], {"a": 1}],
]


def _guarded(enum: list[Any], typed: bool) -> tuple[Any, list[Any]]:
    field: dict[str, Any] = {"enum": enum}
    if typed:
        field["type"] = sorted({"boolean", "integer", "number", "string", "null", "array", "object"})
    return _guarded_field(field, f"{json.dumps(enum)}{typed}")


def _guarded_field(field: dict[str, Any], label: str) -> tuple[Any, list[Any]]:
    schema = {"type": "object", "additionalProperties": False, "required": ["v"],
              "properties": {"v": field, "nested": {"type": "array", "items": field}}}
    models = generate_models([ModelRequest("m", "LiteralsV1", schema, {"type": "object"})])["m"]
    namespace = model_module(models, f"literals_{abs(hash(label))}", models.body)
    model = namespace[models.input_class]
    model.model_rebuild(_types_namespace=namespace)
    received: list[Any] = []

    def implementation(arguments: Any) -> dict[str, Any]:
        received.append(arguments.model_dump(mode="json", exclude_unset=True))
        return {}

    contract = Contract(name="literals", version="1.0.0", summary="s", description="d",
                        input_schema=schema, output_schema={"type": "object"})
    return guard(contract, implementation, input_model=model), received


@pytest.mark.parametrize("typed", [False, True])
@pytest.mark.parametrize("enum", ENUMS, ids=[json.dumps(e) for e in ENUMS])
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_every_accepted_value_arrives_with_its_json_type(enum: list[Any], typed: bool, data: st.DataObject) -> None:
    tool, received = _guarded(enum, typed)
    _assert_arrives_as_sent(tool, received, [*enum, *(float(v) for v in enum if type(v) is int),
                                             *(int(v) for v in enum if type(v) is float and v.is_integer())],
                            data)


UNIONS = [
    {"type": ["boolean", "integer"]},
    {"type": ["boolean", "number"]},
    {"anyOf": [{"type": "boolean"}, {"type": "integer"}]},
    {"oneOf": [{"type": "boolean"}, {"type": "integer", "minimum": 0}]},
]


@pytest.mark.parametrize("field", UNIONS, ids=[json.dumps(u) for u in UNIONS])
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_a_number_is_never_read_as_a_boolean(field: dict[str, Any], data: st.DataObject) -> None:
    tool, received = _guarded_field(field, json.dumps(field))
    _assert_arrives_as_sent(tool, received, [True, False, 1, 1.0, 0, 0.0, -0.0, 2, 7.0], data, valid_only=True)


def _assert_arrives_as_sent(tool: Any, received: list[Any], candidates: list[Any], data: st.DataObject,
                            valid_only: bool = False) -> None:
    value = data.draw(st.sampled_from(candidates))
    arguments = {"v": value, "nested": [value]}
    received.clear()
    envelope = tool(arguments)
    if valid_only and envelope["status"] == "error":
        assert reference_validator.validator(tool.input_schema, formats=False).is_valid(arguments) is False
        return
    assert envelope["status"] == "ok", envelope
    sent = json.loads(json.dumps(arguments))
    got = received[0]
    # JSON Schema equality: a boolean is never a number; 1 and 1.0 are the same number
    for a, b in ((sent["v"], got["v"]), (sent["nested"][0], got["nested"][0])):
        assert type(a) is type(b) or (isinstance(a, (int, float)) and isinstance(b, (int, float))
                                      and not isinstance(a, bool) and not isinstance(b, bool)), (a, b)
        assert a == b


NUMBER_FIELDS = [
    {"type": "number"},
    {"type": "number", "minimum": -1e30, "maximum": 1e30},
    {"type": ["number", "null"]},
    {"anyOf": [{"type": "number"}, {"type": "string"}]},
    {"type": "object", "properties": {"id": {"type": "number"}}},
]


@pytest.mark.parametrize("field", NUMBER_FIELDS, ids=[json.dumps(f) for f in NUMBER_FIELDS])
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_an_integer_in_a_number_field_keeps_every_digit(field: dict[str, Any], data: st.DataObject) -> None:
    tool, received = _guarded_field(field, json.dumps(field))
    number = data.draw(st.integers(-(2**80), 2**80) | st.floats(allow_nan=False, allow_infinity=False)
                       | st.sampled_from([2**53 + 1, 1234567890123456789, -(2**63) - 1]))
    value = {"id": number} if field.get("type") == "object" else number
    arguments = {"v": value, "nested": [value]}
    envelope = tool(arguments)
    if not reference_validator.validator(tool.input_schema, formats=False).is_valid(arguments):
        assert envelope["status"] == "error"
        return
    assert envelope["status"] == "ok", envelope
    # the same JSON text: an integer is not rounded through a float
    assert json.dumps(received[0]) == json.dumps(arguments)


FORMAT_SUITE = CORPUS / "json_schema_test_suite" / "tests" / "draft2020-12" / "optional" / "format"


def _known_refusal(fmt: str, value: str) -> bool:
    """The documented limits of the typed formats (``exact_values.TYPED_FORMATS``)."""
    if fmt in ("date-time", "time"):
        return ":60" in value  # a leap second
    if fmt == "email":
        return value.startswith('"') or "@[" in value  # a quoted local part, an address literal
    return False


def test_every_valid_format_value_of_the_suite_is_accepted_and_text_formats_arrive_unchanged() -> None:
    if not FORMAT_SUITE.is_dir():
        pytest.skip(f"JSON-Schema-Test-Suite not found at {FORMAT_SUITE}")
    problems = []
    checked = 0
    for path in sorted(FORMAT_SUITE.glob("*.json")):
        fmt = path.stem
        tool, received = _guarded_field({"type": "string", "format": fmt}, "format-" + fmt)
        for group in json.loads(path.read_text("utf-8")):
            for test in group["tests"]:
                if not test["valid"] or not isinstance(test["data"], str):
                    continue
                checked += 1
                received.clear()
                envelope = tool({"v": test["data"], "nested": [test["data"]]})
                if envelope["status"] != "ok":
                    if not _known_refusal(fmt, test["data"]):
                        problems.append(f"{fmt}: {test['data']!r} refused: {envelope['error']['message']}")
                elif fmt not in TYPED_FORMATS and received[0] != {"v": test["data"], "nested": [test["data"]]}:
                    problems.append(f"{fmt}: {test['data']!r} arrived as {received[0]}")
    assert checked >= 150
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("fmt", ["byte", "binary", "password", "decimal", "int64", "hostname", "uri"])
@pytest.mark.parametrize("text", ["aGVsbG8=", "not base64 or a number!", "example.com", "HTTP://Example.COM"])
def test_a_custom_or_untyped_format_leaves_the_text_as_sent(fmt: str, text: str) -> None:
    """OpenAPI-style formats are annotations to the schema: the model must not decode base64
    (``byte``), mask (``password``), encode (``binary``) or parse (``decimal``) what was sent. A
    format JSON Schema defines (``hostname``, ``uri``) is asserted by the guard: a text it refuses
    never reaches the model, and comes back at its field with the format named."""
    tool, received = _guarded_field({"type": "string", "format": fmt}, f"custom-{fmt}")
    envelope = tool({"v": text, "nested": [text]})
    if fmt in reference_validator.GUARD_FORMATS and not reference_validator.format_checker().conforms(text, fmt):
        assert envelope["status"] == "error" and not received, envelope
        assert {(v["field"], v["constraint"]) for v in envelope["error"]["violations"]} == {
            ("/v", "format"), ("/nested/0", "format")}
        return
    assert envelope["status"] == "ok", envelope
    assert received[0] == {"v": text, "nested": [text]}


DIVISORS = [0.01, 0.1, 0.25, 1e-05, 3, 7.5]


@pytest.mark.parametrize("kind", ["number", "integer"])
@pytest.mark.parametrize("divisor", DIVISORS)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_multiple_of_is_read_as_the_guard_reads_it_everywhere(divisor: float, kind: str, data: st.DataObject) -> None:
    """The model ran ``multipleOf`` with float remainders (``1 % 0.01`` is not 0): ``1`` and ``12.5``
    came back INVALID_ARGUMENT for ``multipleOf: 0.01``, which the schema accepts; and the reference
    validator (check's examples, diff's witnesses) divided in binary floating point, so 0.07 was no
    multiple of 0.01 there while the guard accepted it. Guard, model and reference now agree."""
    import jsonschema_rs

    field = {"type": kind, "multipleOf": divisor}
    tool, received = _guarded_field(field, json.dumps(field))
    steps = st.integers(-(10**6), 10**6).map(lambda k: float(Decimal(k) * Decimal(repr(divisor))))
    value = data.draw(steps | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False, allow_infinity=False)
                      | st.sampled_from([0, 1, 1.0, 0.07, 0.3, 12.5, 1e300, 2**53 + 1]))
    arguments = {"v": value, "nested": [value]}
    accepted = jsonschema_rs.validator_for(tool.input_schema).is_valid(arguments)
    assert reference_validator.validator(tool.input_schema, formats=False).is_valid(arguments) is accepted
    envelope = tool(arguments)
    assert envelope["status"] == ("ok" if accepted else "error"), envelope
    if accepted:  # the same numbers (an integer field gives 0.0 as 0, as before)
        assert received[0] == arguments, (received[0], arguments)


def test_check_takes_an_example_the_guard_accepts_as_a_multiple() -> None:
    from contractgen.manifest.parse import ParsedFile
    from contractgen.manifest.report import Reporter
    from contractgen.manifest.schema_checks import check_embedded_schema

    report = Reporter(ParsedFile("probe/1.0.0.json"))
    schema = {"type": "object", "properties": {"price": {"type": "number", "multipleOf": 0.01, "default": 0.07,
                                                         "examples": [0.3, 19.99, 1], "description": "p"}}}
    assert check_embedded_schema(report, "input", schema)
    assert [d.code for d in report.diagnostics] == []


INTEGER_FIELDS = [
    {"type": "integer"},
    {"type": "integer", "maximum": 1e300},
    {"anyOf": [{"type": "integer"}, {"type": "string"}]},
    {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}]},
    {"type": "object", "properties": {"id": {"type": ["integer", "null"]}}},
]


@pytest.mark.parametrize("field", INTEGER_FIELDS, ids=[json.dumps(f) for f in INTEGER_FIELDS])
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_a_whole_float_of_any_size_is_an_integer_the_model_takes(field: dict[str, Any], data: st.DataObject) -> None:
    """JSON Schema counts 1e20 as an integer, and the guard's schema check accepted it; the model's
    ``int`` takes a float only below 2**63, so the call came back INVALID_ARGUMENT. And the generator
    wrote ``maximum: 1e300`` from its text (``le=10**300``, below the float): 1e300 itself was refused."""
    tool, received = _guarded_field(field, json.dumps(field))
    number = data.draw(st.floats(min_value=2.0**62, max_value=1e308).map(float.__round__).map(float)
                       .map(lambda f: data.draw(st.sampled_from([f, -f])))
                       | st.sampled_from([2.0**63, -(2.0**63), 1e19, 1e20, 1e300, 9.3e18]))
    value = {"id": number} if field.get("type") == "object" else [number, "x"] if field.get("type") == "array" \
        else number
    arguments = {"v": value, "nested": [value]}
    envelope = tool(arguments)
    if not reference_validator.validator(tool.input_schema, formats=False).is_valid(arguments):
        assert envelope["status"] == "error"  # over the maximum
        return
    assert envelope["status"] == "ok", envelope
    assert received[0] == arguments  # the same numbers: int(1e20) == 1e20


def test_parse_output_takes_a_whole_float_of_any_size_the_output_schema_accepts() -> None:
    """An ok envelope whose integer output field holds 1e20 (the schema accepted it) could not be read
    back: ``parse_output`` raised pydantic's 'exceeded maximum size'."""
    output = {"type": "object", "required": ["n", "items"],
              "properties": {"n": {"type": "integer"}, "items": {"type": "array", "items": {"type": "integer"}}}}
    models = generate_models([ModelRequest("m", "WholeV1", {"type": "object"}, output)])["m"]
    namespace = model_module(models, "whole_output", models.body)
    output_model, input_model = namespace[models.output_class], namespace[models.input_class]
    output_model.model_rebuild(_types_namespace=namespace)
    input_model.model_rebuild(_types_namespace=namespace)
    contract = Contract(name="whole", version="1.0.0", summary="s", description="d",
                        input_schema={"type": "object"}, output_schema=output)
    for number in (1e20, -1e300, 2.0**63):
        result = {"n": number, "items": [number, 3]}
        tool = guard(contract, lambda arguments, result=result: result, input_model=input_model,
                     output_model=output_model)
        envelope = tool({})
        assert envelope["status"] == "ok", envelope
        parsed = tool.parse_output(envelope)
        assert parsed.n == number and parsed.items == [number, 3]


#: values the format admits (leap seconds, the year 0, hosts with no dot) or refuses (any text for
#: date-time and time, which jsonschema alone let through) and the generated model's type refuses
REFUSED_BY_THE_MODEL = {"email": ["a@localhost", "a@b", '"a b"@c.d', "a@[127.0.0.1]"],
                        "time": ["23:59:60Z", "not a time"], "date-time": ["2026-12-31T23:59:60Z", "yesterday"],
                        "date": ["0000-01-01"]}


@pytest.mark.parametrize("where", ["default", "example"])
@pytest.mark.parametrize("fmt", sorted(REFUSED_BY_THE_MODEL))
def test_check_refuses_a_default_or_example_the_generated_stub_refuses(fmt: str, where: str) -> None:
    """check accepted ``default: a@localhost`` on a ``format: email`` field (and a leap second for
    ``time``, any text for ``date-time``), and the stub then refused every call that left the field
    out ('e must be a valid email'), for an argument the caller never sent; an example call check
    accepted came back INVALID_ARGUMENT. Each is now refused by check, with the reason as the hint;
    every value it still accepts goes through the stub."""
    from contractgen.manifest.contract_checks import check_examples
    from contractgen.manifest.parse import ParsedFile
    from contractgen.manifest.report import Reporter
    from contractgen.manifest.schema_checks import check_embedded_schema

    for value in [*REFUSED_BY_THE_MODEL[fmt], {"email": "a@example.com", "time": "10:00:00Z", "date": "2026-01-02",
                                                "date-time": "2026-01-02T10:00:00Z"}[fmt]]:
        field: dict[str, Any] = {"type": "string", "format": fmt, "description": "e"}
        if where == "default":
            field["default"] = value
        schema = {"type": "object", "properties": {"e": field}}
        report = Reporter(ParsedFile("probe/1.0.0.json"))
        check_embedded_schema(report, "input", schema)
        if where == "example":
            check_examples(report, {"examples": [{"summary": "s", "arguments": {"e": value}}]}, schema)
        refused = [d for d in report.diagnostics if d.code in ("invalid-schema-default", "invalid-example")]
        models = generate_models([ModelRequest("m", "FormatsV1", schema, {"type": "object"})])["m"]
        namespace = model_module(models, f"formats_{abs(hash((fmt, where, value)))}", models.body)
        model = namespace[models.input_class]
        model.model_rebuild(_types_namespace=namespace)
        contract = Contract(name="formats", version="1.0.0", summary="s", description="d", input_schema=schema,
                            output_schema={"type": "object"})
        tool = guard(contract, lambda arguments: {}, input_model=model)
        envelope = tool({} if where == "default" else {"e": value})
        assert bool(refused) == (envelope["status"] == "error"), (value, report.diagnostics, envelope)
        if refused:  # the reason: the format itself (as the guard asserts it), or the model's Python type
            by_format = not reference_validator.format_checker().conforms(value, fmt)
            assert refused[0].hint and ("the guard asserts formats" if by_format else "generated model") in refused[0].hint


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=6)


@settings(max_examples=25, deadline=None)
@given(value=JSON_VALUES)
@example(value={"k": 1}).via("an object")
@example(value=[1, 2]).via("an array")
@example(value=1.5).via("a fraction")
@example(value={}).via("the empty object")
def test_an_optional_const_field_may_be_left_out_and_arrives_as_sent(value: Any) -> None:
    """An optional property with ``const`` of an object, an array or a fraction was typed without
    ``| None`` yet defaulted to ``None``: the stub refused every call that left it out ("'v' must be
    exactly {"k": 1}") and the output model every result without it, though the schema accepts
    both. Left out or sent, it now reaches the implementation (or parse_output) as the schema says."""
    field = {"const": value}
    schema = {"type": "object", "properties": {"v": field, "inner": {"type": "object", "properties": {"v": field}}}}
    models = generate_models([ModelRequest("m", "ConstV1", schema, schema)])["m"]
    namespace = model_module(models, f"const_{abs(hash(json.dumps(value)))}", models.body)
    input_model, output_model = namespace[models.input_class], namespace[models.output_class]
    input_model.model_rebuild(_types_namespace=namespace)
    output_model.model_rebuild(_types_namespace=namespace)
    received: list[Any] = []
    contract = Contract(name="const", version="1.0.0", summary="s", description="d",
                        input_schema=schema, output_schema=schema)
    for arguments in ({}, {"inner": {}}, {"v": value, "inner": {"v": value}}):
        tool = guard(contract, lambda args, sent=arguments: received.append(args) or sent,
                     input_model=input_model, output_model=output_model)
        envelope = tool(arguments)
        assert envelope["status"] == "ok", envelope
        assert json.dumps(received[-1].model_dump(mode="json", exclude_unset=True)) == json.dumps(arguments)
        assert tool.parse_output(envelope).model_dump(mode="json", exclude_unset=True) == envelope["output"]


LISTED = st.lists(st.sampled_from([1, 2, 2.5, "a", "b", None, True]), min_size=1, max_size=4, unique_by=json.dumps)
#: a schema that lists values: its own enum or const, one behind a $ref, one in a nested allOf; or a type
LISTING_MEMBERS = st.one_of(
    LISTED.map(lambda values: {"enum": values}),
    st.sampled_from([1, "a", 2.5, None]).map(lambda value: {"const": value}),
    st.just({"$ref": "#/$defs/listed"}),
    LISTED.map(lambda values: {"allOf": [{"enum": values}]}),
    st.sampled_from([{"type": "integer"}, {"type": ["string", "number"]}, {}]),
)


@settings(max_examples=30, deadline=None)
@given(members=st.lists(LISTING_MEMBERS, min_size=1, max_size=3), own=st.none() | LISTED, defined=LISTED)
@example(members=[{"enum": [1, 2]}, {"enum": [2, "a"]}], own=None, defined=[1]).via("two lists")
@example(members=[{"$ref": "#/$defs/listed"}, {"const": "a"}], own=None, defined=["a", "b"]).via("a ref and a const")
@example(members=[{"enum": ["a", "b"]}], own=["b"], defined=[1]).via("the holder's list and a member's")
def test_an_all_of_of_several_value_lists_accepts_what_they_all_list(
        members: list[dict[str, Any]], own: list[Any] | None, defined: list[Any]) -> None:
    """``allOf: [{enum: [1, 2]}, {enum: [2, 3]}]`` (or a const, an enum behind a $ref or beside the
    allOf) was written as an empty class, an object: the stub refused 2, which the schema accepts,
    with "'v' must be one of 1, 2". Every value the schema accepts there now reaches the
    implementation as sent."""
    field: dict[str, Any] = {"allOf": members, **({"enum": own} if own is not None else {})}
    schema = {"type": "object", "$defs": {"listed": {"enum": defined}}, "properties": {"v": field}}
    models = generate_models([ModelRequest("m", "ListsV1", schema, {"type": "object"})])["m"]
    namespace = model_module(models, f"lists_{abs(hash(json.dumps(field) + json.dumps(defined)))}", models.body)
    model = namespace[models.input_class]
    model.model_rebuild(_types_namespace=namespace)
    received: list[Any] = []
    contract = Contract(name="lists", version="1.0.0", summary="s", description="d", input_schema=schema,
                        output_schema={"type": "object"})
    tool = guard(contract, lambda arguments: received.append(arguments) or {}, input_model=model)
    validator = reference_validator.validator(schema, formats=False)
    for value in [1, 2, 2.5, "a", "b", None, True, 1.0]:
        if not validator.is_valid({"v": value}):
            continue
        received.clear()
        envelope = tool({"v": value})
        assert envelope["status"] == "ok", (value, envelope)
        got = received[0].model_dump(mode="json", exclude_unset=True)["v"]
        assert json.dumps(got) == json.dumps(value) or (type(value) in (int, float) and got == value), (value, got)
