"""Turn the command line's paths and options into tool pairs: two trees, two files, --against, --versions."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..diagnostics import Diagnostic
from ..diagnostics import Level as DiagnosticLevel
from ..manifest.load import LoadResult, load_contracts, load_parsed
from .git import read_revision
from .pairing import pair_files, pair_trees, pair_versions
from .structure import ToolChange, ToolPair


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

    @property
    def ok(self) -> bool:
        return not any(d.level is DiagnosticLevel.ERROR for d in self.diagnostics)


def resolve_inputs(paths: Sequence[Path], *, against: str | None, versions: bool,
                   default_contracts: Path) -> DiffInputs:
    import time

    started = time.perf_counter()
    if against is not None:
        targets = list(paths) or [default_contracts]
        read = read_revision(targets, against)
        label = " ".join(str(p) for p in targets)
        inputs = DiffInputs("against", f"{against}:{label}", label)
        if read.diagnostics:
            inputs.diagnostics.extend(read.diagnostics)
            return inputs
        old = load_parsed(read.parsed)
        new = load_contracts(targets)
        inputs.diagnostics.extend(_labelled(old, f"{against}:") + list(new.diagnostics))
        inputs.load_seconds = time.perf_counter() - started
        if inputs.ok:
            inputs.pairs, inputs.changes = pair_trees(old.contracts, new.contracts)
        return inputs
    if len(paths) == 2 and not versions:
        old_path, new_path = paths
        old, new = load_contracts([old_path]), load_contracts([new_path])
        both_files = old_path.is_file() and new_path.is_file()
        inputs = DiffInputs("files" if both_files else "trees", str(old_path), str(new_path))
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


def _labelled(result: LoadResult, prefix: str) -> list[Diagnostic]:
    """Diagnostics from the old revision name it, so nobody edits the working-tree file by mistake."""
    import dataclasses

    return [dataclasses.replace(d, file=prefix + d.file) for d in result.diagnostics]
