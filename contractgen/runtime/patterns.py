"""The project's one regex semantics: whether a JSON Schema ``pattern`` is valid and whether it matches
a string, decided by the guard's own validator (jsonschema-rs, ECMA-262 regular expressions), so that
``check``, ``diff``, redaction and the guard can never disagree about a pattern.
"""

from __future__ import annotations

import functools
import re
from typing import Any

_rs: Any
try:  # a declared dependency; without it nothing here can judge a pattern ("cannot tell")
    import jsonschema_rs as _rs
except ImportError:  # pragma: no cover - exercised in the no-extra install
    _rs = None

#: compiled matchers kept: patterns come from schemas, so few distinct ones are ever asked about
MATCHER_CACHE = 2048
#: how this module's verdicts are named in diagnostics and docs
SEMANTICS = "ECMA-262, as jsonschema-rs reads it"


#: what sends jsonschema-rs to its backtracking engine (lookaround, backreferences), the only one
#: that can give up on a search; other patterns run on a linear-time engine that always answers
_MAY_GIVE_UP = re.compile(r"\(\?<?[=!]|\\[1-9]|\\k<")


@functools.lru_cache(maxsize=MATCHER_CACHE)
def _compiled(pattern: str) -> tuple[Any, str | None, bool]:
    """(the validator for ``{"pattern": pattern}``, None, whether a search may give up) or
    (None, why not, False)."""
    if _rs is None:  # pragma: no cover - see above
        return None, "jsonschema-rs is not installed", False
    try:
        validator = _rs.validator_for({"pattern": pattern})
    except Exception as exc:  # noqa: BLE001 - jsonschema-rs refuses the pattern (its meta-schema check)
        message = str(exc).split("\n", 1)[0].strip()
        return None, message or type(exc).__name__, False
    return validator, None, _MAY_GIVE_UP.search(pattern) is not None


def pattern_problem(pattern: Any) -> str | None:
    """None when the guard's validator accepts ``pattern`` as a regular expression; else why not."""
    if not isinstance(pattern, str):
        return f"expected a string (got {type(pattern).__name__})"
    return _compiled(pattern)[1]


def is_valid_pattern(pattern: Any) -> bool:
    return pattern_problem(pattern) is None


def pattern_matches(pattern: Any, text: Any) -> bool | None:
    """Whether ``pattern`` finds a match in ``text`` (a search, not anchored: JSON Schema's reading),
    as the guard's validator judges; None when it cannot tell (an invalid pattern, a string the
    validator cannot read, such as one holding a lone surrogate, or a search the engine gave up,
    past its backtracking limit: the guard refuses such a value, but not for a mismatch)."""
    if not isinstance(pattern, str) or not isinstance(text, str):
        return None
    validator, _, may_give_up = _compiled(pattern)
    if validator is None:
        return None
    try:
        if validator.is_valid(text):
            return True
        if not may_give_up:
            return False
        failure = next(iter(validator.iter_errors(text)), None)
    except Exception:  # noqa: BLE001 - e.g. a lone surrogate the validator cannot encode
        return None
    return False if failure is None or _is_mismatch(failure) else None


def _is_mismatch(error: Any) -> bool:
    return type(error.kind).__name__ == "Pattern"


def matches_any(patterns: Any, text: str) -> bool | None:
    """Whether one of ``patterns`` matches ``text``: True as soon as one does, False when each was
    judged and none did, None when none did but one could not be judged."""
    unsure = False
    for pattern in patterns:
        verdict = pattern_matches(pattern, text)
        if verdict:
            return True
        unsure = unsure or verdict is None
    return None if unsure else False


__all__ = ["MATCHER_CACHE", "SEMANTICS", "is_valid_pattern", "matches_any", "pattern_matches",
           "pattern_problem"]
