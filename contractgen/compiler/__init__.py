"""The build pipeline: manifests -> rendered, formatted ``{path: text}`` -> written atomically or compared."""

from .pipeline import BuildStats, RenderResult, render_tree, select_versions
from .write import read_tree, tree_diff, write_tree

__all__ = ["BuildStats", "RenderResult", "read_tree", "render_tree", "select_versions", "tree_diff", "write_tree"]
