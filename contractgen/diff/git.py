"""Read manifests as they were at a git revision, with ``git ls-tree`` and one ``git cat-file --batch``.

Never clones or fetches: every git process runs with lazy fetching off and no transport allowed, so a
partial clone (``--filter=blob:none``) never goes to the network; a revision missing from a shallow clone
or a blob missing from a partial one is reported with the command that brings it in. Blob sizes are
read with ``cat-file --batch-check`` and an oversized blob is reported, never read.
"""

from __future__ import annotations

import os
import posixpath
import re
import shlex
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from ..diagnostics import Diagnostic
from ..manifest.caps import MAX_MANIFEST_BYTES
from ..manifest.load import MANIFEST_SUFFIXES
from ..manifest.parse import ParsedFile, parse_manifest_text, too_large

#: the codes of problems with ``--against`` itself (git, the repository, the revision), not with a manifest
GIT_CODES = frozenset({"git-missing", "not-a-repository", "unknown-revision", "outside-repository", "git-failed",
                       "blob-not-fetched"})

_FULL_COMMIT = re.compile(r"^(?:[0-9a-f]{40}|[0-9a-f]{64})\Z")


@dataclass
class RevisionRead:
    parsed: list[ParsedFile] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: with ``parse=False``: each readable manifest's bytes, unparsed (``parsed`` holds the unreadable)
    raw: dict[str, bytes] = field(default_factory=dict)


#: for every git process: no lazy fetch of missing objects (git 2.44+), no transport at all (any git),
#: and never a credential prompt
_OFFLINE = {"GIT_NO_LAZY_FETCH": "1", "GIT_ALLOW_PROTOCOL": "contractgen-never-fetches",
            "GIT_TERMINAL_PROMPT": "0"}


def _git(args: list[str], cwd: Path, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", *args], cwd=cwd, input=stdin, capture_output=True, check=False,
                          env={**os.environ, **_OFFLINE})


def read_revision(paths: list[Path], revision: str, cwd: Path | None = None, parse: bool = True) -> RevisionRead:
    """Every manifest below ``paths`` (as they are named in the working tree) at ``revision``; with
    ``parse=False`` the readable ones are left as bytes in ``raw``."""
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
                                              code="outside-repository",
                                              hint="with --against, name the contracts folder of this repository"))
    if out.diagnostics:
        return out
    listing = _git(["ls-tree", "-r", "-z", "--full-tree", commit, "--", *specs], top)
    if listing.returncode != 0:
        out.diagnostics.append(Diagnostic(str(anchor), "", f"git ls-tree failed ({listing.stderr.decode().strip()})",
                                          code="git-failed", hint=f"run git ls-tree -r {commit} to see git's own error"))
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
        if parts[0] == _SYMLINK_MODE:  # the working tree follows the link: read what it points at
            target, problem = _follow_link(commit, top, name, parts[2])
            if target is None:
                display = os.path.relpath(top / name, cwd)
                out.parsed.append(ParsedFile(display, diagnostics=[Diagnostic(
                    display, "", f"expected a manifest file at '{revision}' (got {problem})", code="not-a-file",
                    hint="point the link at a manifest file in the repository, or commit the file itself")]))
                continue
            blobs.append((target, name))
            continue
        blobs.append((parts[2], name))
    if not blobs:
        return out
    missing = _missing_objects(commit, top)
    present: list[tuple[str, str]] = []
    for sha, name in blobs:
        display = os.path.relpath(top / name, cwd)
        if sha in missing:
            out.parsed.append(ParsedFile(display, diagnostics=[_missing_blob(display, revision, name)]))
        else:
            present.append((sha, name))
    sizes = _blob_sizes([sha for sha, _ in present], top)
    readable: list[tuple[str, str]] = []
    for sha, name in present:
        display = os.path.relpath(top / name, cwd)
        size = sizes.get(sha)
        if size is None:
            out.parsed.append(ParsedFile(display, diagnostics=[_missing_blob(display, revision, name)]))
        elif size > MAX_MANIFEST_BYTES:
            out.parsed.append(too_large(display, size))  # never read
        else:
            readable.append((sha, name))
    batch = _git(["cat-file", "--batch"], top, stdin="".join(f"{sha}\n" for sha, _ in readable).encode())
    data = batch.stdout
    offset = 0
    for sha, name in readable:
        header_end = data.index(b"\n", offset)
        header = data[offset:header_end].split()
        size = int(header[2]) if len(header) == 3 else 0
        raw = data[header_end + 1: header_end + 1 + size]
        offset = header_end + 1 + size + 1
        display = os.path.relpath(top / name, cwd)
        if parse:
            out.parsed.append(parse_manifest_text(display, raw))
        else:
            out.raw[display] = raw
    out.parsed.sort(key=lambda p: p.path)
    return out


_SYMLINK_MODE = "120000"
#: links followed from one manifest name before giving up (a loop, or a chain nobody means)
_LINK_HOPS = 8
#: a link's text is a path: longer than any path a file system takes is not one
_LINK_TEXT_CAP = 4096


def _follow_link(commit: str, top: Path, name: str, sha: str) -> tuple[str | None, str]:
    """(the blob a symbolic link at ``commit`` leads to, "") or (None, what it leads to instead),
    following links inside the repository only, as the working tree would."""
    for _ in range(_LINK_HOPS):
        size = _blob_sizes([sha], top).get(sha)
        if size is None or size > _LINK_TEXT_CAP:
            return None, "a symbolic link that cannot be read in this clone"
        text = _git(["cat-file", "blob", sha], top).stdout.decode("utf-8", "surrogateescape")
        target = posixpath.normpath(posixpath.join(posixpath.dirname(name), text))
        if posixpath.isabs(text) or target == ".." or target.startswith("../"):
            return None, f"a symbolic link to {text}, outside the repository"
        entry = _git(["ls-tree", "-z", "--full-tree", commit, "--", target], top).stdout.decode(
            "utf-8", "surrogateescape").split("\0")[0]
        meta, _, found = entry.partition("\t")
        parts = meta.split()
        if found != target or len(parts) != 3:
            return None, f"a broken symbolic link to {text}"
        if parts[1] != "blob":
            return None, f"a symbolic link to {text}, which is not a file"
        if parts[0] != _SYMLINK_MODE:
            return parts[2], ""
        name, sha = target, parts[2]
    return None, f"a chain of more than {_LINK_HOPS} symbolic links"


def _missing_objects(commit: str, top: Path) -> set[str]:
    """Objects of ``commit``'s tree absent from this (partial) clone, found without fetching them."""
    listing = _git(["rev-list", "--objects", "--no-walk", "--missing=print", commit], top)
    return {line[1:].split()[0] for line in listing.stdout.decode("ascii", "replace").splitlines()
            if line.startswith("?") and len(line) > 1}


def _blob_sizes(shas: list[str], top: Path) -> dict[str, int]:
    """``{sha: size}`` from ``cat-file --batch-check`` (headers only); absent when git cannot tell."""
    if not shas:
        return {}
    check = _git(["cat-file", "--batch-check"], top, stdin="".join(f"{sha}\n" for sha in shas).encode())
    sizes: dict[str, int] = {}
    for line in check.stdout.decode("ascii", "replace").splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] == "blob" and parts[2].isdigit():
            sizes[parts[0]] = int(parts[2])
    return sizes


def _missing_blob(display: str, revision: str, name: str) -> Diagnostic:
    return Diagnostic(display, "", f"expected the file at '{revision}' in this clone (got a partial clone "
                      "without its contents; contractgen never fetches)", code="blob-not-fetched",
                      hint=f"fetch it once: git cat-file -p {revision}:{name} > /dev/null "
                           "(or clone without --filter)")


def _missing_revision(revision: str, top: Path, anchor: Path) -> Diagnostic:
    shallow = _git(["rev-parse", "--is-shallow-repository"], top).stdout.decode().strip() == "true"
    what = "is not in this shallow clone" if shallow else "is not a commit in this repository"
    message = f"expected a revision to compare against (got '{revision}', which {what})"
    remotes = _git(["remote"], top).stdout.decode().split()
    remote = "origin" if "origin" in remotes else remotes[0] if remotes else None
    if remote is not None and _git(["rev-parse", "--verify", "--quiet", "--end-of-options",
                                    f"{remote}/{revision}^{{commit}}"], top).returncode == 0:
        hint = f"the remote-tracking branch exists: use --against {remote}/{revision}"
    elif remote is None:
        hint = "check the name; this repository has no remote to fetch it from"
    else:
        fetch = fetch_command(revision, remote, remotes, current_branch=_current_branch(top), shallow=shallow)
        if shallow:
            hint = ("in GitHub Actions, actions/checkout with fetch-depth: 0 brings the whole history; or fetch "
                    f"it and run the same command again: {fetch}")
        elif fetch is None:
            hint = "check the name: the history here is shorter than that (`git log --oneline` lists it)"
        else:
            hint = ("check the name (`git log --oneline --all` lists the commits here), or fetch it and run the "
                    f"same command again: {fetch}")
    return Diagnostic(str(anchor), "", message, code="unknown-revision", hint=hint)


def _current_branch(top: Path) -> str | None:
    name = _git(["symbolic-ref", "--quiet", "--short", "HEAD"], top).stdout.decode().strip()
    return name or None


#: ``<base>`` followed by ancestry steps: ``HEAD~2``, ``main^``, ``@~1^2``
_ANCESTRY = re.compile(r"^(?P<base>.*?)(?P<steps>(?:~[0-9]*|\^[0-9]*)+)\Z")
_ABBREVIATED_COMMIT = re.compile(r"^[0-9a-f]{4,39}\Z")


def _steps(suffix: str) -> int:
    """How many commits back ``~2^`` reaches (``^2`` is one step: a second parent)."""
    count = 0
    for kind, number in re.findall(r"([~^])([0-9]*)", suffix):
        if kind == "~":
            count += int(number) if number else 1
        else:
            count += 0 if number == "0" else 1
    return count


def fetch_command(revision: str, remote: str, remotes: list[str], *, current_branch: str | None = None,
                  shallow: bool = True) -> str | None:
    """A ``git fetch`` after which ``revision`` resolves under the same name.

    A bare fetch only fills FETCH_HEAD, so each form names its destination: a full commit id is
    fetched as it is, ``<remote>/<branch>`` into that remote-tracking ref, and any other name into a
    local ref of the same name (git puts a tag under refs/tags and a branch under refs/heads).
    Depth 1 is enough for a name: the diff reads one tree at the revision. ``HEAD~N`` (or the checked-out
    branch's) needs N more commits of history below the clone's boundary (``--deepen``), ``<name>~N``
    the name fetched N+1 deep; an abbreviated commit id cannot be fetched by name, so the whole history
    of the remote's branches comes in (naming the full id fetches that commit alone). None when no fetch
    can help: steps back from HEAD in a clone that already has all of its history.
    """
    quoted = shlex.quote
    ancestry = _ANCESTRY.match(revision)
    base, steps = (ancestry.group("base"), _steps(ancestry.group("steps"))) if ancestry else (revision, 0)
    if ancestry and base in ("", "HEAD", "@", current_branch):
        return f"git fetch --no-tags --deepen={max(steps, 1)} {quoted(remote)}" if shallow else None
    if _ABBREVIATED_COMMIT.match(base) and not _FULL_COMMIT.match(base):
        every_branch = quoted(f"+refs/heads/*:refs/remotes/{remote}/*")
        return f"git fetch --no-tags{' --unshallow' if shallow else ''} {quoted(remote)} {every_branch}"
    # a depth in a complete clone would make it shallow
    depth = f" --depth={steps + 1}" if shallow else ""
    if _FULL_COMMIT.match(base):
        return f"git fetch --no-tags{depth} {quoted(remote)} {base}"
    head, _, branch = base.partition("/")
    if branch and head in remotes:
        return (f"git fetch --no-tags{depth} {quoted(head)} "
                f"{quoted(f'+refs/heads/{branch}:refs/remotes/{head}/{branch}')}")
    return f"git fetch --no-tags{depth} {quoted(remote)} {quoted(f'{base}:{base}')}"
