"""annotations-weakened: a behaviour hint now promises less (read-only, non-destructive, idempotent, closed world)."""

from __future__ import annotations

from collections.abc import Iterator

from ...runtime.contract import Annotations
from ..model import Context, Direction, Hit, Level, Scope
from ..structure import ToolPair

ID = "annotations-weakened"
LEVEL = Level.DANGEROUS
SUMMARY = "A behaviour hint promises less: no longer read-only, now destructive, no longer idempotent, or open world."
DIRECTION = Direction.CONTRACT
SCOPE = Scope.CONTRACT

#: hint -> (its value when absent, as MCP defines it; the value that promises something)
_HINTS = {"read_only": (False, True), "destructive": (True, False), "idempotent": (False, True),
          "open_world": (True, False)}


_LOST = {"read_only": "no longer read-only", "destructive": "now destructive", "idempotent": "no longer idempotent",
         "open_world": "now reaches an open world"}


def _effective(hints: Annotations) -> dict[str, bool]:
    """Each hint as a client reads it: MCP's default when absent, and a read-only tool is neither
    destructive nor repeated with any further effect."""
    values = {name: default if getattr(hints, name) is None else bool(getattr(hints, name))
              for name, (default, _) in _HINTS.items()}
    if values["read_only"]:
        values["destructive"], values["idempotent"] = False, True
    return values


def check(pair: ToolPair, context: Context) -> Iterator[Hit]:
    """Hosts and agents act on these hints: a read-only tool is run without asking, an idempotent one
    is retried after a timeout, a closed-world one is trusted not to reach outside. A hint that now
    promises less turns those habits into repeated or unconfirmed side effects, with no change to the
    schemas to show it."""
    old, new = _effective(pair.old.contract.annotations), _effective(pair.new.contract.annotations)
    for name, (_, promise) in _HINTS.items():
        if old[name] == promise and new[name] != promise:
            written = getattr(pair.new.contract.annotations, name) is not None
            yield Hit(f"{_LOST[name]} ({name}: {str(promise).lower()} -> {str(new[name]).lower()}"
                      f"{'' if written else ', the default when absent'})",
                      pointer=f"/annotations/{name}", source=f"/annotations/{name}" if written else None)
