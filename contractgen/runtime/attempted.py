"""What a tool says it tried, ``ToolError(attempted=...)``, made safe to show a model: redacted and
capped like an echoed argument (an empty result's ``attempted`` is read in ``envelope.ok_envelope``)."""

from __future__ import annotations

from typing import Any

from .envelope import _as_pointer
from .pointer import pointer_parts
from .redaction import cap_value
from .schema_check import SchemaCheck
from .scrub import Scrubber


def tool_attempted(value: Any, field: Any, check: SchemaCheck, scrub: Scrubber) -> Any:
    """A ToolError's ``attempted`` (a JSON value) as the envelope shows it: the call's secrets taken
    out of its texts first (a cap never leaves a secret's start), then redacted by the input schema
    as if sent at ``field`` (an object with no field stands for the whole arguments: it shows no
    writeOnly member) and capped as validation errors cap what they echo."""
    value = scrub.value(value) if scrub else value
    if type(field) is str:
        return check.echo(value, pointer_parts(_as_pointer(field)))
    # no field: an object stands for the arguments; any other value is at no argument's place
    return check.echo(value, []) if type(value) is dict else cap_value(value)
