"""Read manifests as they were at a git revision, with ``git ls-tree`` and one ``git cat-file --batch``.

Never clones or fetches: a revision missing from a shallow clone is reported with the fetch command
that brings it in.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from ..diagnostics import Diagnostic
from ..manifest.load import MANIFEST_SUFFIXES
from ..manifest.parse import ParsedFile, parse_manifest_text


@dataclass
class RevisionRead:
    parsed: list[ParsedFile] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)


def _git(args: list[str], cwd: Path, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", *args], cwd=cwd, input=stdin, capture_output=True, check=False)


def read_revision(paths: list[Path], revision: str, cwd: Path | None = None) -> RevisionRead:
    """Every manifest below ``paths`` (as they are named in the working tree) at ``revision``."""
    cwd = (cwd or Path.cwd()).resolve()
    out = RevisionRead()
    anchor = paths[0] if paths else Path(".")
    start = (cwd / anchor).resolve()
    while not start.exists() and start != start.parent:
        start = start.parent
    probe_dir = start if start.is_dir() else start.parent
    try:
        top_run = _git(["rev-parse", "--show-toplevel"], probe_dir)
    except FileNotFoundError:
        out.diagnostics.append(Diagnostic(str(anchor), "", "expected git on PATH to read --against (got no git executable)",
                                          code="git-missing", hint="install git, or compare two folders instead"))
        return out
    if top_run.returncode != 0:
        out.diagnostics.append(Diagnostic(str(anchor), "", "expected a git working tree for --against "
                                          f"(got {probe_dir} outside any repository)", code="not-a-repository",
                                          hint="run inside the repository, or compare two folders: contractgen diff OLD NEW"))
        return out
    top = Path(top_run.stdout.decode().strip()).resolve()
    verify = _git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{revision}^{{commit}}"], top)
    if verify.returncode != 0:
        out.diagnostics.append(_missing_revision(revision, top, anchor))
        return out
    commit = verify.stdout.decode().strip()
    specs: list[str] = []
    for path in paths or [Path(".")]:
        absolute = (cwd / path).resolve()
        try:
            specs.append(absolute.relative_to(top).as_posix() or ".")
        except ValueError:
            out.diagnostics.append(Diagnostic(str(path), "", f"expected a path inside the repository {top} (got {absolute})",
                                              code="outside-repository"))
    if out.diagnostics:
        return out
    listing = _git(["ls-tree", "-r", "-z", "--full-tree", commit, "--", *specs], top)
    if listing.returncode != 0:
        out.diagnostics.append(Diagnostic(str(anchor), "", f"git ls-tree failed ({listing.stderr.decode().strip()})",
                                          code="git-failed"))
        return out
    blobs: list[tuple[str, str]] = []
    for entry in listing.stdout.decode("utf-8", "surrogateescape").split("\0"):
        if not entry:
            continue
        meta, _, name = entry.partition("\t")
        parts = meta.split()
        if len(parts) != 3 or parts[1] != "blob" or not name.endswith(MANIFEST_SUFFIXES):
            continue
        if any(part.startswith(".") for part in Path(name).parts):
            continue
        blobs.append((parts[2], name))
    if not blobs:
        return out
    batch = _git(["cat-file", "--batch"], top, stdin="".join(f"{sha}\n" for sha, _ in blobs).encode())
    data = batch.stdout
    offset = 0
    for sha, name in blobs:
        header_end = data.index(b"\n", offset)
        header = data[offset:header_end].split()
        size = int(header[2]) if len(header) == 3 else 0
        raw = data[header_end + 1: header_end + 1 + size]
        offset = header_end + 1 + size + 1
        display = os.path.relpath(top / name, cwd)
        out.parsed.append(parse_manifest_text(display, raw))
    out.parsed.sort(key=lambda p: p.path)
    return out


def _missing_revision(revision: str, top: Path, anchor: Path) -> Diagnostic:
    shallow = _git(["rev-parse", "--is-shallow-repository"], top).stdout.decode().strip() == "true"
    remote_ref = _git(["rev-parse", "--verify", "--quiet", f"origin/{revision}^{{commit}}"], top).returncode == 0
    if remote_ref:
        hint = f"the remote-tracking branch exists: use --against origin/{revision}"
    elif shallow:
        hint = (f"this is a shallow clone; fetch the revision first: git fetch --depth=50 origin {revision} "
                "(or git fetch --unshallow; in GitHub Actions, actions/checkout with fetch-depth: 0)")
    else:
        hint = f"check the name, or fetch it: git fetch origin {revision}"
    what = "is not in this shallow clone" if shallow else "is not a commit in this repository"
    return Diagnostic(str(anchor), "", f"expected a revision to compare against (got '{revision}', which {what})",
                      code="unknown-revision", hint=hint)
