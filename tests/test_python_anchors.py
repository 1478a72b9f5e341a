"""The project's own Python regexes (names, file names, versions, commits, fingerprints, refs) refuse a
value with a trailing newline: in Python ``$`` also matches before a final newline, so each anchors
with ``\\Z``. (JSON Schema patterns are another matter: runtime/patterns.py reads them as the guard.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run_cli
from hypothesis import given
from hypothesis import strategies as st

from contractgen.compiler.write import UnsafePathError, check_relative_path
from contractgen.diff import git, ignores
from contractgen.importer.manifest import is_portable
from contractgen.manifest import lifecycle_checks
from contractgen.naming import TOOL_NAME_PATTERN
from contractgen.testing import _REF

#: (regex, a value it accepts)
ANCHORED = [
    (TOOL_NAME_PATTERN, "get_weather"),
    (lifecycle_checks._SEMVER_FILE, "1.2.3"),
    (git._FULL_COMMIT, "a" * 40),
    (ignores._FINGERPRINT, "0123456789abcdef"),
    (_REF, "abc123"),
]


@pytest.mark.parametrize(("regex", "good"), ANCHORED, ids=lambda v: getattr(v, "pattern", v))
@given(tail=st.sampled_from(["\n", "\n\n", "\r\n", " ", "\t"]))
def test_a_trailing_newline_or_space_is_refused(regex: object, good: str, tail: str) -> None:
    assert regex.match(good)  # type: ignore[attr-defined]
    assert not regex.match(good + tail)  # type: ignore[attr-defined]


def test_names_and_paths_with_a_newline_are_refused() -> None:
    assert is_portable("foo") and not is_portable("foo\n")
    check_relative_path("foo_v1.py")
    with pytest.raises(UnsafePathError):
        check_relative_path("foo_v1.py\n")


def test_init_refuses_a_name_ending_in_a_newline(tmp_path: Path) -> None:
    """It created the folder ``contracts/foo\\n/`` with a manifest that did not even parse."""
    (tmp_path / "pyproject.toml").write_text('[tool.contractgen]\ncontracts = "contracts"\n', "utf-8")
    result = run_cli("init", "foo\n", cwd=tmp_path, timeout=120)
    assert result.returncode == 2, result.stderr
    assert "expected a portable tool name" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "contracts").exists() or not any((tmp_path / "contracts").iterdir())
