"""Reading manifests: parse YAML/JSON with positions, validate, and lower them to the IR."""

from .load import LoadResult, discover_manifests, load_contracts

__all__ = ["LoadResult", "discover_manifests", "load_contracts"]
