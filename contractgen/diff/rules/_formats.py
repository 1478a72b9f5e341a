"""Which formats jsonschema asserts here (others need optional packages), to explain a missing witness."""

from __future__ import annotations

import jsonschema


def format_hint(name: str) -> str | None:
    if name in jsonschema.Draft202012Validator.FORMAT_CHECKER.checkers:
        return None
    return (f"no witness: jsonschema does not assert format '{name}' in this environment "
            "(it needs an optional package such as rfc3339-validator), so it cannot confirm a rejection")
