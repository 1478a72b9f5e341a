"""The pip command that adds an extra from where this install of contractgen came from.

pip records the source of an install that came from a git URL, a local checkout or a wheel (PEP 610
``direct_url.json``); the extra is named from that same source, since contractgen is installed from
a git URL or a checkout rather than a package index. Standard library only: the console script and
every optional module's ImportError use it, on a runtime-only install too.
"""

from __future__ import annotations

import json
import shlex
from importlib import metadata
from urllib.parse import unquote


def install_hint(extra: str, direct_url: str | None = None) -> str:
    """``pip install ...`` adding ``contractgen[extra]`` from the source pip recorded (read from the
    installed distribution when ``direct_url`` is not given)."""
    if direct_url is None:
        direct_url = _recorded_source()
    try:
        source = json.loads(direct_url) if direct_url else None
    except ValueError:
        source = None
    if not isinstance(source, dict) or not isinstance(source.get("url"), str):
        return f"pip install 'contractgen[{extra}]'"
    url: str = source["url"]
    vcs = source.get("vcs_info")
    if isinstance(vcs, dict) and vcs.get("vcs") and vcs.get("commit_id"):
        if url.startswith("file:///"):  # pip before 24 refuses a file URL without a host in a requirement
            url = "file://localhost/" + url.removeprefix("file:///")
        requirement = f"contractgen[{extra}] @ {vcs['vcs']}+{url}@{vcs['commit_id']}"
        return f"pip install {shlex.quote(requirement)}"
    if url.startswith("file://"):
        path = unquote(url.removeprefix("file://"))
        editable = isinstance(source.get("dir_info"), dict) and source["dir_info"].get("editable")
        return f"pip install {'-e ' if editable else ''}{shlex.quote(path + f'[{extra}]')}"
    return f"pip install {shlex.quote(f'contractgen[{extra}] @ ' + url)}"


def _recorded_source() -> str | None:
    try:
        return metadata.distribution("contractgen").read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        return ""


__all__ = ["install_hint"]
