"""The runtime's version and the check generated code runs at import time."""

from __future__ import annotations

RUNTIME_VERSION = "0.1.0"


def require_runtime(specifier: str) -> None:
    """Raise ImportError, with the fix, unless this runtime's version is within ``specifier``."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        wanted = SpecifierSet(specifier)
    except InvalidSpecifier:
        raise ImportError(f"generated code asks for contractgen runtime {specifier!r}, which is not "
                          "a version range; regenerate it with `contractgen build`") from None
    if not wanted.contains(RUNTIME_VERSION, prereleases=True):
        raise ImportError(
            f"this generated code needs contractgen runtime {specifier}, but {RUNTIME_VERSION} is "
            f"installed. Fix: pip install 'contractgen{specifier}', or regenerate the code with the "
            "installed contractgen (`contractgen build`).")
