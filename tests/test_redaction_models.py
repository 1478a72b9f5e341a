"""A generated model never shows a sensitive value: not in ``repr()`` / ``str()`` (what a user's own
log line prints), not in the text of the ``ValidationError`` it raises (``input_value=...``).

Hypothesis hides a secret behind each schema construct the model generator can model (``$ref`` by
pointer and anchor, chains, combinators, ``dependentSchemas``, ``if``/``then``, an escaped pointer),
marked ``writeOnly`` / ``x-sensitive`` or only named like a secret, at the top, inside an object and
inside an array; the real generator writes the models, which are then imported and called.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from build_support import model_module
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contractgen.codegen.models import ModelRequest, generate_models

MARKER = "9731773177"
SECRET = {"type": "string", "pattern": "^[0-9]+$"}
KINDS = ["direct", "pointer", "anchor", "chain", "allOf", "anyOf", "oneOf", "dependent", "conditional",
         "escaped-pointer", "named"]
_names = itertools.count()


def _hide(kind: str, flag: str) -> tuple[str, dict[str, Any], dict[str, Any], dict[str, Any]]:
    """(property name, its schema, $defs to add, keywords for the object holding it)."""
    marked = {**SECRET, flag: True}
    if kind == "named":  # no mark: the name alone makes it a secret
        return "api_token", dict(SECRET), {}, {}
    if kind == "direct":
        return "pw", marked, {}, {}
    if kind == "pointer":
        return "pw", {"$ref": "#/$defs/Secret"}, {"Secret": marked}, {}
    if kind == "anchor":
        return "pw", {"$ref": "#secret"}, {"Secret": {"$anchor": "secret", **marked}}, {}
    if kind == "chain":
        return "pw", {"$ref": "#/$defs/D0"}, {"D0": {"$ref": "#/$defs/D1"}, "D1": marked}, {}
    if kind in ("allOf", "anyOf", "oneOf"):
        return "pw", {kind: [marked]}, {}, {}
    if kind == "dependent":
        return "pw", dict(SECRET), {}, {"dependentSchemas": {"pw": {"properties": {"pw": marked}}}}
    if kind == "conditional":
        return "pw", dict(SECRET), {}, {"if": {"required": ["pw"]}, "then": {"properties": {"pw": marked}}}
    if kind == "escaped-pointer":
        return "pw", {"$ref": "#/$defs/a~1b%25"}, {"a/b%": marked}, {}
    raise AssertionError(kind)


def _schema(kind: str, flag: str, nesting: str) -> tuple[dict[str, Any], Any]:
    """(input schema, valid arguments holding the secret) for one placement."""
    name, prop, defs, extra = _hide(kind, flag)
    holder: dict[str, Any] = {"type": "object", "required": ["id"],
                              "properties": {name: prop, "id": {"type": "integer"}, "note": {"type": "string"}},
                              **extra}
    value = {name: MARKER, "id": 1, "note": "hello"}
    if nesting == "top":
        schema, arguments = holder, value
    elif nesting == "object":
        schema = {"type": "object", "required": ["outer"], "properties": {"outer": holder, "note": {"type": "string"}}}
        arguments = {"outer": value, "note": "hello"}
    else:
        schema = {"type": "object", "properties": {"outer": {"type": "array", "items": holder}}}
        arguments = {"outer": [value]}
    return ({**schema, "$defs": defs} if defs else schema), arguments


def _broken(arguments: dict[str, Any]) -> list[Any]:
    """Arguments the model refuses around the secret: a missing required member beside it, a wrong
    sibling, the parent of wrong shape."""
    def changed(v: Any, key: str, new: Any) -> Any:  # every member named ``key`` dropped or replaced
        if isinstance(v, dict):
            return {k: changed(x, key, new) if k != key else new for k, x in v.items()
                    if k != key or new is not None}
        if isinstance(v, list):
            return [changed(x, key, new) for x in v]
        return v

    return [changed(arguments, "id", None), changed(arguments, "note", 5), [arguments]]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(KINDS), flag=st.sampled_from(["writeOnly", "x-sensitive"]),
       nesting=st.sampled_from(["top", "object", "array"]))
def test_a_generated_model_never_shows_a_secret(kind: str, flag: str, nesting: str) -> None:
    schema, arguments = _schema(kind, flag, nesting)
    prefix = f"LoginV{next(_names)}"
    models = generate_models([ModelRequest("login", prefix, schema, {"type": "object"})])["login"]
    namespace = model_module(models, f"redaction_models_{prefix.lower()}", models.body)
    model = namespace[models.input_class]
    built = model.model_validate(arguments)
    assert MARKER in built.model_dump_json()  # the value is there, only hidden from view
    shown = repr(built) + str(built) + f"{built!r} {built}"
    assert MARKER not in shown
    assert "hello" in shown or nesting != "top"  # what is no secret stays readable
    for bad in _broken(arguments):
        with pytest.raises(Exception) as caught:
            model.model_validate(bad)
        assert MARKER not in str(caught.value) + repr(caught.value)


def test_the_bundled_refund_model_hides_its_codes() -> None:
    from generated.refund_payment_v1 import RefundPaymentV1Input

    arguments = {"payment_id": "pay_3KfT9aQx2L", "amount_cents": 2500, "currency": "EUR",
                 "reason": "duplicate", "customer_email": "ann@example.com", "approval_code": "493817"}
    built = RefundPaymentV1Input.model_validate(arguments)
    assert "493817" not in repr(built) + str(built) and "ann@example.com" not in repr(built)
    assert "pay_3KfT9aQx2L" in repr(built)
    with pytest.raises(Exception) as caught:
        RefundPaymentV1Input.model_validate({**arguments, "currency": "XXX"})
    assert "493817" not in str(caught.value)


@pytest.mark.parametrize(("schema", "arguments"), [
    ({"type": "object", "properties": {"u": {"type": "string"}}}, {"u": "ann", "api_key": MARKER}),
    ({"type": "object", "properties": {"u": {"type": "string"}}, "additionalProperties": {**SECRET, "writeOnly": True}},
     {"u": "ann", "other": MARKER}),
    ({"type": "object", "properties": {"u": {"type": "string"}},
      "patternProperties": {"^s_": {**SECRET, "x-sensitive": True}}}, {"u": "ann", "s_1": MARKER}),
    ({"type": "object", "properties": {"inner": {"type": "object", "properties": {"u": {"type": "string"}}}}},
     {"inner": {"u": "ann", "password": MARKER}}),
], ids=["named-extra", "marked-additional", "marked-pattern", "nested-named-extra"])
def test_an_undeclared_member_of_an_open_model_never_shows_a_secret(schema: dict[str, Any], arguments: Any) -> None:
    """pydantic keeps undeclared members (extra="allow") and its repr lists them: one named like a
    secret, or any where the schema marks undeclared members, shows as [redacted]."""
    prefix = f"OpenV{next(_names)}"
    models = generate_models([ModelRequest("login", prefix, schema, {"type": "object"})])["login"]
    namespace = model_module(models, f"redaction_models_{prefix.lower()}", models.body)
    model = namespace[models.input_class]
    built = model.model_validate(arguments)
    assert MARKER in built.model_dump_json()
    assert MARKER not in repr(built) + str(built)
    wrong_shape = [arguments] if "u" in arguments else {"inner": [arguments["inner"]]}
    with pytest.raises(Exception) as caught:  # refused whole: pydantic quotes the object it was given
        model.model_validate(wrong_shape)
    assert MARKER not in str(caught.value)
    if "additionalProperties" not in schema:  # which, as redaction reads it, applies to every member
        assert "ann" in repr(built) + str(built)
