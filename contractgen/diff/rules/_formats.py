"""Why a format change has no witness: the guard asserts only JSON Schema's own formats."""

from __future__ import annotations

from ...runtime.reference_validator import GUARD_FORMATS


def format_hint(name: object) -> str | None:
    if name in GUARD_FORMATS or name == "regex":
        return None
    return (f"no witness: format {name!r} is not one of JSON Schema's formats, which the guard asserts under "
            "formats=True (others are annotations), so no text is refused for it")
