"""``contractgen diff``: breaking-change detection between contract versions.

Pipeline: sources (trees, files, a git revision, side-by-side versions) -> pairing -> structural diff
(structure.py) -> rules (rules/, registry.py) -> witnesses -> acknowledgements and gates (engine.py)
-> renderers (render.py).
"""

from .engine import DiffReport, run_diff
from .ignores import DiffSettings, IgnoreEntry, parse_settings
from .model import Context, Direction, Finding, Level, Scope
from .registry import RULES, RULES_BY_ID, Rule
from .sources import DiffInputs, resolve_inputs

__all__ = [
    "RULES",
    "RULES_BY_ID",
    "Context",
    "DiffInputs",
    "DiffReport",
    "DiffSettings",
    "Direction",
    "Finding",
    "IgnoreEntry",
    "Level",
    "Rule",
    "Scope",
    "parse_settings",
    "resolve_inputs",
    "run_diff",
]
