"""Whether a tool version's announced sunset date has passed (shared by the removal rules)."""

from __future__ import annotations

from datetime import date

from ...ir import ToolVersion
from ..model import Context


def sunset_passed(tool: ToolVersion, context: Context) -> bool:
    deprecation = tool.contract.deprecation
    if deprecation is None or not deprecation.sunset:
        return False
    try:
        return date.fromisoformat(deprecation.sunset) <= context.today
    except ValueError:
        return False
