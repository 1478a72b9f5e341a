"""The install paths the docs give, run as given: the runtime alone from a local checkout, then the
command line's own one-line answer (the compiler extra from that same checkout), run as printed.
The git-URL path runs in tests/test_integrations_ci.py (the workflow template's install step)."""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path

import pytest
from wheel_support import ROOT, _ignore_build_debris, fresh_venv, install, run


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A local checkout of contractgen (a copy of this source tree, without build debris)."""
    target = tmp_path_factory.mktemp("local") / "contractgen"
    shutil.copytree(ROOT, target, ignore=_ignore_build_debris)
    return target


def test_runtime_alone_from_a_checkout_then_the_compiler_as_the_cli_says(
    checkout: Path, tmp_path: Path
) -> None:
    python = fresh_venv(tmp_path / "venv", checkout)
    runtime = run(
        python, "-c", "import contractgen.runtime, importlib.util as u; print(u.find_spec('typer'))"
    )
    assert runtime.returncode == 0 and runtime.stdout.strip() == "None", runtime.stderr

    refused = run(python.parent / "contractgen", "check")
    assert refused.returncode == 2
    (line,) = refused.stderr.strip().splitlines()
    command = line.split("install it with: ", 1)[1]
    assert command == f"pip install {shlex.quote(f'{checkout}[compiler]')}"

    words = shlex.split(command)
    assert words[:2] == ["pip", "install"]
    install(python, *words[2:])  # the venv has no pip of its own: the outer pip installs into it
    project = tmp_path / "project"
    shutil.copytree(ROOT / "contracts", project / "contracts")
    checked = run(python.parent / "contractgen", "check", cwd=project)
    assert checked.returncode == 0 and "manifests checked, no errors" in checked.stderr, (
        checked.stderr
    )


@pytest.mark.parametrize(
    ("recorded", "command"),
    [
        (
            None,
            "pip install 'contractgen[compiler]'",
        ),  # from a package index: pip records no source
        ("not json", "pip install 'contractgen[compiler]'"),
        (
            (
                '{"url": "https://github.com/acme/contractgen", "vcs_info": {"vcs": "git", "commit_id": "0a1b2c",'
                ' "requested_revision": "v0.1.0"}}'
            ),
            "pip install 'contractgen[compiler] @ git+https://github.com/acme/contractgen@0a1b2c'",
        ),
        (
            '{"url": "file:///src/contractgen", "vcs_info": {"vcs": "git", "commit_id": "0a1b2c"}}',
            "pip install 'contractgen[compiler] @ git+file://localhost/src/contractgen@0a1b2c'",
        ),
        (
            '{"url": "file:///src/my%20tools/contractgen", "dir_info": {"editable": true}}',
            "pip install -e '/src/my tools/contractgen[compiler]'",
        ),
        (
            '{"url": "file:///dist/contractgen-0.1.0-py3-none-any.whl", "archive_info": {}}',
            "pip install '/dist/contractgen-0.1.0-py3-none-any.whl[compiler]'",
        ),
        (
            '{"url": "https://example.com/contractgen-0.1.0.tar.gz", "archive_info": {}}',
            "pip install 'contractgen[compiler] @ https://example.com/contractgen-0.1.0.tar.gz'",
        ),
    ],
)
def test_the_compiler_hint_names_the_source_pip_recorded(
    recorded: str | None, command: str
) -> None:
    from contractgen.launcher import install_hint

    assert install_hint(recorded) == command
