"""The bundled contracts pass `contractgen check` through the real console script."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_bundled_contracts_check_clean() -> None:
    result = subprocess.run([sys.executable, "-m", "contractgen", "check"], cwd=ROOT,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "no errors" in result.stderr
