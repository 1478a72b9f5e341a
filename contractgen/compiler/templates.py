"""The Jinja2 environment: templates from the installed package (``contractgen/_templates``) or the repo.

Every ``{{ value }}`` a template prints goes through ``escape_text`` unless it is ``Code`` (Python source
rendered by ``pyliteral``) or the output of a template macro, so no path puts raw text into a module.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

import jinja2
from markupsafe import Markup

from .pyliteral import Code, escape_text

_PACKAGE_TEMPLATES = Path(__file__).resolve().parents[1] / "_templates"
_REPO_TEMPLATES = Path(__file__).resolve().parents[2] / "templates"


def template_dir() -> Path:
    """The wheel ships templates inside the package; a source checkout has them at the repo root."""
    return _PACKAGE_TEMPLATES if _PACKAGE_TEMPLATES.is_dir() else _REPO_TEMPLATES


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(template_dir())),
        undefined=jinja2.StrictUndefined,
        # Jinja's autoescaping is only the switch: ``_finalize`` escapes for Python and marks the result
        # safe (Markup), so the HTML escaping never runs and macro output is not escaped twice.
        autoescape=True,
        finalize=_finalize,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def _finalize(value: object) -> Markup:
    """Python source as is; any other value as text escaped to sit inside a literal, docstring or comment."""
    if isinstance(value, (Code, Markup)):
        return Markup(value)
    return Markup(escape_text(str(value)))


def templates_digest() -> str:
    """Hash of every template file, part of the incremental build's cache key."""
    digest = hashlib.sha256()
    for path in sorted(template_dir().glob("*.jinja")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()
