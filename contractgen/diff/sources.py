"""Turn the command line's paths and options into tool pairs: two trees, two files, --against, --versions."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..diagnostics import Diagnostic
from ..diagnostics import Level as DiagnosticLevel
from ..manifest.caps import MAX_MANIFEST_BYTES, read_capped
from ..manifest.load import (
    LoadResult,
    discover_manifests,
    load_contracts,
    load_parsed,
    read_manifest,
)
from ..manifest.parse import ParsedFile, parse_manifest_text
from .git import read_revision
from .pairing import pair_files, pair_trees, pair_versions
from .structure import ToolChange, ToolPair
from .unchanged import load_changed, parsed_names


@dataclass
class DiffInputs:
    mode: str  # "trees" | "files" | "against" | "versions"
    old_label: str
    new_label: str
    pairs: list[ToolPair] = field(default_factory=list)
    changes: list[ToolChange] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: wall time of loading (parse + check + lower), for the benchmark
    load_seconds: float = 0.0
    #: tool versions left out because their manifests are byte-identical on both sides (unchanged.py)
    unchanged: int = 0

    @property
    def ok(self) -> bool:
        return not any(d.level is DiagnosticLevel.ERROR for d in self.diagnostics)


def resolve_inputs(paths: Sequence[Path], *, against: str | None, versions: bool,
                   default_contracts: Path) -> DiffInputs:
    import time

    started = time.perf_counter()
    if against is not None:
        targets = list(paths) or [default_contracts]
        read = read_revision(targets, against, parse=False)
        label = " ".join(str(p) for p in targets)
        inputs = DiffInputs("against", f"{against}:{label}", label)
        if read.diagnostics:
            inputs.diagnostics.extend(read.diagnostics)
            return inputs
        new_files, problems = discover_manifests(targets)
        new_raw = {str(p): _bytes(p) for p in new_files}
        unreadable = list(read.parsed)  # oversized or missing at the revision: always reported

        def load(old_paths: list[str], new_paths: list[str]) -> tuple[set[str], tuple[LoadResult, LoadResult]]:
            old_parsed = sorted([*unreadable, *(parse_manifest_text(p, read.raw[p]) for p in old_paths)],
                                key=lambda f: f.path)
            new_parsed = [_parsed(p, new_raw[p]) for p in new_paths]
            return parsed_names(old_parsed) | parsed_names(new_parsed), \
                (load_parsed(old_parsed), load_parsed(new_parsed, list(problems)))

        loaded, inputs.unchanged = load_changed(read.raw, new_raw, load)
        old, new = loaded
        inputs.diagnostics.extend(_labelled(old, f"{against}:") + list(new.diagnostics))
        inputs.load_seconds = time.perf_counter() - started
        if inputs.ok:
            inputs.pairs, inputs.changes = pair_trees(old.contracts, new.contracts)
        return inputs
    if len(paths) == 2 and not versions:
        old_path, new_path = paths
        both_files = old_path.is_file() and new_path.is_file()
        if old_path.is_dir() and new_path.is_dir():
            (old, new), unchanged = _load_trees(old_path, new_path)
        else:
            (old, new), unchanged = (load_contracts([old_path]), load_contracts([new_path])), 0
        inputs = DiffInputs("files" if both_files else "trees", str(old_path), str(new_path), unchanged=unchanged)
        inputs.diagnostics.extend(list(old.diagnostics) + list(new.diagnostics))
        inputs.load_seconds = time.perf_counter() - started
        if inputs.ok:
            pairer = pair_files if both_files else pair_trees
            inputs.pairs, inputs.changes = pairer(old.contracts, new.contracts)
        return inputs
    targets = list(paths) or [default_contracts]
    tree = load_contracts(targets)
    label = " ".join(str(p) for p in targets)
    inputs = DiffInputs("versions", label, label, diagnostics=list(tree.diagnostics))
    inputs.load_seconds = time.perf_counter() - started
    if inputs.ok:
        inputs.pairs, inputs.changes = pair_versions(tree.contracts)
    return inputs


def _load_trees(old_root: Path, new_root: Path) -> tuple[tuple[LoadResult, LoadResult], int]:
    """Both folders, leaving out the tools byte-identical in both (unchanged.py)."""
    sides = []
    for root in (old_root, new_root):
        files, problems = discover_manifests([root])
        sides.append(({p.relative_to(root).as_posix(): _bytes(p) for p in files}, problems))
    (old_raw, old_problems), (new_raw, new_problems) = sides

    def load(old_paths: list[str], new_paths: list[str]) -> tuple[set[str], tuple[LoadResult, LoadResult]]:
        old_parsed = [_parsed(str(old_root / p), old_raw[p]) for p in old_paths]
        new_parsed = [_parsed(str(new_root / p), new_raw[p]) for p in new_paths]
        return parsed_names(old_parsed) | parsed_names(new_parsed), \
            (load_parsed(old_parsed, list(old_problems)), load_parsed(new_parsed, list(new_problems)))

    loaded, unchanged = load_changed(old_raw, new_raw, load)
    return loaded, unchanged  # type: ignore[return-value]


def _bytes(path: Path) -> bytes | None:
    """A manifest's bytes, or None when it is too large or unreadable (read_manifest then says why)."""
    try:
        raw = read_capped(path, MAX_MANIFEST_BYTES)
    except OSError:
        return None
    return raw if isinstance(raw, bytes) else None


def _parsed(path: str, raw: bytes | None) -> ParsedFile:
    return parse_manifest_text(path, raw) if raw is not None else read_manifest(Path(path))


def _labelled(result: LoadResult, prefix: str) -> list[Diagnostic]:
    """Diagnostics from the old revision name it, so nobody edits the working-tree file by mistake."""
    import dataclasses

    return [dataclasses.replace(d, file=prefix + d.file) for d in result.diagnostics]
