"""runtime/patterns.py: what the guard's validator says about a pattern, including when it cannot say."""

from __future__ import annotations

import json
import subprocess
import sys

from contractgen.runtime.patterns import matches_any, pattern_matches, pattern_problem

#: jsonschema-rs gives up on this search (its backtracking limit); Python's re takes time exponential
#: in the length of the name (24 s for 28 characters)
GIVES_UP = ("^(a|a)*\\1$", "a" * 40 + "b")


def test_a_refused_pattern_has_a_reason_and_no_verdict() -> None:
    assert pattern_problem("[^]") is not None and "regex" in str(pattern_problem("[^]"))
    assert pattern_problem("^\\p{L}+$") is None and pattern_problem(5) is not None
    assert pattern_matches("[^]", "a") is None


def test_what_the_validator_cannot_read_or_finish_is_no_verdict() -> None:
    assert pattern_matches("^a", "a\ud800") is None  # a lone surrogate
    assert pattern_matches(*GIVES_UP) is None
    assert pattern_matches("^(a|a)*\\1$", "aa") is True and pattern_matches("^(a)\\1$", "ab") is False
    assert matches_any(["^b", GIVES_UP[0]], GIVES_UP[1]) is None
    assert matches_any(["^b", GIVES_UP[0], "a"], GIVES_UP[1]) is True
    assert matches_any(["^b"], "a") is False


def test_a_name_the_validator_gives_up_on_is_redacted_and_the_call_returns() -> None:
    """The redaction walk used Python's re on the name: exponential in its length, so the call never
    came back. Now it asks the validator, which gives up, and "cannot tell" redacts."""
    code = f"""
import json
from contractgen.runtime import Contract, Timeout, guard
schema = {{"type": "object", "patternProperties": {{{GIVES_UP[0]!r}: {{"type": "string", "writeOnly": True}}}}}}
contract = Contract(name="login", version="1.0.0", summary="s", description="d", input_schema=schema,
                    output_schema={{"type": "object"}}, timeout=Timeout(None))
print(json.dumps(guard(contract, lambda a: {{}})({{{GIVES_UP[1]!r}: ["SECRETmarker"]}})))
"""
    # the timeout only turns a hang into a failure (the call takes well under a second)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True)
    envelope = json.loads(done.stdout)
    assert envelope["status"] == "error" and envelope["error"]["code"] == "INVALID_ARGUMENT"
    assert "SECRETmarker" not in done.stdout
