"""The bundled contracts pass `contractgen check` through the real command line."""

from conftest import run_cli


def test_bundled_contracts_check_clean() -> None:
    result = run_cli("check")
    assert result.returncode == 0, result.stderr
    assert "no errors" in result.stderr
