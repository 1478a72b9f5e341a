"""The built wheel carries everything `contractgen` needs at run time (meta-schema, templates):
build it, install it with the compiler extra into a fresh virtual environment, run `contractgen check`."""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import pytest
from wheel_support import ROOT, fresh_venv
from wheel_support import run as _run


@pytest.fixture
def wheel(project_wheel: Path) -> Path:
    return project_wheel


def test_wheel_contains_meta_schema_and_templates(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert "contractgen/schema/manifest.schema.json" in names
    assert any(n.startswith("contractgen/_templates/") for n in names), names
    templates = sorted(
        p.relative_to(ROOT / "templates").as_posix()
        for p in (ROOT / "templates").rglob("*")
        if p.is_file()
    )
    for template in templates:
        assert f"contractgen/_templates/{template}" in names
    assert not any(n.startswith(("tests/", "contracts/")) for n in names)


def test_installed_wheel_checks_the_bundled_contracts(wheel: Path, tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    # the command line needs the compiler extra; a plain install is the runtime (test_runtime_deploy)
    python = fresh_venv(env_dir, f"{wheel}[compiler]")
    project = tmp_path / "project"
    shutil.copytree(ROOT / "contracts", project / "contracts")
    script = env_dir / "bin" / "contractgen"

    clean = _run(script, "check", "--strict", cwd=project)
    assert clean.returncode == 0, clean.stderr
    assert (
        f"{len(list((project / 'contracts').rglob('*.yaml')))} manifests checked, no errors"
        in clean.stderr
    )

    # the installed package, not the source tree, answered: its meta-schema catches a typo
    broken = project / "contracts" / "book_meeting" / "2.0.0.yaml"
    broken.write_text(broken.read_text().replace("retry:\n", "retyr:\n"))
    bad = _run(script, "check", cwd=project)
    assert bad.returncode == 2, bad.stderr
    assert "did you mean 'retry'?" in bad.stderr
    origin = _run(python, "-c", "import contractgen; print(contractgen.__file__)", cwd=project)
    assert str(env_dir) in origin.stdout

    # templates are found inside the installed package: a full build from the installed wheel
    broken.write_text(broken.read_text().replace("retyr:\n", "retry:\n"))
    built = _run(script, "build", cwd=project)
    assert built.returncode == 0, built.stderr
    assert (project / "generated" / "book_meeting_v2.py").is_file()
    imported = _run(python, "-c", "import generated.book_meeting_v2 as m; print(m.CONTRACT.version)",
                    cwd=project)
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.strip() == "2.0.0"


def test_wheel_carries_every_package_module(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    modules = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "contractgen").rglob("*.py"))
    missing = [m for m in modules if m not in names]
    assert not missing, f"modules missing from the wheel: {missing}"
