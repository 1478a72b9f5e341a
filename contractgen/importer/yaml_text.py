"""Deterministic YAML for manifests we write: block style, source key order, and quoting that
survives our YAML 1.2-style loader (which reads ``1e5`` as a number where PyYAML 1.1 writes it bare).
"""

from __future__ import annotations

import re
from typing import Any

import yaml

# Plain scalars our loader (contractgen.manifest.parse) resolves to something other than a string.
_NON_STRING_PLAIN = re.compile(
    r"^(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE"
    r"|[-+]?(?:0|[1-9][0-9]*)"
    r"|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)


class _ManifestDumper(yaml.SafeDumper):  # type: ignore[misc]
    """SafeDumper that double-quotes any string our loader would otherwise read as a non-string."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> Any:
        # indent list items under their key (``key:\n  - item``), as the bundled manifests do
        return super().increase_indent(flow, False)


def _represent_str(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
    if data == "" or _NON_STRING_PLAIN.match(data) or _needs_escapes(data):
        return dumper.represent_scalar("tag:yaml.org,2002:str", data, style='"')
    if "\n" in data and _literal_safe(data):
        return dumper.represent_scalar("tag:yaml.org,2002:str", data, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", data)


def _needs_escapes(data: str) -> bool:
    """Characters a YAML reader would fold or normalise (NEL, line/paragraph separators, controls)."""
    return any((not ch.isprintable() and ch != "\n") or ch in "\x85\u2028\u2029\ufeff" for ch in data)


def _literal_safe(data: str) -> bool:
    """Whether a block literal keeps the string byte for byte (PyYAML falls back to quotes otherwise)."""
    return not any(ch in data for ch in "\r\x85\u2028\u2029\t") and not data.startswith((" ", "\n")) \
        and all(line == line.rstrip(" ") for line in data.split("\n"))


_ManifestDumper.add_representer(str, _represent_str)


def dump_block(key: str, value: Any) -> str:
    """``key: value`` as block YAML, ending in a newline."""
    text: str = yaml.dump({key: value}, Dumper=_ManifestDumper, sort_keys=False, allow_unicode=True,
                     default_flow_style=False, width=100)
    return text
