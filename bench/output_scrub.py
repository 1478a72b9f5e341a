"""The output scrub of a happy call, planned per schema, against the general reading in the same run.

Run: .venv/bin/python bench/output_scrub.py [--quick]

For each tool, microseconds per call (best of interleaved rounds) of:

* general: ``secrets_sent(arguments, schema)`` (the whole schema walked beside the call) and its
  scrubber over the result, as every happy call paid before the plan;
* planned: the tool's ``scrub(arguments, result)`` from ``output_scrub`` (``-`` where the schema
  needs none: the guard calls nothing);
* floor: jsonschema-rs ``is_valid`` on the arguments and on the result (no model), for scale.

Tools: the bundled contracts (arguments from their examples, and with every marked member sent),
and a login tool whose secrets sit at fixed paths, inside an array of records behind a ``$ref``.
Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from contractgen.runtime.schema_check import _rs
from contractgen.runtime.scrub import output_scrub, secrets_sent

sys.path.insert(0, str(Path(__file__).resolve().parent))
from guard_realistic import best, bundled_cases

LOGIN = {"type": "object", "additionalProperties": False, "required": ["user"],
         "properties": {"user": {"type": "string"}, "password": {"type": "string", "writeOnly": True},
                        "keys": {"type": "array", "items": {"$ref": "#/$defs/key"}}},
         "$defs": {"key": {"type": "object", "additionalProperties": False,
                           "properties": {"value": {"type": "string", "x-sensitive": True},
                                          "label": {"type": "string"}}}}}
LOGIN_CALL = {"user": "ana", "password": "correct horse battery staple",
              "keys": [{"value": f"key-{i:04d}-7f3a9c", "label": f"device {i}"} for i in range(3)]}
LOGIN_RESULT = {"session": "s-81723", "user": "ana", "devices": ["device 0", "device 1", "device 2"]}


def cases() -> list[tuple[str, Any, Any, Any]]:
    """(name, input schema, arguments, result)."""
    found = []
    for case in bundled_cases():
        schema = case.contract.input_schema
        found.append((case.name, schema, case.arguments, case.result))
        marked = {name: "4212" if "pattern" in member else "ana@example.com"
                  for name, member in (schema.get("properties") or {}).items()
                  if member.get("writeOnly") or member.get("x-sensitive")}
        if marked:
            found.append((case.name + "+secrets", schema, {**case.arguments, **marked}, case.result))
    found.append(("login", LOGIN, LOGIN_CALL, LOGIN_RESULT))
    found.append(("login, short result", LOGIN, LOGIN_CALL, {"ok": True, "n": 3}))
    return found


def measure(schema: Any, arguments: Any, result: Any, number: int, rounds: int) -> dict[str, float]:
    in_valid = _rs.validator_for(schema, validate_formats=True).is_valid
    out_valid = _rs.validator_for({}, validate_formats=True).is_valid
    scrub = output_scrub(schema)

    def floor() -> None:
        in_valid(arguments)
        out_valid(result)

    def general() -> Any:
        found = secrets_sent(arguments, schema)
        return found.value(result) if found else result

    def planned() -> Any:
        return scrub(arguments, result) if scrub is not None else result

    if scrub is not None:
        assert json.dumps(planned()) == json.dumps(general())
    readings: dict[str, list[float]] = {"floor": [], "general": [], "planned": []}
    for _ in range(rounds):  # interleaved: the machine's noise hits every reading alike
        readings["floor"].append(best(floor, number, 1))
        readings["general"].append(best(general, number, 1))
        if scrub is not None:
            readings["planned"].append(best(planned, number, 1))
    return {key: min(values) for key, values in readings.items() if values}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    number, rounds = (500, 3) if parser.parse_args().quick else (3000, 5)
    print(f"{'tool':28} {'floor':>7} {'general':>8} {'planned':>8}  general/planned  (us)")
    for name, schema, arguments, result in cases():
        got = measure(schema, json.loads(json.dumps(arguments)), json.loads(json.dumps(result)), number, rounds)
        if "planned" not in got:
            print(f"{name:28} {got['floor']:7.1f} {got['general']:8.1f} {'-':>8}  (no scrub)")
        else:
            print(f"{name:28} {got['floor']:7.1f} {got['general']:8.1f} {got['planned']:8.1f}  "
                  f"{got['general'] / got['planned']:6.1f}x")


if __name__ == "__main__":
    main()
